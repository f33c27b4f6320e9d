// Caching of track windows: Cache-Control by where the window ends, ETag and 304,
// compressed bytes made once per kept window, the server-side store of immutable
// windows (same message object, one read for concurrent misses, never a failure), and
// the guard and visibility checked on every request before it.

import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GetTrackPageResponse } from "../../gen/racing/v1/track_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import { createPool } from "../../src/store/pool.js";
import { useFreshDatabase } from "../support/database.js";
import { bearer, startApi, tokenFor, type Api } from "../support/api.js";
import {
  DELAY_SECONDS,
  GUN,
  MINUTE,
  TRACK_IDS as IDS,
  rawGet,
  trackPageInProcess,
  trackQuery,
  trackScenario,
  type TrackPageJson,
} from "../support/track-scenarios.js";

const db = useFreshDatabase();
let api: Api;
let token: string;

beforeAll(async () => {
  await importScenario(db.pool, trackScenario());
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
});
afterAll(() => api?.close());

const IMMUTABLE = "private, max-age=3600, immutable";
const NEAR_NOW = "private, max-age=2";
const DELAY_MS = DELAY_SECONDS * 1000;

function url(params: Record<string, string | number | undefined>, base: string = api.url): string {
  return `${base}/api/v1/races/${IDS.race}/track${trackQuery({ startGroupId: IDS.group, ...params })}`;
}

async function get(
  params: Record<string, string | number | undefined>,
  headers: Record<string, string> = {},
  base?: string,
): Promise<Response> {
  return fetch(url(params, base), { headers: { ...bearer(token), ...headers } });
}

function call(since: number, until?: number): Promise<GetTrackPageResponse> {
  return trackPageInProcess(api, token, since, until);
}

describe("Cache-Control", () => {
  it("is immutable for a window ending at least 2 minutes before the delayed cut-off", async () => {
    for (const response of [
      await get({ since: GUN }),
      await get({ since: Date.now() - DELAY_MS - 13 * MINUTE }),
      await get({ since: Date.now() - DELAY_MS - 5 * MINUTE, until: Date.now() - DELAY_MS - 150_000 }),
    ]) {
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe(IMMUTABLE);
    }
  });

  it("is max-age=2 for a window that reaches closer to the cut-off", async () => {
    for (const response of [
      await get({ since: Date.now() - DELAY_MS - 11 * MINUTE }),
      await get({ since: Date.now() - DELAY_MS - 5 * MINUTE, until: Date.now() - DELAY_MS - 90_000 }),
      await get({ since: Date.now() - DELAY_MS - 5 * MINUTE }),
    ]) {
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe(NEAR_NOW);
    }
  });

  it("says X-Data-As-Of (now minus the delay) on every answer", async () => {
    const before = Date.now();
    const response = await get({ since: GUN });
    const asOf = Date.parse(response.headers.get("x-data-as-of")!);
    expect(asOf).toBeGreaterThanOrEqual(before - DELAY_MS);
    expect(asOf).toBeLessThanOrEqual(Date.now() - DELAY_MS);
  });

  it("is no-store on errors", async () => {
    const response = await get({ since: "yesterday" });
    expect(response.status).toBe(400);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});

describe("validators and compression", () => {
  it("answers If-None-Match with 304, carrying ETag, Cache-Control and X-Data-As-Of", async () => {
    const first = await get({ since: GUN + 10 * MINUTE });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]{27}(-gzip|-br)?"$/);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await get({ since: GUN + 10 * MINUTE }, { "if-none-match": ifNoneMatch });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe(IMMUTABLE);
      expect(again.headers.get("x-data-as-of")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(await again.text()).toBe("");
    }
    expect((await get({ since: GUN + 10 * MINUTE }, { "if-none-match": '"something-else"' })).status).toBe(200);
    // Another window is another representation.
    expect((await get({ since: GUN + 20 * MINUTE }, { "if-none-match": etag })).status).toBe(200);
  });

  it("compresses with br or gzip on request, the same bytes each time for a kept window", async () => {
    const params = { since: GUN + 30 * MINUTE };
    const plain = await rawGet(url(params), bearer(token));
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const identityTag = plain.headers.etag as string;

    const br = await rawGet(url(params), { ...bearer(token), "accept-encoding": "br" });
    expect(br.status).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("Accept-Encoding, Origin");
    expect(br.headers.etag).toBe(`${identityTag.slice(0, -1)}-br"`);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 3);

    const brAgain = await rawGet(url(params), { ...bearer(token), "accept-encoding": "gzip;q=0.5, br" });
    expect(brAgain.headers.etag).toBe(br.headers.etag);
    expect(brAgain.body.equals(br.body)).toBe(true);

    const gzip = await rawGet(url(params), { ...bearer(token), "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);

    const body = JSON.parse(plain.body.toString()) as TrackPageJson;
    expect(body.boats.length).toBeGreaterThan(0);
  });
});

describe("windows kept server-side", () => {
  it("answers an immutable window with the same message object each time", async () => {
    const first = await call(GUN + 40 * MINUTE);
    expect(first.boats.length).toBeGreaterThan(0);
    expect(await call(GUN + 40 * MINUTE)).toBe(first);
    // Another window, another message.
    expect(await call(GUN + 40 * MINUTE, GUN + 45 * MINUTE)).not.toBe(first);
  });

  it("shares a window near the cut-off for the 2 s a client may keep it, then reads it again", async () => {
    const since = Date.now() - DELAY_MS - 4 * MINUTE;
    // Ends about a minute before the cut-off.
    const first = await call(since, since + 3 * MINUTE);
    const [second, third] = await Promise.all([call(since, since + 3 * MINUTE), call(since, since + 3 * MINUTE)]);
    expect(second).toBe(first);
    expect(third).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const later = await call(since, since + 3 * MINUTE);
    expect(later).not.toBe(first);
    expect(later).toEqual(first);
  });

  it("cuts a shared window where it was read, and says so in X-Data-As-Of", async () => {
    const since = Date.now() - DELAY_MS - 4 * MINUTE;
    const first = await get({ since });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await get({ since });
    const body = (await again.json()) as TrackPageJson;
    expect(again.headers.get("x-data-as-of")).toBe(first.headers.get("x-data-as-of"));
    expect(body.until).toBe(first.headers.get("x-data-as-of"));
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
  });

  it("shares one read among concurrent misses of one window", async () => {
    const pages = await Promise.all(Array.from({ length: 8 }, () => call(GUN + 15 * MINUTE)));
    for (const page of pages) expect(page).toBe(pages[0]);
  });

  it("still runs the guard and the race's visibility on every request", async () => {
    const params = { since: GUN + 5 * MINUTE };
    const kept = await get(params);
    expect(kept.status).toBe(200);
    const etag = kept.headers.get("etag");

    const noToken = await fetch(url(params));
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toMatchObject({ code: "API_TOKEN_MISSING" });
    const otherClub = await fetch(url(params), { headers: bearer(await tokenFor(api.url, "other")) });
    expect(await otherClub.json()).toMatchObject({ status: 404, code: "RACE_NOT_FOUND" });
    const invalid = await fetch(url(params), { headers: bearer("not-a-token") });
    expect(await invalid.json()).toMatchObject({ status: 401, code: "API_TOKEN_INVALID" });

    await db.pool.query("UPDATE events SET tracking_shared = FALSE WHERE uuid = ?", [IDS.event]);
    try {
      // The race's visibility is re-read at most every 2 s.
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const unshared = await get(params);
      expect(await unshared.json()).toMatchObject({ status: 404, code: "TRACKING_NOT_SHARED" });
      expect((await get(params, { "if-none-match": etag! })).status).toBe(404);
    } finally {
      await db.pool.query("UPDATE events SET tracking_shared = TRUE WHERE uuid = ?", [IDS.event]);
    }
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const shared = await get(params);
    expect(shared.status).toBe(200);
    expect(shared.headers.get("etag")).toBe(etag);
  });

  it("never keeps a failure: a read model that did not answer in time is read again next time", async () => {
    const quickPool = createPool(db.url, { statementTimeoutMs: 300 });
    const quick = await startApi(db, {}, quickPool);
    const params = { since: GUN + 25 * MINUTE };
    const locker = await db.pool.getConnection();
    try {
      await locker.query("LOCK TABLES fixes WRITE");
      const failed = await get(params, {}, quick.url);
      expect(failed.status).toBe(503);
      expect(failed.headers.get("cache-control")).toBe("no-store");
      expect(await failed.json()).toMatchObject({ code: "API_UNAVAILABLE" });
    } finally {
      await locker.query("UNLOCK TABLES");
      locker.release();
    }
    try {
      const answered = await get(params, {}, quick.url);
      expect(answered.status).toBe(200);
      expect(answered.headers.get("cache-control")).toBe(IMMUTABLE);
      expect(((await answered.json()) as TrackPageJson).boats.length).toBeGreaterThan(0);
    } finally {
      await quick.close();
      await quickPool.end();
    }
  });
});
