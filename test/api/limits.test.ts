// Rate limits of data calls as DESIGN.md reads them: per client, fixed one-minute
// windows, the general bucket at 60/min unless the club's is raised, 304s counted,
// RateLimit headers on every answer, and one budget across instances through Redis.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useFreshDatabase } from "../support/database.js";
import { bearer, connectCall, connectError, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { ensureRedisServer, type RedisServer } from "../support/redis.js";

const db = useFreshDatabase();
let api: Api;
beforeAll(async () => {
  await seedIdentities(db);
  api = await startApi(db);
});
afterAll(() => api?.close());

const call = (target: Api, token: string, headers: Record<string, string> = {}) =>
  fetch(`${target.url}/api/v1/events`, { headers: { ...bearer(token), ...headers } });

describe("the general bucket", () => {
  it("allows 60 calls a minute with RateLimit headers counting down, then answers 429 with Retry-After: 60", async () => {
    const token = await tokenFor(api.url, "overlay");
    for (let i = 1; i <= 60; i++) {
      const response = await call(api, token);
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-policy")).toBe('"general";q=60;w=60');
      expect(response.headers.get("ratelimit")).toMatch(new RegExp(`^"general";r=${60 - i};t=\\d+$`));
    }
    const refused = await call(api, token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get("ratelimit")).toMatch(/^"general";r=0;t=\d+$/);
    expect(await refused.json()).toMatchObject({ status: 429, code: "RATE_LIMIT_EXCEEDED" });

    const rpc = await connectCall(api.url, "racing.v1.EventService/ListEvents", {}, bearer(token));
    expect(rpc.headers.get("retry-after")).toBe("60");
    expect(await connectError(rpc)).toMatchObject({ code: "resource_exhausted", reason: "RATE_LIMIT_EXCEEDED", retryDelaySeconds: 60 });
  });

  it("is per client, never per IP", async () => {
    const other = await call(api, await tokenFor(api.url, "other"));
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit")).toMatch(/^"general";r=59;/);
  });

  it("uses the club's raised limit", async () => {
    const response = await call(api, await tokenFor(api.url, "coHost"));
    expect(response.headers.get("ratelimit-policy")).toBe('"general";q=90;w=60');
    expect(response.headers.get("ratelimit")).toMatch(/^"general";r=89;/);
  });

  it("counts a call the guard let through that then fails, and says so, a refused parameter included (authentication first)", async () => {
    const token = await tokenFor(api.url, "coHost");
    const remaining = (response: Response) => Number(/r=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1]);
    const before = remaining(await call(api, token));
    const notFound = await fetch(`${api.url}/api/v1/events/not-an-event/live`, { headers: bearer(token) });
    expect(notFound.status).toBe(404);
    expect(remaining(notFound)).toBe(before - 1);
    const badParameter = await fetch(`${api.url}/api/v1/events?page=0`, { headers: bearer(token) });
    expect(badParameter.status).toBe(400);
    expect(remaining(badParameter)).toBe(before - 2);
    expect(remaining(await call(api, token))).toBe(before - 3);
  });

  it("counts conditional requests answered 304", async () => {
    const token = await tokenFor(api.url, "other");
    const etag = (await call(api, token)).headers.get("etag")!;
    const before = Number(/r=(\d+)/.exec((await call(api, token)).headers.get("ratelimit")!)![1]);
    const notModified = await call(api, token, { "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(Number(/r=(\d+)/.exec(notModified.headers.get("ratelimit")!)![1])).toBe(before - 1);
  });
});

describe("two instances with REDIS_URL", () => {
  let redis: RedisServer;
  let left: Api;
  let right: Api;
  beforeAll(async () => {
    redis = await ensureRedisServer();
    [left, right] = await Promise.all([startApi(db, { redisUrl: redis.url }), startApi(db, { redisUrl: redis.url })]);
  });
  afterAll(async () => {
    await left?.close();
    await right?.close();
    await redis?.stop();
  });

  it("share one budget: 60 calls split across both, the 61st refused on either", async () => {
    // overlay used up its budget above, but on the in-memory instance: these count in Redis.
    const token = await tokenFor(left.url, "overlay");
    for (let i = 0; i < 60; i++) expect((await call(i % 2 === 0 ? left : right, token)).status).toBe(200);
    expect((await call(left, token)).status).toBe(429);
    expect((await call(right, token)).status).toBe(429);
  });
});
