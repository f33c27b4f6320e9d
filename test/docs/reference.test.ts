// The browsable API reference as a reader meets it: followed from the error codes page,
// rendered by Swagger UI from the API's OpenAPI document in headless Chromium, everything loaded
// from this server (no CDN, no online validator), with a screenshot to look at. Its error
// examples say each status's own codes, and "Try it out" on a stream shows its first events.

import { mkdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { CLUB, identityScenario, secretOf, seedIdentities, startApi, type Api } from "../support/api.js";
import { launchChromium } from "../support/chromium.js";
import { useFreshDatabase } from "../support/database.js";
import { freePort } from "../support/ports.js";

const OUT_DIR = fileURLToPath(new URL("../out/", import.meta.url));
const SCREENSHOT = `${OUT_DIR}api-reference.png`;
const LIVE_PATH = "/api/v1/races/{raceId}/live";
const STREAM_PATH = "/api/v1/races/{raceId}/live/stream";

const db = useFreshDatabase();
let api: Api;
let browser: Browser;
let page: Page;
let linkTarget: string | null;
let raceId: string;
const requested: string[] = [];
const scriptErrors: string[] = [];

// Swagger UI breaks the shown path with zero-width spaces; data-path holds it as written.
const operation = (path: string) =>
  page.locator(".opblock.opblock-get", { has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
const liveOperation = () => operation(LIVE_PATH);

beforeAll(async () => {
  const scenario = identityScenario();
  const now = Date.now();
  const race = sliceScenario(
    simulateScenario({ seed: "reference", gunMs: now - 10 * 60_000, startGroups: 1, boatsPerGroup: 3, laps: 1, legLengthM: 500 }),
    null,
    now,
  );
  scenario.events = race.events.map((event) => ({ ...event, clubId: CLUB }));
  raceId = scenario.events[0]!.races[0]!.id;
  await seedIdentities(db, scenario);
  browser = await launchChromium((message) => console.log(`[chromium] ${message}`));
  // The page's Authorize dialog posts to the document's tokenUrl: the API's public address must be where it listens.
  const port = await freePort();
  api = await startApi(db, { publicBaseUrl: `http://127.0.0.1:${port}` }, db.pool, port);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("request", (request) => requested.push(request.url()));
  page.on("pageerror", (error) => scriptErrors.push(error.message));
  await page.goto(`${api.url}/docs/errors`);
  const link = page.locator("#api-reference");
  linkTarget = await link.getAttribute("href");
  await link.click();
  // Swagger UI builds the page in the browser: the operation appears once it has fetched
  // and rendered the document.
  await liveOperation().waitFor();
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

describe("the API reference at /docs", () => {
  it("is reached from the error codes page and names the API", async () => {
    expect(linkTarget).toBe("/docs");
    expect(new URL(page.url()).pathname).toBe("/docs");
    expect(await page.title()).toContain("Race Tracking API");
    expect(scriptErrors).toEqual([]);
  });

  it("lists the live-race operation with its summary", async () => {
    const operation = liveOperation();
    await expect(operation.count()).resolves.toBe(1);
    expect(await operation.locator(".opblock-summary-method").innerText()).toBe("GET");
    expect(await operation.locator(".opblock-summary-description").innerText()).toBe("Race live: positions, wind and live order");
  });

  it("shows dataAsOf in the live answer once the operation is opened", async () => {
    const operation = liveOperation();
    await operation.locator(".opblock-summary").click();
    // The example Swagger UI builds from the 200 answer's schema, not a header's description.
    const example = operation.locator('.responses-table tr.response[data-code="200"] .model-example pre.example');
    await example.waitFor();
    expect(await example.innerText()).toMatch(/"dataAsOf": "\d{4}-\d\d-\d\dT/);
  });

  it("shows each error status with its own status and codes, never another status's", async () => {
    const operation = liveOperation();
    const example = (status: number) => operation.locator(`.responses-table tr.response[data-code="${status}"] .model-example pre`).first();
    const shown: Record<number, string> = {};
    for (const status of [401, 403, 404, 429, 503]) {
      await example(status).waitFor();
      shown[status] = await example(status).innerText();
    }
    expect(shown[401]).toMatch(/"status": 401[\s\S]*"code": "API_TOKEN_MISSING"/);
    expect(shown[403]).toMatch(/"status": 403[\s\S]*"code": "API_(IP_NOT_ALLOWED|SCOPE_MISSING)"/);
    expect(shown[404]).toMatch(/"status": 404[\s\S]*"code": "RACE_NOT_FOUND"/);
    expect(shown[429]).toMatch(/"status": 429[\s\S]*"code": "RATE_LIMIT_EXCEEDED"/);
    expect(shown[503]).toMatch(/"status": 503[\s\S]*"code": "API_UNAVAILABLE"/);
    // Its link is the code's own anchor on this server's errors page.
    expect(shown[404]).toContain(`"type": "${api.runtime.errorsUrl}#RACE_NOT_FOUND"`);
    const allText = await operation.locator(".responses-table").innerText();
    expect(allText).not.toContain("API_TOKEN_REQUEST_INVALID");
  });

  it("runs Try it out on a stream: authorised from the page, it shows the stream's first events instead of loading for ever", async () => {
    await page.locator(".auth-wrapper button.authorize").click();
    const dialog = page.locator(".modal-ux");
    await dialog.locator('input[id^="client_id_"]').fill("overlay");
    await dialog.locator('input[id^="client_secret_"]').fill(secretOf("overlay"));
    await dialog.locator("button.modal-btn.auth.authorize").click();
    // Swagger UI fetched a token from the token endpoint and shows the scheme as authorised.
    await dialog.locator("button.modal-btn.auth", { hasText: "Logout" }).waitFor();
    await dialog.locator("button.btn-done").click();

    const stream = operation(STREAM_PATH);
    await stream.locator(".opblock-summary").click();
    await stream.locator(".try-out__btn").click();
    await stream.locator('tr[data-param-name="raceId"] input').fill(raceId);
    await stream.locator("button.execute").click();
    const body = stream.locator(".live-responses-table .response-col_description pre").first();
    await body.waitFor({ timeout: 20_000 });
    const text = await body.innerText();
    expect(text).toMatch(/^event: live$/m);
    expect(text).toContain(`"raceId": "${raceId}"`.replace(": ", ":"));
    expect(text).toContain("first 5 seconds of the stream");
    expect(await stream.locator(".live-responses-table .response .response-col_status").first().innerText()).toBe("200");
    expect(await stream.locator(".loading-container").count()).toBe(0);
    expect(scriptErrors).toEqual([]);
  });

  it("renders the document published at /api/v1/openapi.json", async () => {
    // Swagger UI fetches its own copy from /docs/json; both are the app's one swagger() document.
    const [shown, published] = await Promise.all(
      ["/docs/json", "/api/v1/openapi.json"].map((path) => fetch(`${api.url}${path}`).then((response) => response.json())),
    );
    expect(shown).toEqual(published);
    expect(published).toHaveProperty(["paths", LIVE_PATH, "get"]);
  });

  it("loads nothing from anywhere but this server", () => {
    const origin = new URL(api.url).origin;
    // Sanity: the recording saw both pages, Swagger UI's own files and the document.
    expect(requested).toEqual(
      expect.arrayContaining([
        `${origin}/docs/errors`,
        `${origin}/docs`,
        `${origin}/docs/static/swagger-ui-bundle.js`,
        `${origin}/docs/json`,
      ]),
    );
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
  });

  it("saves a full-page screenshot with the live operation open", async () => {
    mkdirSync(OUT_DIR, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    // A blank page of this size compresses to a few kilobytes.
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(50_000);
  });
});
