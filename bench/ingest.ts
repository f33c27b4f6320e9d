// How many GPS fixes a second live ingest takes: AppendFixes over gRPC into a
// `race-api serve` of its own process, in batches of one second of one start group
// (100 boats x 1 fix), for 100 live races of 100 boats at 1 Hz (the goal: 10,000
// fixes/s sustained), against `race-api import` of the same fixes in the same run.
//
//  paced:    every second, each race's next second (100 calls/s, 10,000 fixes/s), as
//            the platforms would send them: do the acknowledgements keep up, and how long
//            does one take (p50/p99)?
//  unpaced:  the same batches sent as fast as the server acknowledges them, CONCURRENCY
//            calls in flight on one HTTP/2 connection: the most it takes.
//  baseline: `race-api import` (one transaction, validated) of a file holding the same
//            fixes, in-process, into a fresh database.
//
// Each run uses fresh databases and a fresh server; medians of RUNS runs. VIA=push sends
// every batch over the acknowledged stream instead (PushFixes, CONCURRENCY streams, see
// ingest-push.ts): the same batches, each answered as it commits.
//
//   npm run bench:ingest        (RUNS=3 SECONDS=20 RACES=100 BOATS=100 CONCURRENCY=16 VIA=append;
//                                PROFILE=DIR writes a CPU profile of each server there)

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { createIngestClient } from "../src/ingest-client.js";
import type { Scenario, Track } from "../src/domain/scenario.js";
import { importScenario, importScenarioFile } from "../src/scenario/import.js";
import { uuidFrom, rngFor } from "../src/sim/index.js";
import { fixBatches, type IngestClient } from "../src/sim/feed.js";
import { createDatabase, dropDatabase } from "../src/store/database.js";
import { ensureLocalServer } from "../src/store/local-server.js";
import { migrate } from "../src/store/migrate.js";
import { createPool, withDatabase } from "../src/store/pool.js";
import { BIN } from "../test/support/cli.js";
import { freePort } from "../test/support/ports.js";
import { pushSender } from "./ingest-push.js";
import { serverNodeFlags } from "./server-node-flags.js";

const RUNS = Number(process.env.RUNS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 20);
const RACES = Number(process.env.RACES ?? 100);
const BOATS = Number(process.env.BOATS ?? 100);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const VIA = process.env.VIA === "push" ? "push" : "append";
const SECRET = "bench-ingest-secret";
/** The events' delay: fixes some minutes old are still live, so a slow run is measured, not refused. */
const DELAY_SECONDS = 600;

const server = process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, "") : await ensureLocalServer();
const loadBefore = os.loadavg();

interface RunFigures {
  paced: { fixesPerS: number; p50: number; p99: number; lateSeconds: number; rejected: number };
  unpaced: { fixesPerS: number; p50: number; p99: number; rejected: number };
  importFixesPerS: number;
}

const runs: RunFigures[] = [];
for (let run = 1; run <= RUNS; run++) {
  const figures = await oneRun();
  runs.push(figures);
  console.log(
    `run ${run}: paced ${fmt(figures.paced.fixesPerS)} fixes/s (ack p50 ${figures.paced.p50.toFixed(1)} ms, p99 ${figures.paced.p99.toFixed(1)} ms, ` +
      `${figures.paced.lateSeconds} of ${SECONDS} seconds sent late); unpaced ${fmt(figures.unpaced.fixesPerS)} fixes/s (ack p50 ${figures.unpaced.p50.toFixed(1)} ms, ` +
      `p99 ${figures.unpaced.p99.toFixed(1)} ms); import ${fmt(figures.importFixesPerS)} fixes/s; rejected ${figures.paced.rejected + figures.unpaced.rejected}`,
  );
}
const m = (pick: (r: RunFigures) => number) => median(runs.map(pick));
const cpu = os.cpus();
console.log(`
Ingest: ${RACES} races x ${BOATS} boats, 2 x ${SECONDS} s of fixes at 1 Hz (${fmt(2 * RACES * BOATS * SECONDS)} fixes), ${VIA === "push" ? `PushFixes over gRPC (h2c), ${CONCURRENCY} streams, one message` : "AppendFixes over gRPC (h2c), one call"} per second of one start group
machine: ${cpu[0]?.model.trim() ?? "?"}, ${cpu.length} cores, Node ${process.version}; load average before ${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after ${os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(" ")}
median of ${RUNS} runs
  paced at 1 Hz (goal ${fmt(RACES * BOATS)} fixes/s)   ${fmt(m((r) => r.paced.fixesPerS))} fixes/s; ack p50 ${m((r) => r.paced.p50).toFixed(1)} ms, p99 ${m((r) => r.paced.p99).toFixed(1)} ms; seconds sent late (the previous not yet acknowledged) ${m((r) => r.paced.lateSeconds)} of ${SECONDS}
  unpaced, ${CONCURRENCY} ${VIA === "push" ? "streams" : "calls in flight"}          ${fmt(m((r) => r.unpaced.fixesPerS))} fixes/s; ack p50 ${m((r) => r.unpaced.p50).toFixed(1)} ms, p99 ${m((r) => r.unpaced.p99).toFixed(1)} ms
  baseline: race-api import of the same fixes  ${fmt(m((r) => r.importFixesPerS))} fixes/s
  ratio unpaced ingest / import                ${(m((r) => r.unpaced.fixesPerS / r.importFixesPerS)).toFixed(3)}`);

async function oneRun(): Promise<RunFigures> {
  const nowMs = Date.now();
  // The data: SECONDS of fixes ending a little in the past, inside every window the server checks.
  const firstT = nowMs - (DELAY_SECONDS - 120) * 1000;
  const scenario = benchScenario(firstT - 6 * 60_000);
  const tracks = syntheticTracks(scenario, firstT);

  // The baseline: the same fixes through `race-api import`'s importer, in a database of its own.
  const importFixesPerS = await inFreshDatabase(async (url) => {
    const dir = mkdtempSync(join(tmpdir(), "race-api-bench-ingest-"));
    const file = join(dir, "race.json");
    const full = structuredClone(scenario);
    for (const [r, race] of full.events[0]!.races.entries()) race.startGroups[0]!.tracks = tracks[r]!;
    writeFileSync(file, JSON.stringify(full));
    const pool = createPool(url, { connectionLimit: 2, statementTimeoutMs: 0 });
    try {
      const started = performance.now();
      await importScenarioFile(pool, file);
      return (2 * RACES * BOATS * SECONDS) / ((performance.now() - started) / 1000);
    } finally {
      await pool.end();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Ingest: the same events without tracks, then the fixes through the API.
  return inFreshDatabase(async (url) => {
    const pool = createPool(url, { connectionLimit: 2, statementTimeoutMs: 0 });
    await importScenario(pool, scenario);
    await pool.end();
    const api = await startServer(url);
    try {
      const races = scenario.events[0]!.races;
      const batchesOf = (second: number, half: "paced" | "unpaced") =>
        races.map((race, r) => {
          const group = race.startGroups[0]!;
          // Paced sends the first SECONDS, unpaced the next: both new to the database.
          const k = second + (half === "paced" ? 0 : SECONDS);
          return fixBatches(
            { raceId: race.id, startGroupId: group.id },
            tracks[r]!.map((track) => sliceTrack(track, k, k + 1)),
          )[0]!;
        });
      const client = createIngestClient({ url: api.url, grpcUrl: api.grpcUrl, clientId: "bench-ingest", clientSecret: SECRET });
      await client.updateRace({ raceId: races[0]!.id }); // a token and a warm connection before the clock starts
      const pushed = VIA === "push" ? pushSender(client, CONCURRENCY) : null;
      const send: Send = pushed ? pushed.send : (batch) => client.appendFixes(batch);
      const paced = await sendPaced(send, (s) => batchesOf(s, "paced"));
      const unpaced = await sendUnpaced(send, (s) => batchesOf(s, "unpaced"));
      await pushed?.close();
      return { paced, unpaced, importFixesPerS };
    } finally {
      await api.stop();
    }
  });
}

/** Each second, that second's batches of every race, all at once; a second whose predecessor is still unacknowledged when it is due goes late. */
/** One batch to the server, resolving with its answer: an AppendFixes call or a PushFixes message. */
type Send = (batch: Batch) => Promise<{ accepted: number; rejected: unknown[] }>;
type Batch = Parameters<IngestClient["appendFixes"]>[0] & Parameters<ReturnType<typeof pushSender>["send"]>[0];

async function sendPaced(send: Send, batchesOf: (second: number) => Batch[]) {
  const acks: number[] = [];
  let rejected = 0;
  let fixes = 0;
  let lateSeconds = 0;
  const started = performance.now();
  for (let second = 0; second < SECONDS; second++) {
    const due = started + second * 1000;
    if (performance.now() < due) await sleep(due - performance.now());
    else if (second > 0) lateSeconds++;
    const answers = await Promise.all(batchesOf(second).map((batch) => timed(send, batch, acks)));
    for (const answer of answers) {
      fixes += answer.accepted;
      rejected += answer.rejected.length;
    }
  }
  // SECONDS seconds of fixes over SECONDS seconds, or over the time to the last acknowledgement when that took longer.
  const elapsedS = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(acks).sort();
  return { fixesPerS: fixes / Math.max(SECONDS, elapsedS), p50: pct(sorted, 50), p99: pct(sorted, 99), lateSeconds, rejected };
}

/** Every batch, CONCURRENCY calls in flight. */
async function sendUnpaced(send: Send, batchesOf: (second: number) => Batch[]) {
  const queue = Array.from({ length: SECONDS }, (_, s) => batchesOf(s)).flat();
  const acks: number[] = [];
  let fixes = 0;
  let rejected = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        const answer = await timed(send, batch, acks);
        fixes += answer.accepted;
        rejected += answer.rejected.length;
      }
    }),
  );
  const sorted = Float64Array.from(acks).sort();
  return { fixesPerS: fixes / ((performance.now() - started) / 1000), p50: pct(sorted, 50), p99: pct(sorted, 99), rejected };
}

async function timed(send: Send, batch: Batch, acks: number[]) {
  const started = performance.now();
  const answer = await send(batch);
  acks.push(performance.now() - started);
  return answer;
}

/** One club with a tracking:write client (its ingest limit raised), one event of RACES races of one start group of the same BOATS entries. */
function benchScenario(gunMs: number): Scenario {
  const ids = rngFor("bench-ingest", randomBytes(4).toString("hex"));
  const clubId = uuidFrom(ids);
  const entries = Array.from({ length: BOATS }, (_, i) => ({ id: uuidFrom(ids), sailNumber: `GBR ${i + 1}`, boatName: `Boat ${i + 1}` }));
  return {
    format: "race-scenario/v1",
    clubs: [{ id: clubId, name: "Bench Club", ingestRateLimitPerMinute: 10_000_000 }],
    clients: [{ clientId: "bench-ingest", clientSecret: SECRET, clubId, scopes: ["tracking:write"] }],
    events: [
      {
        id: uuidFrom(ids),
        clubId,
        name: "Bench Regatta",
        startDate: new Date(gunMs).toISOString(),
        published: true,
        trackingShared: true,
        delaySeconds: DELAY_SECONDS,
        entries,
        races: Array.from({ length: RACES }, (_, r) => ({
          id: uuidFrom(ids),
          raceNo: r + 1,
          name: `Race ${r + 1}`,
          isLive: true,
          startGroups: [
            {
              id: uuidFrom(ids),
              name: "Fleet",
              state: "Started" as const,
              startTimeUtc: new Date(gunMs).toISOString(),
              entryIds: entries.map((e) => e.id),
            },
          ],
        })),
      },
    ],
  };
}

/** Per race, per boat: SECONDS fixes at 1 Hz from `firstT`, drifting from a start point, with speed and course. */
function syntheticTracks(scenario: Scenario, firstT: number): Track[][] {
  return scenario.events[0]!.races.map((_, r) =>
    scenario.events[0]!.entries.map((entry, b) => {
      const t: number[] = [];
      const lat: number[] = [];
      const lon: number[] = [];
      const sogKn: number[] = [];
      const cogDeg: number[] = [];
      for (let k = 0; k < 2 * SECONDS; k++) {
        t.push(firstT + k * 1000 + ((r * 7 + b * 13) % 900));
        lat.push(Math.round((50.7 + r * 0.001 + b * 0.0001 + k * 0.00002) * 1e7) / 1e7);
        lon.push(Math.round((-1.3 + k * 0.00003) * 1e7) / 1e7);
        sogKn.push(Math.round((5 + ((b + k) % 30) / 10) * 100) / 100);
        cogDeg.push((b * 11 + k) % 360);
      }
      return { entryId: entry.id, t, lat, lon, sogKn, cogDeg };
    }),
  );
}

function sliceTrack(track: Track, from: number, to: number): Track {
  return {
    entryId: track.entryId,
    t: track.t.slice(from, to),
    lat: track.lat.slice(from, to),
    lon: track.lon.slice(from, to),
    sogKn: track.sogKn!.slice(from, to),
    cogDeg: track.cogDeg!.slice(from, to),
  };
}

async function inFreshDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const url = withDatabase(server, `race_api_bench_${randomBytes(4).toString("hex")}`);
  await createDatabase(url);
  const pool = createPool(url, { connectionLimit: 1, statementTimeoutMs: 0 });
  await migrate(pool);
  await pool.end();
  try {
    return await work(url);
  } finally {
    await dropDatabase(url);
  }
}

/** `race-api serve` in a process of its own, on free ports. */
async function startServer(databaseUrl: string): Promise<{ url: string; grpcUrl: string; stop(): Promise<void> }> {
  const [port, grpcPort] = [await freePort(), await freePort()];
  // PROFILE=DIR: a V8 CPU profile of each server in DIR (node --cpu-prof), to see where ingest spends its time.
  const profile = process.env.PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROFILE}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...serverNodeFlags(), ...profile, BIN, "serve"], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: "127.0.0.1",
      PORT: String(port),
      GRPC_PORT: String(grpcPort),
      METRICS_PORT: "0",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start (exit ${child.exitCode})`);
    await sleep(100);
  }
  return {
    url,
    grpcUrl: `http://127.0.0.1:${grpcPort}`,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function pct(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString("en");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
