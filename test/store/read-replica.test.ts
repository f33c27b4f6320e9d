// Read replicas (DATABASE_READ_URL) on a real MariaDB primary and replica that this file
// starts: a second mariadbd with its own data directory, replicating from the first by
// GTID. Where each query went is measured by the servers themselves: Com_select, and
// the rows each table gave up (information_schema.TABLE_STATISTICS, userstat on).
// The API reads the replica as a user that may only SELECT there, so a write sent to
// it would fail the call.

import mysql, { type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importScenario } from "../../src/scenario/import.js";
import type { Scenario } from "../../src/domain/scenario.js";
import { RACE_MAX_AGE_MS } from "../../src/reads/race-access.js";
import { migrate } from "../../src/store/migrate.js";
import { createPool, type Pool } from "../../src/store/pool.js";
import { bearer, CLUB, identityScenario, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { startReplicatedPair, type MariaDbInstance, type ReplicatedPair } from "../support/mariadb-instance.js";
import { PRODUCTION_REFRESH } from "../support/runtime.js";
import { entry, EVENT, GROUP_A, GUN_A, iso, liveScenario, RACE, restLive, sharedEvent, track, uuid } from "../support/race-scenarios.js";

const SCHEMA = "race_api_test";
/**
 * The lag allowed here. An idle replica on this machine reads 250-350 ms (a beat every
 * 250 ms, then replication); but the machine is shared with other test files, and a
 * commit's fsync stalled there sometimes reads just over the default 1 s, which would
 * send a read meant to prove the replica's use to the primary. The rule is the same.
 */
const MAX_LAG_MS = 2000;

let pair: ReplicatedPair;
let pool: Pool;
let api: Api | undefined;
let token: string;
const stats: { primary?: mysql.Connection; replica?: mysql.Connection } = {};

beforeAll(async () => {
  pair = await startReplicatedPair();
  pool = createPool(pair.primary.url, { connectionLimit: 10 });
  await migrate(pool);
  const scenario = liveScenario();
  // Polled many times a second in the drills: this file measures where reads go, not the limits.
  for (const club of scenario.clubs) Object.assign(club, { rateLimitPerMinute: 100_000, trackingRateLimitPerMinute: 100_000 });
  await seedIdentities({ url: pair.primary.url, pool }, scenario);
  // The guard's caches at their production age: a round of reads counted below must not
  // see them re-read (on the primary) half-way.
  api = await startApi(
    { url: pair.primary.url, pool },
    { databaseReadUrl: pair.readerUrl, databaseReadMaxLagMs: MAX_LAG_MS, ...PRODUCTION_REFRESH },
  );
  token = await tokenFor(api.url, "overlay"); // creates the first signing key
  await until(() => api!.runtime.reads.replicaState()?.inUse === true, 15_000, "the replica in use");
  await pair.caughtUp();
  for (const server of [pair.primary, pair.replica]) {
    await server.admin("SET GLOBAL userstat = 1");
    await server.admin("FLUSH LOCAL TABLE_STATISTICS"); // LOCAL: not through the binary log to the replica
  }
  stats.primary = await mysql.createConnection({ uri: pair.primary.url });
  stats.replica = await mysql.createConnection({ uri: pair.replica.url });
}, 180_000);

afterAll(async () => {
  await api?.close();
  await stats.primary?.end();
  await stats.replica?.end().catch(() => {});
  await pool?.end();
  await pair?.destroy();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await condition()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`not ${what} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

function get(path: string): Promise<Response> {
  return fetch(`${api!.url}/api/v1${path}`, { headers: bearer(token) });
}

async function comSelect(conn: mysql.Connection): Promise<number> {
  const [rows] = await conn.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Com_select'");
  return Number(rows[0]!.Value);
}

/** SELECTs each server ran during `work`, less those of the measurement itself (the replica's also count the lag readings). */
async function selectsDuring(work: () => Promise<unknown>): Promise<{ primary: number; replica: number }> {
  const counts = async () => ({ primary: await comSelect(stats.primary!), replica: await comSelect(stats.replica!) });
  const first = await counts();
  const second = await counts();
  const before = await counts();
  await work();
  const after = await counts();
  return {
    primary: after.primary - before.primary - (second.primary - first.primary),
    replica: after.replica - before.replica - (second.replica - first.replica),
  };
}

/** Rows the server's queries have read from `table` since the statistics were flushed. */
async function rowsRead(conn: mysql.Connection, table: string): Promise<number> {
  const [rows] = await conn.query<RowDataPacket[]>(
    "SELECT ROWS_READ FROM information_schema.TABLE_STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
    [SCHEMA, table],
  );
  return Number(rows[0]?.ROWS_READ ?? 0);
}

async function rowsChanged(conn: mysql.Connection, table: string): Promise<number> {
  const [rows] = await conn.query<RowDataPacket[]>(
    "SELECT ROWS_CHANGED FROM information_schema.TABLE_STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
    [SCHEMA, table],
  );
  return Number(rows[0]?.ROWS_CHANGED ?? 0);
}

/** Every read-model endpoint once, each answering 200. */
async function readEverything(): Promise<void> {
  const paths = [
    "/events",
    `/events/${EVENT}/live`,
    `/events/${EVENT}/results`,
    `/races/${RACE}/live`,
    `/races/${RACE}/track?startGroupId=${GROUP_A}&since=${iso(GUN_A)}`,
    `/races/${RACE}/results`,
  ];
  const statuses = await Promise.all(paths.map(async (path) => [path, (await get(path)).status] as const));
  expect(statuses).toEqual(paths.map((path) => [path, 200]));
}

/**
 * `work` with the replica in use and the guard's caches just refreshed (client state,
 * signing keys: 5 s), so it reads only what it reads itself. Tried again when a cache
 * ran out during the work, or the replica was left for a moment (a busy machine).
 */
async function selectsOfWork(work: () => Promise<unknown>, accept: (counts: { primary: number; replica: number }) => boolean) {
  let counts = { primary: -1, replica: -1 };
  for (let attempt = 1; attempt <= 5; attempt++) {
    await until(inUse, 15_000, "the replica in use");
    await get("/scopes");
    counts = await selectsDuring(work);
    if (accept(counts)) break;
    await sleep(300);
  }
  return counts;
}

/** A new event of CLUB with one live race of one boat that has a fix 30 s ago. */
function newRaceScenario(n: number): { scenario: Scenario; eventId: string; raceId: string; sailNumber: string } {
  const eventId = uuid("e7000000", n);
  const raceId = uuid("a7000000", n);
  const entryId = uuid("d7000000", n);
  const sailNumber = `NEW ${n}`;
  const now = Date.now();
  const scenario = identityScenario();
  scenario.clubs = [];
  scenario.clients = [];
  scenario.events = [
    sharedEvent(eventId, CLUB, {
      entries: [entry(entryId, sailNumber, `Newcomer ${n}`)],
      races: [
        {
          id: raceId,
          raceNo: 1,
          name: `New race ${n}`,
          isLive: true,
          startGroups: [
            {
              id: uuid("b7000000", n),
              name: "Fleet N",
              state: "Started",
              startTimeUtc: iso(now - 10 * 60_000),
              finishTimeUtc: null,
              entryIds: [entryId],
              tracks: [track(entryId, [{ t: now - 30_000, lat: 50.5, lon: -1.5, sogKn: 6, cogDeg: 90 }])],
            },
          ],
        },
      ],
    }),
  ];
  return { scenario, eventId, raceId, sailNumber };
}

async function replicaHas(raceId: string): Promise<boolean> {
  const [rows] = await stats.replica!.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM races WHERE uuid = ?", [raceId]);
  return Number(rows[0]!.n) > 0;
}

interface Polled {
  at: number;
  what: string;
  status: number;
}

/** Calls `paths` every 100 ms until stopped; every answer with its time. */
function poll(paths: () => string[]): { results: Polled[]; stop(): Promise<Polled[]> } {
  const results: Polled[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(
        paths().map(async (path) => {
          const at = Date.now();
          const response = await get(path);
          await response.arrayBuffer();
          results.push({ at, what: path, status: response.status });
        }),
      );
      await sleep(100);
    }
  })();
  return {
    results,
    async stop() {
      running = false;
      await loop;
      return results;
    },
  };
}

function inUse(): boolean {
  return api!.runtime.reads.replicaState()?.inUse === true;
}

async function readyz(): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${api!.url}/readyz`);
  return { status: response.status, body: await response.json() };
}

describe("with a caught-up replica", () => {
  it("serves the read model from the replica, and client state, signing keys and tokens from the primary", async () => {
    // Not one SELECT on the primary for every read-model endpoint.
    const reads = await selectsOfWork(readEverything, (counts) => counts.primary === 0);
    expect(reads.primary).toBe(0);
    // Events list (2), event live (3), event results and race results (1 or more each): never cached.
    expect(reads.replica).toBeGreaterThanOrEqual(7);

    // A token (client state) after the key ring's 5 s, so its keys are read too: on the primary.
    await sleep(PRODUCTION_REFRESH.signingKeysRefreshMs + 100);
    const issued = await selectsDuring(() => tokenFor(api!.url, "coHost"));
    expect(issued.primary).toBeGreaterThanOrEqual(2);
    expect(await rowsRead(stats.primary!, "api_clients")).toBeGreaterThan(0);
    expect(await rowsRead(stats.primary!, "signing_keys")).toBeGreaterThan(0);
    // ... and never on the replica since the statistics were flushed, while the read model was.
    expect(await rowsRead(stats.replica!, "api_clients")).toBe(0);
    expect(await rowsRead(stats.replica!, "signing_keys")).toBe(0);
    expect(await rowsRead(stats.replica!, "races")).toBeGreaterThan(0);
    expect(await rowsRead(stats.replica!, "fixes")).toBeGreaterThan(0);
    expect(await rowsRead(stats.primary!, "races")).toBe(0);
    expect(await rowsRead(stats.primary!, "fixes")).toBe(0);

    expect(await readyz()).toEqual({ status: 200, body: { status: "ready", replica: "in use" } });
  });

  it("detects insights on the replica's fixes, and keeps the generation's lease and state on the primary", async () => {
    const before = {
      replicaFixes: await rowsRead(stats.replica!, "fixes"),
      primaryFixes: await rowsRead(stats.primary!, "fixes"),
      generations: await rowsChanged(stats.primary!, "insight_generations"),
      languages: await rowsChanged(stats.primary!, "insight_languages"),
    };
    await until(inUse, 15_000, "the replica in use");
    // The first call of a race generates at once (and reads the race, if not cached, from the replica).
    const response = await get(`/races/${RACE}/live/insights`);
    expect(response.status).toBe(200);
    expect(await rowsRead(stats.replica!, "fixes")).toBeGreaterThan(before.replicaFixes);
    expect(await rowsRead(stats.primary!, "fixes")).toBe(before.primaryFixes);
    expect(await rowsChanged(stats.primary!, "insight_generations")).toBeGreaterThan(before.generations);
    expect(await rowsChanged(stats.primary!, "insight_languages")).toBeGreaterThan(before.languages);
  });
});

describe("a replica that lags (SQL thread stopped)", () => {
  it("moves reads to the primary: new races are answered, nothing fails; reads come back once it has caught up", async () => {
    const asked = newRaceScenario(1); // polled from the start: the replica's answer (404) may be cached up to 2 s
    const unasked = newRaceScenario(2); // first asked once the lag is detected: never a 404
    await pair.replica.admin("STOP SLAVE SQL_THREAD");
    const stoppedAt = Date.now();
    await importScenario(pool, asked.scenario);
    await importScenario(pool, unasked.scenario);
    expect(await replicaHas(asked.raceId)).toBe(false);

    let detectedAt: number | null = null;
    const polling = poll(() => [
      `/races/${RACE}/live`,
      "/events",
      `/races/${asked.raceId}/live`,
      ...(detectedAt === null ? [] : [`/races/${unasked.raceId}/live`]),
    ]);
    await until(() => !inUse(), 10_000, "the lag detected");
    detectedAt = Date.now();
    // Past the 2 s a race is cached, plus a few polls.
    await sleep(RACE_MAX_AGE_MS + 1000);
    const results = await polling.stop();

    // MAX_LAG_MS plus one 250 ms reading; a busy machine may take a little longer.
    expect(detectedAt - stoppedAt).toBeLessThan(MAX_LAG_MS + 3000);
    expect(results.filter((r) => r.status !== 200 && r.status !== 404)).toEqual([]);
    expect(results.filter((r) => !r.what.includes("a7000000") && r.status !== 200)).toEqual([]);
    // Asked after detection: always there.
    const unaskedStatuses = results.filter((r) => r.what.includes(unasked.raceId)).map((r) => r.status);
    expect(unaskedStatuses.length).toBeGreaterThan(3);
    expect(new Set(unaskedStatuses)).toEqual(new Set([200]));
    // Asked all along: there by detection + the race cache, and never gone again.
    const askedResults = results.filter((r) => r.what.includes(asked.raceId));
    const firstFound = askedResults.findIndex((r) => r.status === 200);
    expect(firstFound).toBeGreaterThanOrEqual(0);
    expect(askedResults[firstFound]!.at).toBeLessThanOrEqual(detectedAt + RACE_MAX_AGE_MS + 1000);
    expect(askedResults.slice(firstFound).filter((r) => r.status !== 200)).toEqual([]);

    // The answer is right, and comes from the primary: the replica still has no such race.
    const answer = await restLive(api!.url, token, unasked.raceId);
    expect(answer.status).toBe(200);
    const live = (await answer.json()) as { raceId: string; startGroups: Array<{ name: string; boats: Array<{ sailNumber: string }> }> };
    expect(live.raceId).toBe(unasked.raceId);
    expect(live.startGroups.map((g) => [g.name, g.boats.map((b) => b.sailNumber)])).toEqual([["Fleet N", [unasked.sailNumber]]]);
    expect(await replicaHas(unasked.raceId)).toBe(false);
    const lagging = await selectsDuring(() => get("/events").then((r) => expect(r.status).toBe(200)));
    expect(lagging.primary).toBeGreaterThanOrEqual(2);
    expect(await readyz()).toEqual({ status: 200, body: { status: "ready", replica: "bypassed" } });

    // Caught up again: reads go back to the replica.
    await pair.replica.admin("START SLAVE SQL_THREAD");
    await pair.caughtUp();
    await until(inUse, 10_000, "the replica in use again");
    expect(await replicaHas(unasked.raceId)).toBe(true);
    const back = await selectsOfWork(
      () =>
        Promise.all([get("/events"), get(`/events/${unasked.eventId}/live`)]).then((rs) =>
          expect(rs.map((r) => r.status)).toEqual([200, 200]),
        ),
      (counts) => counts.primary === 0,
    );
    expect(back.primary).toBe(0);
    expect(back.replica).toBeGreaterThanOrEqual(5);
  });
});

describe("how far behind a lagging replica's rows may be", () => {
  it("is never less than the time since it stopped applying, while reads still go there (the track's settled edge holds it back)", async () => {
    await until(inUse, 10_000, "the replica in use");
    await pair.replica.admin("STOP SLAVE SQL_THREAD");
    const stoppedAt = Date.now();
    const samples: Array<{ staleAtLeastMs: number; behindMs: number }> = [];
    try {
      while (inUse()) {
        const at = Date.now();
        const from = api!.runtime.reads.readFrom();
        if (from.pool !== pool) samples.push({ staleAtLeastMs: at - stoppedAt, behindMs: from.behindMs });
        await sleep(50);
      }
    } finally {
      await pair.replica.admin("START SLAVE SQL_THREAD");
      await pair.caughtUp();
    }
    expect(samples.length).toBeGreaterThan(3);
    expect(samples.filter((s) => s.behindMs < s.staleAtLeastMs)).toEqual([]);
    await until(inUse, 10_000, "the replica in use again");
  });
});

describe("a replica that stops", () => {
  it("is left for the primary at once: every call keeps answering 200; it is used again once back", async () => {
    const polling = poll(() => [`/races/${RACE}/live`, "/events", `/events/${EVENT}/live`, `/races/${RACE}/results`]);
    await sleep(500);
    await pair.replica.stop();
    const stoppedAt = Date.now();
    await until(() => !inUse(), 5000, "the replica left");
    const leftAfter = Date.now() - stoppedAt;
    await sleep(RACE_MAX_AGE_MS + 1000);
    const results = await polling.stop();

    expect(leftAfter).toBeLessThan(2000);
    expect(results.filter((r) => r.at > stoppedAt).length).toBeGreaterThan(20);
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    expect(await readyz()).toEqual({ status: 200, body: { status: "ready", replica: "bypassed" } });

    await pair.replica.start();
    await pair.caughtUp();
    await until(inUse, 15_000, "the replica in use again");
    // A new connection: the old one went with the server.
    await stats.replica!.end().catch(() => {});
    stats.replica = await mysql.createConnection({ uri: pair.replica.url });
    const back = await selectsOfWork(
      () => get("/events").then((r) => expect(r.status).toBe(200)),
      (counts) => counts.primary === 0,
    );
    expect(back).toMatchObject({ primary: 0 });
    expect(back.replica).toBeGreaterThanOrEqual(2);
  });
});

describe("without DATABASE_READ_URL", () => {
  it("reads only the primary and writes no heartbeat; closing the runtime stops the heartbeat", async () => {
    const beatAt = async (instance: MariaDbInstance) => {
      const rows = await instance.admin(`SELECT beat_at FROM ${SCHEMA}.replication_heartbeat WHERE id = 1`);
      return (rows[0]?.beat_at as Date | undefined)?.getTime();
    };
    const beating = await beatAt(pair.primary);
    await sleep(600);
    expect(await beatAt(pair.primary)).toBeGreaterThan(beating!);

    await api!.close();
    api = undefined;
    await sleep(600); // a beat under way when it closed has landed
    const last = await beatAt(pair.primary);
    await sleep(1000);
    expect(await beatAt(pair.primary)).toBe(last);

    api = await startApi({ url: pair.primary.url, pool });
    expect(api.runtime.reads.replicaState()).toBeUndefined();
    token = await tokenFor(api.url, "overlay");
    const counts = await selectsDuring(async () => {
      await readEverything();
      await sleep(1000);
    });
    expect(counts.primary).toBeGreaterThanOrEqual(7);
    expect(counts.replica).toBe(0);
    expect(await beatAt(pair.primary)).toBe(last);
    expect(await readyz()).toEqual({ status: 200, body: { status: "ready" } });
  });
});
