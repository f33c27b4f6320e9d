// An overlay outlives its token: a broadcast runs all day, a token an hour. A page that
// knows where to get tokens (its own site's tokenUrl, whose backend keeps the secret, or
// a read-only client's id and secret in its fragment) takes a new one when the API
// refuses the one it holds, and its streams carry on from the last event they had. A
// page given only a token says that it stopped working. The tokens' end is brought on
// by retiring their signing key, which the API answers exactly as it answers an
// expired token: API_TOKEN_INVALID, at an open stream's next check.

import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../src/auth/key-ring.js";
import { listKeys, retireKey } from "../../src/store/signing-keys.js";
import { requestToken, secretOf, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { launchChromium } from "../support/chromium.js";
import { useFreshDatabase } from "../support/database.js";
import { freePort } from "../support/ports.js";
import { overlayScenario, type Site, staticSite } from "./overlay-site.js";

/** Long enough that the delayed view is still moving when the tokens are renewed. */
const DELAY_SECONDS = 90;
/** The key ring's 5 s, the stream's 1 s check, the 1 s before reconnecting, and room for a busy machine. */
const RENEWED_WITHIN_MS = 30_000;

const db = useFreshDatabase();
let api: Api;
let browser: Browser;
let site: Site;
let raceId: string;

beforeAll(async () => {
  // The club's site answers /overlay-token from its backend, which keeps the client's secret.
  site = await staticSite(await freePort(), {
    "/overlay-token": async (_request, response) => {
      const answer = await requestToken(api.url, "overlay");
      response.writeHead(answer.status, { "content-type": "application/json", "cache-control": "no-store" }).end(await answer.text());
    },
  });
  const seeded = overlayScenario([site.origin], DELAY_SECONDS);
  raceId = seeded.raceId;
  await seedIdentities(db, seeded.scenario);
  browser = await launchChromium((message) => console.log(`[chromium] ${message}`));
  api = await startApi(db);
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  site?.server.close();
});

interface Visit {
  page: Page;
  consoleErrors: string[];
  requests: Request[];
}

async function visit(settings: Record<string, string>): Promise<Visit> {
  const page = await browser.newPage();
  const visit: Visit = { page, consoleErrors: [], requests: [] };
  page.on("console", (message) => {
    if (message.type() === "error") visit.consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => visit.consoleErrors.push(error.message));
  page.on("request", (request) => visit.requests.push(request));
  await page.goto(`${site.origin}/#${new URLSearchParams({ api: api.url, race: raceId, ...settings })}`);
  await page.locator("#boats .boat").first().waitFor({ timeout: 20_000 });
  return visit;
}

const liveStreamRequests = (visit: Visit) => visit.requests.filter((request) => request.url().endsWith(`/races/${raceId}/live/stream`));
const asOf = (visit: Visit) => visit.page.locator("#as-of").innerText();

describe("an overlay whose signing key is retired while it runs", () => {
  let withCredentials: Visit;
  let withTokenUrl: Visit;
  let withTokenOnly: Visit;
  const shownBefore = new Map<Visit, string>();

  beforeAll(async () => {
    withCredentials = await visit({ client: "overlay", secret: secretOf("overlay") });
    withTokenUrl = await visit({ tokenUrl: `${site.origin}/overlay-token` });
    withTokenOnly = await visit({ token: await tokenFor(api.url, "overlay") });
    for (const shown of [withCredentials, withTokenUrl]) shownBefore.set(shown, await asOf(shown));
    const [key] = await listKeys(db.pool);
    await createKey(db.pool);
    expect(await retireKey(db.pool, key!.kid)).toBe(true);
  });

  for (const [name, shown, tokenRequest] of [
    ["the client's credentials", () => withCredentials, (request: Request) => request.url() === `${api.url}/api/v1/oauth/token`],
    ["its site's tokenUrl", () => withTokenUrl, (request: Request) => request.url() === `${site.origin}/overlay-token`],
  ] as const) {
    it(`given ${name}, takes a new token and its live stream carries on from the last event it had`, async () => {
      const page = shown();
      await expect.poll(() => liveStreamRequests(page).length, { timeout: RENEWED_WITHIN_MS }).toBeGreaterThanOrEqual(2);
      // Newer data arrives on the new stream, and nothing says anything went wrong.
      await expect.poll(() => asOf(page), { timeout: RENEWED_WITHIN_MS }).not.toBe(shownBefore.get(page));
      expect(await page.page.locator("#status").isHidden()).toBe(true);

      expect(page.requests.filter(tokenRequest)).toHaveLength(2);
      const [first, again] = await Promise.all(
        liveStreamRequests(page)
          .slice(0, 2)
          .map((request) => request.allHeaders()),
      );
      expect(again!.authorization).toMatch(/^Bearer ey/);
      expect(again!.authorization).not.toBe(first!.authorization);
      expect(first!["last-event-id"]).toBeUndefined();
      expect(again!["last-event-id"]).toMatch(/\S/);
      // The secret went in a form body only, never in a URL.
      expect(page.requests.filter((request) => request.url().includes(secretOf("overlay")))).toEqual([]);
      expect(page.consoleErrors).toEqual([]);
    });
  }

  it("given only a token, says that it stopped working instead of retrying for ever", async () => {
    const status = withTokenOnly.page.locator("#status");
    await status.filter({ hasText: "API_TOKEN_INVALID" }).waitFor({ timeout: RENEWED_WITHIN_MS });
    expect(await status.innerText()).toBe("API_TOKEN_INVALID: the token has expired or was revoked; open the page with a new one");
    const streams = liveStreamRequests(withTokenOnly).length;
    await withTokenOnly.page.waitForTimeout(2500);
    expect(liveStreamRequests(withTokenOnly)).toHaveLength(streams);
  });
});

describe("an overlay that cannot get a token", () => {
  it("from a tokenUrl that does not answer, says so and asks again", async () => {
    const nobody = `http://127.0.0.1:${await freePort()}/overlay-token`;
    const page = await browser.newPage();
    const asked: string[] = [];
    page.on("request", (request) => {
      if (request.url() === nobody) asked.push(request.url());
    });
    await page.goto(`${site.origin}/#${new URLSearchParams({ api: api.url, race: raceId, tokenUrl: nobody })}`);
    await page.locator("#status", { hasText: `Cannot reach ${nobody}: asking for a token again` }).waitFor({ timeout: 20_000 });
    await expect.poll(() => asked.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await page.close();
  });

  it("from a tokenUrl that answers no token (a 404), says which setting to check and does not ask again", async () => {
    const notOne = `${site.origin}/no-such-token`;
    const page = await browser.newPage();
    const asked: string[] = [];
    page.on("request", (request) => {
      if (request.url() === notOne) asked.push(request.url());
    });
    await page.goto(`${site.origin}/#${new URLSearchParams({ api: api.url, race: raceId, tokenUrl: notOne })}`);
    const status = page.locator("#status");
    await status.filter({ hasText: "HTTP 404" }).waitFor({ timeout: 20_000 });
    expect(await status.innerText()).toBe("HTTP 404: check the page's token settings");
    await page.waitForTimeout(2500);
    expect(asked).toHaveLength(1);
    await page.close();
  });

  it("given a wrong secret, says which setting to check and does not ask again", async () => {
    const page = await browser.newPage();
    const tokenRequests: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/oauth/token")) tokenRequests.push(request.url());
    });
    await page.goto(`${site.origin}/#${new URLSearchParams({ api: api.url, race: raceId, client: "overlay", secret: "not-it" })}`);
    const status = page.locator("#status");
    await status.filter({ hasText: "API_CLIENT_CREDENTIALS_INVALID" }).waitFor({ timeout: 20_000 });
    expect(await status.innerText()).toBe("API_CLIENT_CREDENTIALS_INVALID: check the page's token settings");
    await page.waitForTimeout(2500);
    // One request for the page's three callers (two streams and the trail's track page).
    expect(tokenRequests).toHaveLength(1);
    await expect(page.locator("#boats .boat").count()).resolves.toBe(0);
    await page.close();
  });
});
