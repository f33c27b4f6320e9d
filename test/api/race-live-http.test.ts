// The live endpoint as an HTTP resource: validators and 304, compression, the tracking
// rate-limit bucket, a 503 that is never cached, and the privacy floor on every surface.

import { request as httpRequest } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../../src/store/pool.js";
import { bearer, connectCall, connectError, startApi, tokenFor, useApi } from "../support/api.js";
import { grpcClient } from "../support/grpc.js";
import {
  connectLive,
  grpcLiveBytes,
  liveScenario,
  PRIVATE,
  RACE,
  RACE_NOT_LIVE,
  RACE_NO_READING,
  restLive,
} from "../support/race-scenarios.js";

const api = useApi({ scenario: liveScenario, client: "overlay" });

/** The raw bytes and headers of a GET, as sent (fetch would decompress). */
function rawGet(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${api.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("validators", () => {
  it("send a strong ETag; If-None-Match gets 304 with the ETag, Cache-Control and X-Data-As-Of of the 200", async () => {
    for (let attempt = 1; ; attempt++) {
      const first = await restLive(api.url, api.token, RACE);
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[\w-]{27}(-gzip|-br)?"$/);
      const answers = await Promise.all(
        [etag, `W/${etag}`, `"other", ${etag}`].map((tag) => restLive(api.url, api.token, RACE, { "if-none-match": tag })),
      );
      // Within one shared read the body is the same bytes; a new read (every 2 s) is a new body.
      if (answers.some((a) => a.status === 200) && attempt < 5) continue;
      for (const again of answers) {
        expect(again.status).toBe(304);
        expect(again.headers.get("etag")).toBe(etag);
        expect(again.headers.get("cache-control")).toBe("private, max-age=2");
        expect(again.headers.get("x-data-as-of")).toBe(first.headers.get("x-data-as-of"));
        expect(again.headers.get("ratelimit-policy")).toBe('"tracking";q=120;w=60');
        expect(await again.text()).toBe("");
      }
      return;
    }
  });

  it("change with the next shared read, whose dataAsOf is newer", async () => {
    const first = await restLive(api.url, api.token, RACE);
    await sleep(2100);
    const later = await restLive(api.url, api.token, RACE, { "if-none-match": first.headers.get("etag")! });
    expect(later.status).toBe(200);
    expect(later.headers.get("etag")).not.toBe(first.headers.get("etag"));
    expect(Date.parse(later.headers.get("x-data-as-of")!)).toBeGreaterThan(Date.parse(first.headers.get("x-data-as-of")!));
  });
});

describe("compression", () => {
  it.each([
    ["br", brotliDecompressSync],
    ["gzip", gunzipSync],
  ] as const)("sends %s when asked, decompressing to the same JSON", async (encoding, decompress) => {
    for (let attempt = 1; ; attempt++) {
      const [plain, packed] = await Promise.all([
        rawGet(`/api/v1/races/${RACE}/live`, bearer(api.token)),
        rawGet(`/api/v1/races/${RACE}/live`, { ...bearer(api.token), "accept-encoding": encoding }),
      ]);
      if (plain.headers["x-data-as-of"] !== packed.headers["x-data-as-of"] && attempt < 5) continue;
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(packed.status).toBe(200);
      expect(packed.headers["content-encoding"]).toBe(encoding);
      expect(packed.headers.vary).toBe("Accept-Encoding, Origin");
      expect(packed.headers.etag).toBe(`${(plain.headers.etag as string).slice(0, -1)}-${encoding}"`);
      expect(packed.body.length).toBeLessThan(plain.body.length);
      expect(JSON.parse(decompress(packed.body).toString("utf8"))).toEqual(JSON.parse(plain.body.toString("utf8")));
      return;
    }
  });
});

describe("the tracking bucket", () => {
  it("allows 120 calls a minute per client across the tracking endpoints and surfaces, then 429 with Retry-After: 60", async () => {
    const poller = await tokenFor(api.url, "poller");
    let etag: string | null = null;
    for (let i = 1; i <= 120; i++) {
      // Mostly REST, some 304s (they count), some Connect, and one call of another tracking endpoint.
      let response: Response;
      if (i % 10 === 0) response = await connectLive(api.url, poller, RACE);
      else if (i === 55) response = await connectCall(api.url, "racing.v1.TrackService/GetTrackPage", { raceId: RACE }, bearer(poller));
      else response = await restLive(api.url, poller, RACE, etag && i % 3 === 0 ? { "if-none-match": etag } : {});
      etag = response.headers.get("etag") ?? etag;
      expect(response.status, `call ${i}`).not.toBe(429);
      expect(response.headers.get("ratelimit-policy")).toBe('"tracking";q=120;w=60');
      expect(response.headers.get("ratelimit")).toMatch(new RegExp(`^"tracking";r=${120 - i};t=\\d+$`));
    }
    const refused = await restLive(api.url, poller, RACE);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get("ratelimit-policy")).toBe('"tracking";q=120;w=60');
    expect(await refused.json()).toMatchObject({ status: 429, code: "RATE_LIMIT_EXCEEDED" });
    const rpc = await connectLive(api.url, poller, RACE);
    expect(rpc.headers.get("retry-after")).toBe("60");
    expect(await connectError(rpc)).toMatchObject({ code: "resource_exhausted", reason: "RATE_LIMIT_EXCEEDED", retryDelaySeconds: 60 });
    // The general bucket is another budget.
    expect((await fetch(`${api.url}/api/v1/events`, { headers: bearer(await tokenFor(api.url, "overlay")) })).status).toBe(200);
  });
});

describe("a read model that does not answer in time", () => {
  it("answers 503 API_UNAVAILABLE, caches nothing, and the next call is served", async () => {
    const quickPool = createPool(api.db.url, { statementTimeoutMs: 300 });
    const quick = await startApi(api.db, {}, quickPool);
    const locker = await api.db.pool.getConnection();
    try {
      // Races and groups stay readable (visibility passes); the live read waits for the wind.
      await locker.query("LOCK TABLES wind_readings WRITE");
      const answers = await Promise.all([restLive(quick.url, api.token, RACE), restLive(quick.url, api.token, RACE)]);
      for (const response of answers) {
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("30");
        expect(response.headers.get("cache-control")).toBe("no-store");
        expect(response.headers.get("x-data-as-of")).toBeNull();
        expect(await response.json()).toMatchObject({ status: 503, code: "API_UNAVAILABLE" });
      }
      expect(await connectError(await connectLive(quick.url, api.token, RACE))).toMatchObject({
        code: "unavailable",
        reason: "API_UNAVAILABLE",
        retryDelaySeconds: 30,
      });
    } finally {
      await locker.query("UNLOCK TABLES");
      locker.release();
    }
    // Within the 2 s a cached failure would have lasted.
    const recovered = await restLive(quick.url, api.token, RACE);
    expect(recovered.status).toBe(200);
    expect(recovered.headers.get("x-data-as-of")).not.toBeNull();
    await quick.close();
    await quickPool.end();
  });
});

describe("the privacy floor", () => {
  let client: grpc.Client;
  beforeAll(() => {
    client = grpcClient(api.grpcUrl);
  });
  afterAll(() => client.close());

  it("keeps user ids, device ids, phone models and GPS accuracy out of every answer (REST, Connect, gRPC)", async () => {
    const accuracyBytes = Buffer.alloc(8);
    accuracyBytes.writeDoubleLE(PRIVATE.accuracyM);
    const texts = [PRIVATE.userId, PRIVATE.deviceId, PRIVATE.phoneModel, String(PRIVATE.accuracyM)];
    for (const raceId of [RACE, RACE_NOT_LIVE, RACE_NO_READING]) {
      const rest = await restLive(api.url, api.token, raceId);
      const connect = await connectLive(api.url, api.token, raceId);
      const overGrpc = await grpcLiveBytes(client, api.token, raceId);
      expect([rest.status, connect.status]).toEqual([200, 200]);
      const bodies = [Buffer.from(await rest.text()), Buffer.from(await connect.text()), overGrpc];
      // The private fields' owner is in the answers, so the test looks where they would be.
      expect(bodies.every((body) => body.includes("Tenacious"))).toBe(true);
      for (const body of bodies) {
        for (const text of texts) expect(body.includes(text), text).toBe(false);
        expect(body.includes(accuracyBytes)).toBe(false);
      }
    }
  });
});
