// The browsable API reference as a reader meets it: followed from the error codes page,
// rendered by Swagger UI from the API's OpenAPI document in headless Chromium, everything loaded
// from this server (no CDN, no online validator), with a screenshot to look at.

import { mkdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedIdentities, startApi, type Api } from "../support/api.js";
import { launchChromium } from "../support/chromium.js";
import { useFreshDatabase } from "../support/database.js";

const OUT_DIR = fileURLToPath(new URL("../out/", import.meta.url));
const SCREENSHOT = `${OUT_DIR}api-reference.png`;
const LIVE_PATH = "/api/v1/races/{raceId}/live";

const db = useFreshDatabase();
let api: Api;
let browser: Browser;
let page: Page;
let linkTarget: string | null;
const requested: string[] = [];
const scriptErrors: string[] = [];

// Swagger UI breaks the shown path with zero-width spaces; data-path holds it as written.
const liveOperation = () => page.locator(".opblock.opblock-get", { has: page.locator(`.opblock-summary-path[data-path="${LIVE_PATH}"]`) });

beforeAll(async () => {
  await seedIdentities(db);
  browser = await launchChromium((message) => console.log(`[chromium] ${message}`));
  api = await startApi(db);
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

  it("renders the document published at /api/v1/openapi.json", async () => {
    // Swagger UI fetches its own copy from /docs/json; both are the app's one swagger() document.
    const [shown, published] = await Promise.all(["/docs/json", "/api/v1/openapi.json"].map((path) => fetch(`${api.url}${path}`).then((response) => response.json())));
    expect(shown).toEqual(published);
    expect(published).toHaveProperty(["paths", LIVE_PATH, "get"]);
  });

  it("loads nothing from anywhere but this server", () => {
    const origin = new URL(api.url).origin;
    // Sanity: the recording saw both pages, Swagger UI's own files and the document.
    expect(requested).toEqual(expect.arrayContaining([`${origin}/docs/errors`, `${origin}/docs`, `${origin}/docs/static/swagger-ui-bundle.js`, `${origin}/docs/json`]));
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
  });

  it("saves a full-page screenshot with the live operation open", async () => {
    mkdirSync(OUT_DIR, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    // A blank page of this size compresses to a few kilobytes.
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(50_000);
  });
});
