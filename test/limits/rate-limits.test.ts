import { randomUUID } from "node:crypto";
import { createServer, connect as tcpConnect, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rateLimitHeaders, type Bucket, type LimitResult } from "../../src/limits/policy.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { within } from "../support/load.js";
import { ensureRedisServer, type RedisServer } from "../support/redis.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function consumeTimes(limits: RateLimits, times: number, bucket: Bucket, key: string, limit: number): Promise<LimitResult[]> {
  const results: LimitResult[] = [];
  for (let i = 0; i < times; i++) results.push(await limits.consume(bucket, key, limit));
  return results;
}

describe("rate limits in memory", () => {
  let limits: RateLimits;
  beforeAll(async () => {
    limits = await RateLimits.create({});
  });
  afterAll(() => limits.close());

  it("allows `limit` calls with remaining counting down, then refuses with remaining 0", async () => {
    const key = randomUUID();
    const results = await consumeTimes(limits, 7, "general", key, 5);
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    for (const result of results) {
      expect(result).toMatchObject({ bucket: "general", limit: 5 });
      expect(result.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(result.resetSeconds).toBeLessThanOrEqual(60);
    }
    expect(results[0]?.resetSeconds).toBe(60);
  });

  it("counts each key and each bucket on its own", async () => {
    const client = randomUUID();
    const other = randomUUID();
    await consumeTimes(limits, 2, "tracking", client, 2);
    expect(await limits.consume("tracking", client, 2)).toMatchObject({ allowed: false, remaining: 0 });
    // Same key, other buckets: untouched.
    for (const bucket of ["general", "token-client", "token-ip"] as const) {
      expect(await limits.consume(bucket, client, 2)).toMatchObject({ bucket, allowed: true, remaining: 1 });
    }
    // Same bucket, other key: untouched.
    expect(await limits.consume("tracking", other, 2)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("applies a changed limit to the same count (a club's limit raised mid-window)", async () => {
    const key = randomUUID();
    await consumeTimes(limits, 3, "general", key, 3);
    expect(await limits.consume("general", key, 3)).toMatchObject({ allowed: false, remaining: 0, limit: 3 });
    // Four calls counted so far; the fifth fits in a raised limit of 10.
    expect(await limits.consume("general", key, 10)).toMatchObject({ allowed: true, remaining: 5, limit: 10 });
    // And a lowered one refuses at once.
    expect(await limits.consume("general", key, 4)).toMatchObject({ allowed: false, remaining: 0, limit: 4 });
  });

  it("refuses a limit that is not a positive integer", async () => {
    await expect(limits.consume("general", randomUUID(), 0)).rejects.toThrow(RangeError);
    await expect(limits.consume("general", randomUUID(), 1.5)).rejects.toThrow(RangeError);
  });

  it("writes the IETF draft headers in structured-field form", async () => {
    expect(rateLimitHeaders({ bucket: "tracking", limit: 120, remaining: 87, resetSeconds: 42, allowed: true })).toEqual({
      "ratelimit-policy": '"tracking";q=120;w=60',
      ratelimit: '"tracking";r=87;t=42',
    });
    const first = await limits.consume("general", randomUUID(), 60);
    expect(rateLimitHeaders(first)).toEqual({
      "ratelimit-policy": '"general";q=60;w=60',
      ratelimit: '"general";r=59;t=60',
    });
    const refused: LimitResult = { bucket: "token-ip", limit: 20, remaining: 0, resetSeconds: 1, allowed: false };
    expect(rateLimitHeaders(refused)).toEqual({
      "ratelimit-policy": '"token-ip";q=20;w=60',
      ratelimit: '"token-ip";r=0;t=1',
    });
  });

  it("starts counting again when the window ends", async () => {
    const short = await RateLimits.create({ windowSeconds: 1 });
    const key = randomUUID();
    const results = await consumeTimes(short, 3, "tracking", key, 2);
    expect(results.map((r) => r.allowed)).toEqual([true, true, false]);
    expect(results[2]?.resetSeconds).toBe(1);
    await sleep(1100);
    expect(await short.consume("tracking", key, 2)).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 1 });
    await short.close();
  });
});

describe("rate limits in Redis", () => {
  let redis: RedisServer;
  const opened: RateLimits[] = [];
  async function open(options: Parameters<typeof RateLimits.create>[0] = {}): Promise<RateLimits> {
    const limits = await RateLimits.create({ redisUrl: redis.url, ...options });
    opened.push(limits);
    return limits;
  }

  beforeAll(async () => {
    redis = await ensureRedisServer();
  });
  afterAll(async () => {
    await Promise.all(opened.map((limits) => limits.close()));
    await redis?.stop();
  });

  it("shares one budget between two instances", async () => {
    const errors: unknown[] = [];
    const a = await open({ onRedisError: (error) => errors.push(error) });
    const b = await open({ onRedisError: (error) => errors.push(error) });
    const key = randomUUID();
    const results: LimitResult[] = [];
    for (let i = 0; i < 10; i++) results.push(await (i % 2 === 0 ? a : b).consume("tracking", key, 10));
    expect(results.map((r) => r.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(results.every((r) => r.allowed)).toBe(true);
    // The 11th call is refused whichever instance receives it.
    expect(await a.consume("tracking", key, 10)).toMatchObject({ allowed: false, remaining: 0 });
    expect(await b.consume("tracking", key, 10)).toMatchObject({ allowed: false, remaining: 0 });
    expect(errors).toEqual([]);
  });

  it("sends a turn's counts in one write, and the next turn's without waiting for the answer", async () => {
    const relay = await startRelay(redis.port);
    try {
      // A timeout longer than the test waits: the held answers must not turn into memory counts.
      const a = await open({ redisUrl: relay.url, redisTimeoutMs: 30_000 });
      const key = randomUUID();
      await a.consume("general", key, 100); // loads the script
      relay.holdAnswers();
      const writesBefore = relay.writes.length;
      const first = [1, 2, 3, 4, 5].map(() => a.consume("general", key, 100));
      await within(5000, async () => expect(relay.writes.length).toBeGreaterThan(writesBefore), 5);
      const later = new Promise<LimitResult>((resolve) => setTimeout(() => resolve(a.consume("general", key, 100)), 50));
      // Redis has not answered the first write, yet the next turn's count reaches it.
      await within(5000, async () => expect(relay.writes.length).toBeGreaterThan(writesBefore + 1), 5);
      expect(relay.writes.slice(writesBefore).map(countCalls)).toEqual([5, 1]);
      relay.releaseAnswers();
      const results = await Promise.all([...first, later]);
      expect(results.map((r) => r.remaining)).toEqual([98, 97, 96, 95, 94, 93]);
    } finally {
      await relay.close();
    }
  });

  it("keeps buckets and key prefixes apart", async () => {
    const a = await open();
    const b = await open({ keyPrefix: `other-${randomUUID()}` });
    const key = randomUUID();
    await consumeTimes(a, 2, "token-client", key, 2);
    expect(await a.consume("token-client", key, 2)).toMatchObject({ allowed: false });
    expect(await a.consume("token-ip", key, 2)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await b.consume("token-client", key, 2)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("starts counting again when the window ends", async () => {
    const a = await open({ windowSeconds: 1 });
    const b = await open({ windowSeconds: 1 });
    const key = randomUUID();
    expect((await consumeTimes(a, 2, "general", key, 2)).map((r) => r.allowed)).toEqual([true, true]);
    expect(await b.consume("general", key, 2)).toMatchObject({ allowed: false, resetSeconds: 1 });
    await sleep(1100);
    expect(await b.consume("general", key, 2)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await a.consume("general", key, 2)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("counts in memory when Redis does not answer in time", async () => {
    const errors: unknown[] = [];
    const a = await open({ redisTimeoutMs: 200, onRedisError: (error) => errors.push(error) });
    const b = await open();
    const key = randomUUID();
    expect(await a.consume("tracking", key, 2)).toMatchObject({ allowed: true, remaining: 1 });
    await redis.pause();
    try {
      const started = Date.now();
      const slow = await consumeTimes(a, 3, "tracking", key, 2);
      // Memory has not seen the call counted in Redis before the pause.
      expect(slow.map((r) => r.allowed)).toEqual([true, true, false]);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(errors.map((error) => (error as Error).message)).toContain("Command timed out");
    } finally {
      redis.resume();
    }
    // Resumed: the connection never dropped, so counting is shared again at once.
    const fresh = randomUUID();
    expect(await a.consume("tracking", fresh, 2)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await b.consume("tracking", fresh, 2)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("counts per instance in memory while Redis is down, and shares again once it is back", async () => {
    const errorsA: unknown[] = [];
    const a = await open({ onRedisError: (error) => errorsA.push(error) });
    const b = await open();
    const key = randomUUID();
    expect(await a.consume("general", key, 3)).toMatchObject({ allowed: true, remaining: 2 });

    let c: RateLimits | undefined;
    await redis.stop();
    try {
      // Still answers (never throws), still limits: each instance counts on its own.
      const down = await consumeTimes(a, 4, "general", key, 3);
      expect(down.map((r) => r.allowed)).toEqual([true, true, true, false]);
      expect(down.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
      expect(errorsA.length).toBeGreaterThan(0);
      expect(await b.consume("general", key, 3)).toMatchObject({ allowed: true, remaining: 2 });

      // An instance started while Redis is down starts anyway.
      const errorsC: unknown[] = [];
      c = await open({ onRedisError: (error) => errorsC.push(error) });
      expect(await c.consume("general", key, 3)).toMatchObject({ allowed: true, remaining: 2 });
      expect(errorsC.length).toBeGreaterThan(0);
    } finally {
      await redis.start();
    }

    // Once every instance has reconnected, a call on one is seen by the others. A fresh
    // key per probe: remaining 0 after three calls is only possible when all three counted in Redis.
    if (!c) throw new Error("the third instance was not created");
    const third = c;
    const deadline = Date.now() + 15_000;
    let shared = false;
    while (!shared && Date.now() < deadline) {
      const probe = randomUUID();
      await a.consume("general", probe, 3);
      await b.consume("general", probe, 3);
      shared = (await third.consume("general", probe, 3)).remaining === 0;
      if (!shared) await sleep(200);
    }
    expect(shared).toBe(true);
    const after = randomUUID();
    await consumeTimes(a, 2, "general", after, 3);
    expect(await b.consume("general", after, 3)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await third.consume("general", after, 3)).toMatchObject({ allowed: false, remaining: 0 });
  });
});

/** The number of script calls in one write of the client (each is an EVALSHA). */
const countCalls = (write: string): number => write.split(/evalsha/i).length - 1;

/** A TCP relay to Redis that records the client's writes and can hold Redis's answers back. */
async function startRelay(redisPort: number) {
  const writes: string[] = [];
  const sockets: Socket[] = [];
  let held: Buffer[] | null = null;
  let toClient: Socket | null = null;
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(redisPort, "127.0.0.1");
    sockets.push(client, upstream);
    toClient = client;
    client.on("data", (chunk) => {
      writes.push(chunk.toString("latin1"));
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => (held ? held.push(chunk) : client.write(chunk)));
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    writes,
    holdAnswers: () => {
      held = [];
    },
    releaseAnswers: () => {
      for (const chunk of held ?? []) toClient?.write(chunk);
      held = null;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
