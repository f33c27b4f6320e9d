// Fault drills under load: a steady stream of concurrent requests runs while the
// database stops and comes back, while a statement waits past its time limit, while
// Redis stops and hangs under two instances, and while the server process gets SIGTERM.
// Every answer is recorded; the assertions say what each phase may and must answer.
// A private MariaDB and a private Redis of this file's own, so stopping them disturbs
// no other test file.

import { request as httpRequest } from "node:http";
import { connect as tcpConnect } from "node:net";
import mysql, { type RowDataPacket } from "mysql2/promise";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../src/store/migrate.js";
import { createPool, type Pool } from "../../src/store/pool.js";
import { bearer, CLUB, requestToken, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { start as startCli } from "../support/cli.js";
import { startLoad, statusCounts, within, sleep, type LoadRequest, type Sample } from "../support/load.js";
import { startMariaDbInstance, type MariaDbInstance } from "../support/mariadb-instance.js";
import { GROUP_A, GUN_A, iso, liveScenario, MINUTE, NOW, RACE } from "../support/race-scenarios.js";
import { ensureRedisServer, type RedisServer } from "../support/redis.js";
import { openSse } from "../support/sse.js";
import { PRODUCTION_REFRESH, TEST_BASE_URL } from "../support/runtime.js";

let instance: MariaDbInstance;
let admin: Pool;
const pools: Pool[] = [];
const apis: Api[] = [];
let token: string;

beforeAll(async () => {
  instance = await startMariaDbInstance();
  admin = createPool(instance.url, { statementTimeoutMs: 0 });
  await migrate(admin);
  const scenario = liveScenario();
  // These drills poll hard: limits high enough that no answer is a 429 (they still count).
  const club = scenario.clubs.find((c) => c.id === CLUB)!;
  club.rateLimitPerMinute = 1_000_000;
  club.trackingRateLimitPerMinute = 1_000_000;
  for (const clientId of ["perInstanceProbe", "sharedProbe"])
    scenario.clients.push({ clientId, clientSecret: `${clientId}-secret`, clubId: CLUB, scopes: ["events:read"] });
  await seedIdentities({ url: instance.url, pool: admin }, scenario);
}, 120_000);

afterEach(async () => {
  await instance.start(); // a no-op unless a drill left the database stopped
});

afterAll(async () => {
  for (const api of apis) await api.close();
  await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
  await admin?.end();
  await instance?.destroy();
});

/** An API instance on its own serving pool (the defaults of `race-api serve` unless given). */
async function api(options: { statementTimeoutMs?: number; redisUrl?: string } = {}): Promise<Api> {
  const pool = createPool(instance.url, options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs });
  pools.push(pool);
  const started = await startApi(
    { url: instance.url, pool },
    { ...PRODUCTION_REFRESH, ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}) },
    pool,
  );
  apis.push(started);
  token ??= await tokenFor(started.url, "overlay");
  return started;
}

// A settled track window (kept in memory once read) and the near-now one (read every time).
const SETTLED_SINCE = iso(GUN_A);
const NEAR_NOW_SINCE = iso(NOW - 5 * MINUTE);

/** What an overlay polls: the live race, its track (settled and near-now), insights and the events list. */
function overlayRequests(target: Api, names = ["live", "trackNearNow", "trackSettled", "insights", "events"]): LoadRequest[] {
  const paths: Record<string, string> = {
    live: `/api/v1/races/${RACE}/live`,
    trackNearNow: `/api/v1/races/${RACE}/track?startGroupId=${GROUP_A}&since=${NEAR_NOW_SINCE}`,
    trackSettled: `/api/v1/races/${RACE}/track?startGroupId=${GROUP_A}&since=${SETTLED_SINCE}`,
    insights: `/api/v1/races/${RACE}/live/insights`,
    events: "/api/v1/events",
  };
  return names.map((name) => ({ name, url: `${target.url}${paths[name]}`, headers: bearer(token) }));
}

const dataAsOfOf = (sample: Sample) => Date.parse((JSON.parse(sample.body) as { dataAsOf: string }).dataAsOf);
const between = (samples: Sample[], from: number, to: number) => samples.filter((s) => s.startedAt >= from && s.endedAt <= to);
const remaining = (response: Response) => Number(/;r=(\d+);/.exec(response.headers.get("ratelimit") ?? "")?.[1]);

/** A 503 as the spec has it: problem+json API_UNAVAILABLE, Retry-After: 30, never cached. */
function expectUnavailable(sample: Sample): void {
  const where = `${sample.name} at ${sample.startedAt}`;
  expect(sample.status, where).toBe(503);
  expect(sample.headers!.get("retry-after"), where).toBe("30");
  expect(sample.headers!.get("content-type"), where).toBe("application/problem+json");
  expect(sample.headers!.get("cache-control"), where).toBe("no-store");
  expect(sample.headers!.get("etag"), where).toBeNull();
  expect(JSON.parse(sample.body), where).toMatchObject({
    type: `${TEST_BASE_URL}/docs/errors#API_UNAVAILABLE`,
    status: 503,
    code: "API_UNAVAILABLE",
  });
}

describe("the database stops mid-load", () => {
  it("answers 503 with Retry-After: 30 while it is gone (never a 500, never a dropped connection), caches none of it, and recovers within seconds of its return", async () => {
    const target = await api();
    const load = startLoad(overlayRequests(target), { workers: 15 });
    const names = ["live", "trackNearNow", "trackSettled", "insights", "events"];
    // Every endpoint has answered before the stop (on a busy machine the first answers take a while).
    const answered = () => new Set(load.samples.filter((s) => s.status === 200).map((s) => s.name));
    await within(30_000, async () => expect([...answered()].sort()).toEqual([...names].sort()));
    const stopBegan = Date.now();
    await instance.stop();
    const stoppedAt = Date.now();
    await sleep(2000);
    // The token endpoint says so too, in its RFC 6749 form.
    const tokenDown = await requestToken(target.url, "overlay");
    expect(tokenDown.status).toBe(503);
    expect(tokenDown.headers.get("retry-after")).toBe("30");
    expect(await tokenDown.json()).toEqual({ error: "temporarily_unavailable", code: "API_UNAVAILABLE" });
    await sleep(6000);
    const restartBegan = Date.now();
    await instance.start();
    const restartedAt = Date.now();
    await within(15_000, async () => {
      const back = new Set(load.samples.filter((s) => s.startedAt >= restartedAt && s.status === 200).map((s) => s.name));
      expect([...back].sort()).toEqual([...names].sort());
    });
    await sleep(restartedAt + 7000 - Date.now());
    const samples = await load.stop();

    // Only answers, and only 200 or 503: no 500, no refused or reset connection, no hang.
    expect(samples.filter((s) => s.status === null)).toEqual([]);
    expect(Object.keys(statusCounts(samples)).sort()).toEqual(["200", "503"]);
    for (const sample of samples.filter((s) => s.status === 503)) expectUnavailable(sample);
    // A 503 comes at once or within the statement limit (5 s) and the client's margin (1 s).
    for (const sample of samples) expect(sample.endedAt - sample.startedAt, `${sample.name} at ${sample.startedAt}`).toBeLessThan(7000);

    // Before: everything answered.
    const before = samples.filter((s) => s.endedAt < stopBegan);
    expect(statusCounts(before)).toEqual({ 200: before.length });
    expect(new Set(before.map((s) => s.name)).size).toBe(names.length);
    // During: once the caches that may still answer are past their age (race 2 s, client
    // state 5 s), every answer is a 503.
    const during = between(samples, stoppedAt + 5500, restartBegan);
    expect(during.length).toBeGreaterThan(20);
    expect(statusCounts(during)).toEqual({ 503: during.length });
    // After: each endpoint answers again within seconds, and keeps answering.
    for (const name of names) {
      const firstOk = samples.find((s) => s.name === name && s.startedAt >= restartedAt && s.status === 200)!;
      expect(firstOk.endedAt - restartedAt, name).toBeLessThan(5000);
    }
    const settled = samples.filter((s) => s.startedAt >= restartedAt + 5000);
    expect(settled.length).toBeGreaterThan(20);
    expect(statusCounts(settled)).toEqual({ 200: settled.length });
    // Nothing from before the outage, and no failure, was kept: every live answer after the
    // restart comes from a read made after it.
    const liveAfter = samples.filter((s) => s.name === "live" && s.status === 200 && s.endedAt >= restartBegan);
    expect(liveAfter.length).toBeGreaterThan(5);
    for (const sample of liveAfter) expect(dataAsOfOf(sample)).toBeGreaterThanOrEqual(restartBegan);
  }, 90_000);
});

describe("a statement past the time limit, under load", () => {
  it("answers 503 within the limit while a lock holds the fixes, serves kept windows meanwhile, and reads afresh once it is released", async () => {
    const target = await api({ statementTimeoutMs: 300 });
    // Read the settled window once, so it is kept.
    expect((await fetch(overlayRequests(target, ["trackSettled"])[0]!.url, { headers: bearer(token) })).status).toBe(200);
    const load = startLoad(overlayRequests(target, ["live", "trackNearNow", "trackSettled"]), { workers: 12 });
    await sleep(1000);
    const locker = await mysql.createConnection({ uri: instance.url });
    let lockedAt = 0;
    let unlockBegan = 0;
    let unlockedAt = 0;
    try {
      await locker.query("LOCK TABLES fixes WRITE");
      lockedAt = Date.now();
      await sleep(5000);
    } finally {
      unlockBegan = Date.now(); // a statement waiting for the lock may complete before UNLOCK's answer reaches us
      await locker.query("UNLOCK TABLES");
      unlockedAt = Date.now();
      await locker.end();
    }
    await sleep(3000);
    const samples = await load.stop();

    expect(samples.filter((s) => s.status === null)).toEqual([]);
    expect(Object.keys(statusCounts(samples)).sort()).toEqual(["200", "503"]);
    for (const sample of samples.filter((s) => s.status === 503)) expectUnavailable(sample);
    // No request waits for the lock: 300 ms on the server, 1.3 s in the client at most.
    for (const sample of samples) expect(sample.endedAt - sample.startedAt, `${sample.name} at ${sample.startedAt}`).toBeLessThan(3000);
    // While the lock holds (past the live read's 2 s), the reads that need the fixes fail.
    const locked = between(samples, lockedAt + 2500, unlockBegan).filter((s) => s.name !== "trackSettled");
    expect(locked.length).toBeGreaterThan(10);
    expect(statusCounts(locked)).toEqual({ 503: locked.length });
    // A settled window is served from memory: the lock never reaches it.
    const settled = samples.filter((s) => s.name === "trackSettled");
    expect(statusCounts(settled)).toEqual({ 200: settled.length });
    // Released: answers again at once, from a new read (the failures were not kept).
    const after = samples.filter((s) => s.startedAt >= unlockedAt + 1000);
    expect(after.length).toBeGreaterThan(10);
    expect(statusCounts(after)).toEqual({ 200: after.length });
    for (const sample of samples.filter((s) => s.name === "live" && s.status === 200 && s.endedAt > unlockedAt)) {
      expect(dataAsOfOf(sample)).toBeGreaterThanOrEqual(unlockedAt - 1000);
    }
  });
});

describe("Redis stops under two instances", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await ensureRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("never fails a call: each instance counts in its own memory while Redis is gone or hangs, and the shared budget resumes when it is back", async () => {
    const [left, right] = await Promise.all([api({ redisUrl: redis.url }), api({ redisUrl: redis.url })]);
    const events = (target: Api, probe: string) => fetch(`${target.url}/api/v1/events`, { headers: bearer(probe) });
    const [perInstanceProbe, sharedProbe] = await Promise.all([tokenFor(left.url, "perInstanceProbe"), tokenFor(right.url, "sharedProbe")]);
    /** Calls alternating between the instances count down one budget. */
    const expectShared = async () => {
      const counts: number[] = [];
      for (const target of [left, right, left, right]) {
        const response = await events(target, sharedProbe);
        expect(response.status).toBe(200);
        counts.push(remaining(response));
      }
      expect(counts).toEqual([0, 1, 2, 3].map((i) => counts[0]! - i));
    };
    await expectShared();

    const load = startLoad([...overlayRequests(left, ["live", "events"]), ...overlayRequests(right, ["live", "events"])], { workers: 8 });
    await sleep(1000);

    // Redis gone (connections refused): counted in each instance's memory, from zero.
    await redis.stop();
    await sleep(500);
    const perInstance = [];
    for (const target of [left, left, right, right]) {
      const response = await events(target, perInstanceProbe);
      expect(response.status).toBe(200);
      perInstance.push(remaining(response));
    }
    const limit = 1_000_000;
    expect(perInstance).toEqual([limit - 1, limit - 2, limit - 1, limit - 2]);
    await sleep(1500);

    // Back (empty: nothing is persisted): both instances reconnect and share one budget again.
    await redis.start();
    await within(10_000, expectShared, 300);

    // Redis hangs (SIGSTOP): each count is cut at the 500 ms command timeout, then counts in memory.
    await redis.pause();
    const pausedAt = Date.now();
    await sleep(3500);
    redis.resume();
    const resumedAt = Date.now();
    await within(10_000, expectShared, 300);
    const samples = await load.stop();

    expect(statusCounts(samples)).toEqual({ 200: samples.length });
    for (const sample of samples) {
      expect(sample.headers!.get("ratelimit-policy"), sample.name).toMatch(/^"(tracking|general)";q=1000000;w=60$/);
      expect(sample.headers!.get("ratelimit"), sample.name).toMatch(/^"(tracking|general)";r=\d+;t=\d+$/);
      expect(sample.endedAt - sample.startedAt, `${sample.name} at ${sample.startedAt}`).toBeLessThan(3000);
    }
    // No call waited for Redis to come back: every one begun in the hang's first second was answered during it.
    const begunEarlyInHang = samples.filter((s) => s.startedAt >= pausedAt && s.startedAt < pausedAt + 1000);
    expect(begunEarlyInHang.length).toBeGreaterThan(0);
    for (const sample of begunEarlyInHang) expect(sample.endedAt, `${sample.name} at ${sample.startedAt}`).toBeLessThan(resumedAt);
  }, 60_000);
});

describe("SIGTERM during load", () => {
  it("lets in-flight requests finish with 200, takes no new connection, ends SSE streams at once, and exits 0", async () => {
    const server = startCli(["serve"], {
      DATABASE_URL: instance.url,
      PORT: "0",
      GRPC_PORT: "0",
      METRICS_PORT: "0",
      LOG_LEVEL: "info",
      DATABASE_STATEMENT_TIMEOUT_MS: "30000",
      DATABASE_POOL_SIZE: "20",
    });
    try {
      const [, httpUrl] = await server.waitFor(/"httpUrl":"(http:\/\/[^"]+)"/);
      const [, grpcUrl] = await server.waitFor(/"grpcUrl":"(http:\/\/[^"]+)"/);
      const own = (await (await requestToken(httpUrl!, "overlay")).json()) as { access_token: string };
      const headers = bearer(own.access_token);
      const stream = await openSse(`${httpUrl}/api/v1/races/${RACE}/live/stream`, headers);
      expect(stream.response.status).toBe(200);
      expect((await stream.nextEvent()).event).toBe("live");
      const settledUrl = `${httpUrl}/api/v1/races/${RACE}/track?startGroupId=${GROUP_A}&since=${SETTLED_SINCE}`;
      expect((await fetch(settledUrl, { headers })).status).toBe(200);

      // Hold the requests in flight: they wait for the fixes table (the limit is 30 s here).
      const locker = await mysql.createConnection({ uri: instance.url });
      let released = false;
      try {
        await locker.query("LOCK TABLES fixes WRITE");
        await sleep(2100); // past the live read the stream made before the lock
        const inFlight = Array.from({ length: 16 }, (_, i) => {
          const since = iso(NOW - (5 + i) * MINUTE); // each its own near-now window, its own read
          const url =
            i % 4 === 0
              ? `${httpUrl}/api/v1/races/${RACE}/live`
              : `${httpUrl}/api/v1/races/${RACE}/track?startGroupId=${GROUP_A}&since=${since}`;
          return fetch(url, { headers }).then(
            async (response) => ({ status: response.status, body: await response.text(), endedAt: Date.now() }),
            (error: unknown) => ({ status: 0, body: String((error as { cause?: unknown }).cause ?? error), endedAt: Date.now() }),
          );
        });
        await within(
          10_000,
          async () => {
            const [rows] = await locker.query<RowDataPacket[]>(
              "SELECT COUNT(*) AS waiting FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for table metadata lock'",
            );
            // Every request is in the server before the signal: the 12 track windows' reads and the one live read the
            // other four share, each on a connection of the pool of 20. A request the server has not read yet is not
            // in flight (Node closes its idle connection), so the test must not signal before all of them are.
            expect(Number(rows[0]!.waiting)).toBeGreaterThanOrEqual(13);
          },
          50,
        );
        await sleep(300); // the live requests that join the one live read

        const signalledAt = Date.now();
        const exited = server.stop("SIGTERM");
        await server.waitFor(/shutting down/, 5000);

        // The stream ends cleanly and at once: it does not hold the shutdown.
        await Promise.race([
          stream.ended,
          sleep(3000).then(() => Promise.reject(new Error("the SSE stream was still open 3 s after SIGTERM"))),
        ]);
        // New connections are refused on both listeners, while the old requests still wait.
        await within(
          3000,
          async () => {
            expect(await connectOutcome(httpUrl!)).toBe("ECONNREFUSED");
            expect(await connectOutcome(grpcUrl!)).toBe("ECONNREFUSED");
          },
          50,
        );
        expect(await httpOutcome(`${httpUrl}/healthz`)).toBe("ECONNREFUSED");
        await sleep(500);
        expect(server.process.exitCode).toBeNull();

        // A request may finish before UNLOCK's own answer reaches us: it is held until UNLOCK is sent.
        const releaseBegan = Date.now();
        await locker.query("UNLOCK TABLES");
        released = true;
        const releasedAt = Date.now();
        const finished = await Promise.all(inFlight);
        for (const result of finished) {
          expect(result.status, result.body).toBe(200);
          expect(result.endedAt).toBeGreaterThanOrEqual(releaseBegan);
        }
        // Then it exits at once: no connection that carried one of them holds it open.
        const code = await Promise.race([exited, sleep(10_000).then(() => "still running 10 s after its last request")]);
        expect(code).toBe(0);
        expect(Date.now() - releasedAt).toBeLessThan(5000);
        expect(releasedAt - signalledAt).toBeGreaterThan(500);
      } finally {
        if (!released) await locker.query("UNLOCK TABLES").catch(() => {});
        await locker.end();
      }
    } finally {
      if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill("SIGKILL");
    }
  }, 60_000);
});

/** A fresh TCP connection to the URL's port: "connected", or the error code. */
function connectOutcome(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: hostname, port: Number(port) });
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** A GET on a connection of its own (no keep-alive pool): the status, or the error code. */
function httpOutcome(url: string): Promise<string> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent: false }, (response) => {
      response.resume();
      resolve(String(response.statusCode));
    });
    req.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}
