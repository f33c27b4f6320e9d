// Rate limits of data calls as DESIGN.md reads them: per client, fixed one-minute
// windows, the general bucket at 60/min unless the club's is raised, 304s counted,
// RateLimit headers on every answer, and one budget across instances through Redis.
// No rule here needs a socket: one instance is called in-process (support/in-process.ts),
// the two sharing Redis over their listeners.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, connectError, startApi, tokenFor, type Api } from "../support/api.js";
import { useInProcessApi } from "../support/in-process.js";
import { ensureRedisServer, type RedisServer } from "../support/redis.js";

const api = useInProcessApi();

/** Something that answers a REST path: the in-process app or a listening instance. */
type Target = { fetch(path: string, init: { headers: Record<string, string> }): Promise<Response> };
const listening = (target: Api): Target => ({ fetch: (path, init) => fetch(`${target.url}${path}`, init) });

const call = (target: Target, token: string, headers: Record<string, string> = {}) =>
  target.fetch("/api/v1/events", { headers: { ...bearer(token), ...headers } });

describe("the general bucket", () => {
  it("allows 60 calls a minute with RateLimit headers counting down, then answers 429 with Retry-After: 60", async () => {
    const token = await api.tokenFor("overlay");
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

    const rpc = await api.fetch("/racing.v1.EventService/ListEvents", {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(token) },
      body: "{}",
    });
    expect(rpc.headers.get("retry-after")).toBe("60");
    expect(await connectError(rpc)).toMatchObject({ code: "resource_exhausted", reason: "RATE_LIMIT_EXCEEDED", retryDelaySeconds: 60 });
  });

  it("is per client, never per IP", async () => {
    const other = await call(api, await api.tokenFor("other"));
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit")).toMatch(/^"general";r=59;/);
  });

  it("uses the club's raised limit", async () => {
    const response = await call(api, await api.tokenFor("coHost"));
    expect(response.headers.get("ratelimit-policy")).toBe('"general";q=90;w=60');
    expect(response.headers.get("ratelimit")).toMatch(/^"general";r=89;/);
  });

  it("counts a call the guard let through that then fails, and says so, a refused parameter included (authentication first)", async () => {
    const token = await api.tokenFor("coHost");
    const remaining = (response: Response) => Number(/r=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1]);
    const before = remaining(await call(api, token));
    const notFound = await api.fetch("/api/v1/events/not-an-event/live", { headers: bearer(token) });
    expect(notFound.status).toBe(404);
    expect(remaining(notFound)).toBe(before - 1);
    const badParameter = await api.fetch("/api/v1/events?page=0", { headers: bearer(token) });
    expect(badParameter.status).toBe(400);
    expect(remaining(badParameter)).toBe(before - 2);
    expect(remaining(await call(api, token))).toBe(before - 3);
  });

  it("counts conditional requests answered 304", async () => {
    const token = await api.tokenFor("other");
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
    [left, right] = await Promise.all([startApi(api.db, { redisUrl: redis.url }), startApi(api.db, { redisUrl: redis.url })]);
  });
  afterAll(async () => {
    await left?.close();
    await right?.close();
    await redis?.stop();
  });

  it("share one budget: 60 calls split across both, the 61st refused on either", async () => {
    // overlay used up its budget above, but on the in-memory instance: these count in Redis.
    const token = await tokenFor(left.url, "overlay");
    const [one, two] = [listening(left), listening(right)];
    for (let i = 0; i < 60; i++) expect((await call(i % 2 === 0 ? one : two, token)).status).toBe(200);
    expect((await call(one, token)).status).toBe(429);
    expect((await call(two, token)).status).toBe(429);
  });
});
