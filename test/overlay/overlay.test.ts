// The overlay starter as a broadcaster sees it: the page, copied to a web server of its
// own (another origin than the API, so every call takes the CORS path), opened in
// headless Chromium with a token in its URL fragment, draws the course and the boats,
// the live order, the wind, "delayed by" and dataAsOf, and a ticker line in the language
// asked for, from the streams alone; nothing fetched from anywhere else, no console
// errors; a screenshot to look at. The same page on an origin nobody allowed gets no grant.

import { mkdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { launchChromium } from "../support/chromium.js";
import { useFreshDatabase } from "../support/database.js";
import { freePort } from "../support/ports.js";
import { overlayScenario, type Site, staticSite } from "./overlay-site.js";

const OUT_DIR = fileURLToPath(new URL("../out/", import.meta.url));
const SCREENSHOT = `${OUT_DIR}overlay.png`;
const DELAY_SECONDS = 30;

const db = useFreshDatabase();
let api: Api;
let browser: Browser;
let clubSite: Site;
let stranger: Site;
let token: string;
let raceId: string;

type LiveJson = {
  startGroups: Array<{ state: string; boats: unknown[]; liveOrder: unknown[] | null; course: Array<{ marks: unknown[] }> }>;
};

beforeAll(async () => {
  clubSite = await staticSite(await freePort());
  stranger = await staticSite(await freePort());
  const seeded = overlayScenario([clubSite.origin], DELAY_SECONDS);
  raceId = seeded.raceId;
  await seedIdentities(db, seeded.scenario);
  browser = await launchChromium((message) => console.log(`[chromium] ${message}`));
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  for (const site of [clubSite, stranger]) site?.server.close();
});

interface Visit {
  page: Page;
  consoleErrors: string[];
  requested: string[];
}

async function visit(pageUrl: string): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  const visit: Visit = { page, consoleErrors: [], requested: [] };
  page.on("console", (message) => {
    if (message.type() === "error") visit.consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => visit.consoleErrors.push(error.message));
  page.on("request", (request) => visit.requested.push(request.url()));
  await page.goto(`${pageUrl}#api=${encodeURIComponent(api.url)}&race=${raceId}&token=${token}&lang=de`);
  return visit;
}

describe("the overlay starter on a club's own web server (another origin than the API)", () => {
  let shown: Visit;
  let live: LiveJson;
  let germanLines: string[];

  beforeAll(async () => {
    shown = await visit(`${clubSite.origin}/`);
    await shown.page.locator("#boats .boat").first().waitFor({ timeout: 20_000 });
    await shown.page.locator("#order li").first().waitFor();
    await shown.page.locator("#ticker-text[data-insight-id]").waitFor({ timeout: 20_000 });
    live = (await (await fetch(`${api.url}/api/v1/races/${raceId}/live`, { headers: bearer(token) })).json()) as LiveJson;
    const insights = (await (
      await fetch(`${api.url}/api/v1/races/${raceId}/live/insights?lang=de`, { headers: bearer(token) })
    ).json()) as { insights: Array<{ text: string }> };
    germanLines = insights.insights.map((insight) => insight.text);
  });

  it("draws every boat of the race and the marks of its course", async () => {
    const group = live.startGroups.find((g) => g.state === "Started")!;
    expect(group.boats.length).toBeGreaterThan(0);
    await expect(shown.page.locator("#boats .boat").count()).resolves.toBe(group.boats.length);
    await expect(shown.page.locator("#course .mark").count()).resolves.toBe(group.course.flatMap((step) => step.marks).length);
  });

  it("shows the live order, the wind, how delayed the data is and its dataAsOf", async () => {
    const group = live.startGroups.find((g) => g.state === "Started")!;
    // Every row of the leaderboard, a boat racing without a phone among them (unnamed).
    expect(group.liveOrder!.length).toBeGreaterThan(0);
    await expect(shown.page.locator("#order li").count()).resolves.toBe(group.liveOrder!.length);
    expect(await shown.page.locator("#order li").first().locator(".rank").innerText()).toBe("1");
    expect(await shown.page.locator("#delay").innerText()).toBe(`Delayed by ${DELAY_SECONDS} s`);
    expect(await shown.page.locator("#as-of").innerText()).toMatch(/^Data as of \d\d:\d\d:\d\d UTC$/);
    expect(await shown.page.locator("#wind-speed").innerText()).toMatch(/^\d+\.\d kn$/);
  });

  it("runs an insights ticker in the language asked for", async () => {
    expect(germanLines.length).toBeGreaterThan(0);
    expect(germanLines).toContain(await shown.page.locator("#ticker-text").innerText());
  });

  it("read everything through the streams, from this page's server and the API only, with no console errors", () => {
    const origins = new Set(shown.requested.map((url) => new URL(url).origin));
    expect([...origins].sort()).toEqual([clubSite.origin, new URL(api.url).origin].sort());
    const apiCalls = shown.requested.filter((url) => url.startsWith(api.url)).map((url) => new URL(url).pathname);
    // The three streams, and one track page that starts the boats' trails.
    expect(new Set(apiCalls)).toEqual(
      new Set([
        `/api/v1/races/${raceId}/live/stream`,
        `/api/v1/races/${raceId}/live/insights/stream`,
        `/api/v1/races/${raceId}/analytics/stream`,
        `/api/v1/races/${raceId}/track`,
      ]),
    );
    // The token never left the fragment: no request carried it in its URL.
    expect(shown.requested.filter((url) => url.includes(token))).toEqual([]);
    expect(shown.consoleErrors).toEqual([]);
  });

  it("saves a screenshot of the overlay", async () => {
    // A second live state has arrived, so the boats have short trails.
    await shown.page.waitForTimeout(4500);
    mkdirSync(OUT_DIR, { recursive: true });
    await shown.page.screenshot({ path: SCREENSHOT });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(50_000);
    expect(shown.consoleErrors).toEqual([]);
    await shown.page.close();
  });
});

describe("the overlay starter served by the API at /overlay/", () => {
  it("renders the race from the API's own origin", async () => {
    const same = await visit(`${api.url}/overlay/`);
    await same.page.locator("#boats .boat").first().waitFor({ timeout: 20_000 });
    await same.page.locator("#order li").first().waitFor();
    expect(same.consoleErrors).toEqual([]);
    await same.page.close();
    const page = await fetch(`${api.url}/overlay/`);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect((await fetch(`${api.url}/overlay`, { redirect: "manual" })).headers.get("location")).toBe("/overlay/");
  });
});

describe("the same page on an origin nobody allowed", () => {
  it("gets no CORS grant: the browser lets it read nothing, so no boat appears", async () => {
    const refused = await visit(`${stranger.origin}/`);
    await refused.page.locator("#status", { hasText: "Cannot reach" }).waitFor({ timeout: 20_000 });
    await expect(refused.page.locator("#boats .boat").count()).resolves.toBe(0);
    await expect(refused.page.locator("#order li").count()).resolves.toBe(0);
    // Chromium says why in the console: the answer had no Access-Control-Allow-Origin for this page.
    expect(refused.consoleErrors.join("\n")).toMatch(/CORS/);
    await refused.page.close();
    const preflight = await fetch(`${api.url}/api/v1/races/${raceId}/live/stream`, {
      method: "OPTIONS",
      headers: { origin: stranger.origin, "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });
});
