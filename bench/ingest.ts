// What live ingest costs per fix, against `race-api import` of the same fixes in the
// same run: CPU seconds per 100,000 fixes of the server (`race-api serve` in a process
// of its own) and of the database server (mariadbd or mysqld), each read from
// /proc/PID/stat, and throughput. This machine's cores also hold this client and
// everything else, so CPU per fix is the figure, not wall time.
//
// Each driver sends RACES x SECONDS messages of one second of one start group (BOATS
// boats x 1 fix), CONCURRENCY at a time, twice: without device data, and with
// `deviceId` and `phoneModel` on every boat of every message, as a platform sends them.
// A driver is one function below (DRIVERS): PushFixes (CONCURRENCY acknowledged streams,
// batches dealt round-robin, bench/ingest-push.ts), StreamFixes (CONCURRENCY streams,
// each sending its share of the messages) and AppendFixes (CONCURRENCY calls in flight).
//
//  baseline: `race-api import` (one transaction, validated) of a file holding the same
//            number of fixes, in this process, into a fresh database: CPU of this
//            process (its start-up is not in it) and of the database during the import.
//  PACED=1:  also AppendFixes with device data paced at 1 Hz (every second each race's
//            next second): do the acknowledgements keep up, and how long does one take?
//
// Each run uses fresh databases and a fresh server per driver; medians of RUNS runs.
//
//   npm run bench:ingest        (RUNS=3 SECONDS=20 RACES=100 BOATS=100 CONCURRENCY=16;
//                                DB_PID=pid when the database's pid file is not readable;
//                                PROFILE=DIR writes a CPU profile of each server there)

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { Code } from "@connectrpc/connect";
import type { RowDataPacket } from "mysql2/promise";
import { createIngestClient } from "../src/sim/ingest-client.js";
import type { Scenario, Track } from "../src/domain/scenario.js";
import { importScenario, importScenarioFile } from "../src/scenario/import.js";
import { uuidFrom, rngFor } from "../src/sim/index.js";
import { fixBatches, type IngestClient } from "../src/sim/feed.js";
import { createDatabase, dropDatabase } from "../src/setup/database.js";
import { ensureLocalServer } from "../src/setup/local-mariadb.js";
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
const PACED = process.env.PACED === "1";
const SECRET = "bench-ingest-secret";
/** The events' delay: fixes some minutes old are still live, so a slow run is measured, not refused. */
const DELAY_SECONDS = 600;
const FIXES = RACES * BOATS * SECONDS;

type Message = Parameters<IngestClient["appendFixes"]>[0];
/** The fixes a stream's answer refused: those it lists and those it only counts. */
function rejectedIn(answer: { rejected: readonly unknown[]; rejectedUnlisted: ReadonlyArray<{ count: number }> }): number {
  return answer.rejected.length + answer.rejectedUnlisted.reduce((n, r) => n + r.count, 0);
}

/** What a driver reports back: the fixes the server said it wrote, and those it refused. */
interface Sent {
  accepted: number;
  rejected: number;
}

/**
 * The ways a platform can send fixes. Each sends every message with CONCURRENCY
 * calls or streams in flight and sums the answers; a new RPC is one more entry.
 */
const DRIVERS: Record<string, (client: IngestClient, messages: Message[]) => Promise<Sent>> = {
  PushFixes: async (client, messages) => {
    const sender = pushSender(client, CONCURRENCY);
    try {
      const answers = await Promise.all(messages.map(({ raceId, startGroupId, boats }) => sender.send({ raceId, startGroupId, boats })));
      return sum(answers.map((a) => ({ accepted: a.accepted, rejected: rejectedIn(a) })));
    } finally {
      await sender.close();
    }
  },
  StreamFixes: async (client, messages) => {
    const shares = Array.from({ length: CONCURRENCY }, (_, i) => messages.filter((_, m) => m % CONCURRENCY === i));
    const answers = await Promise.all(
      shares.map((share) =>
        // A stream acknowledges nothing until it ends: one that fails is sent again whole.
        retried(() => client.streamFixes(iterate(share.map(({ raceId, startGroupId, boats }) => ({ raceId, startGroupId, boats }))))),
      ),
    );
    return sum(answers.map((a) => ({ accepted: a.accepted, rejected: rejectedIn(a) })));
  },
  AppendFixes: async (client, messages) => {
    const queue = [...messages];
    const sent: Sent[] = [];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let message = queue.shift(); message; message = queue.shift()) {
          const answer = await retried(() => client.appendFixes(message));
          sent.push({ accepted: answer.accepted, rejected: answer.rejected.length });
        }
      }),
    );
    return sum(sent);
  },
};

/** Failed calls, sent again as a platform would (UNAVAILABLE: the service says try again); counted in the figures. */
let retries = 0;

/** `call`, again after UNAVAILABLE, up to 5 times: a write is idempotent, so a re-send only counts duplicates. */
async function retried<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if ((error as { code?: unknown }).code !== Code.Unavailable || attempt >= 5) throw error;
      retries++;
      await sleep(100);
    }
  }
}

const server = process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, "") : await ensureLocalServer();
const dbPid = await databasePid();
const loadBefore = os.loadavg();

/** CPU seconds per 100,000 fixes and fixes per second of one measured phase. */
interface Phase {
  serverCpu: number;
  dbCpu: number;
  fixesPerS: number;
  rejected: number;
}
interface RunFigures {
  import: Phase;
  drivers: Record<string, { plain: Phase; device: Phase }>;
  paced?: { fixesPerS: number; p50: number; p99: number; lateSeconds: number };
}

const runs: RunFigures[] = [];
for (let run = 1; run <= RUNS; run++) {
  const figures: RunFigures = { import: await importBaseline(), drivers: {} };
  for (const [name, send] of Object.entries(DRIVERS)) {
    figures.drivers[name] = { plain: await ingestPhase(send, false), device: await ingestPhase(send, true) };
  }
  if (PACED) figures.paced = await pacedPhase();
  runs.push(figures);
  const line = Object.entries(figures.drivers).map(
    ([name, d]) =>
      `${name} ${fmt(d.plain.fixesPerS)} / ${fmt(d.device.fixesPerS)} fixes/s, server ${d.plain.serverCpu.toFixed(2)} / ${d.device.serverCpu.toFixed(2)} s, db ${d.plain.dbCpu.toFixed(2)} / ${d.device.dbCpu.toFixed(2)} s`,
  );
  console.log(
    `run ${run} (per 100k fixes, without / with device data): import ${figures.import.serverCpu.toFixed(2)} s, db ${figures.import.dbCpu.toFixed(2)} s; ${line.join("; ")}`,
  );
}

const m = (pick: (r: RunFigures) => number) => median(runs.map(pick));
const ratio = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : "n/a");
const cpu = os.cpus();
const rows: string[] = [];
for (const name of Object.keys(DRIVERS)) {
  for (const device of [false, true] as const) {
    const pick = (r: RunFigures) => r.drivers[name]![device ? "device" : "plain"];
    rows.push(
      `  ${`${name}, ${device ? "device data on every boat" : "no device data"}`.padEnd(44)}` +
        `${fmt(m((r) => pick(r).fixesPerS)).padStart(7)} fixes/s  server ${m((r) => pick(r).serverCpu).toFixed(2)} s (x ${ratio(m((r) => pick(r).serverCpu / r.import.serverCpu))})` +
        `  db ${m((r) => pick(r).dbCpu).toFixed(2)} s (x ${ratio(m((r) => pick(r).dbCpu / r.import.dbCpu))})  rejected ${m((r) => pick(r).rejected)}`,
    );
  }
  rows.push(
    `  ${`${name}: throughput with / without device data`.padEnd(44)}${ratio(m((r) => r.drivers[name]!.device.fixesPerS / r.drivers[name]!.plain.fixesPerS)).padStart(7)} (goal >= 0.9)`,
  );
}
console.log(`
Ingest: ${RACES} races x ${BOATS} boats, ${SECONDS} s of fixes at 1 Hz (${fmt(FIXES)} fixes) per phase, messages of ${BOATS} fixes (one second of one start group), ${CONCURRENCY} in flight, gRPC (h2c)
machine: ${cpu[0]?.model.trim() ?? "?"}, ${cpu.length} cores, Node ${process.version}; load average before ${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after ${os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(" ")}
database pid ${dbPid ?? "unknown (set DB_PID): database CPU not measured"}; it also serves whatever else runs on this machine
calls or streams sent again after UNAVAILABLE (all runs): ${retries}
median of ${RUNS} runs; CPU seconds per 100,000 fixes, and in brackets divided by the import's (goal <= 1.5)
  ${"baseline: race-api import of the same fixes".padEnd(44)}${fmt(m((r) => r.import.fixesPerS)).padStart(7)} fixes/s  import ${m((r) => r.import.serverCpu).toFixed(2)} s  db ${m((r) => r.import.dbCpu).toFixed(2)} s
${rows.join("\n")}`);
if (PACED) {
  const paced = (pick: (p: NonNullable<RunFigures["paced"]>) => number) => m((r) => pick(r.paced!));
  console.log(
    `  ${"AppendFixes with device data, paced at 1 Hz".padEnd(44)}${fmt(paced((p) => p.fixesPerS)).padStart(7)} fixes/s (goal ${fmt(RACES * BOATS)}); ack p50 ${paced((p) => p.p50).toFixed(1)} ms, p99 ${paced((p) => p.p99).toFixed(1)} ms; seconds sent late ${paced((p) => p.lateSeconds)} of ${SECONDS}`,
  );
}

/** The same number of fixes through the importer, in this process: its CPU and the database's. */
async function importBaseline(): Promise<Phase> {
  const { scenario, tracks } = benchData(false);
  return inFreshDatabase(async (url) => {
    const dir = mkdtempSync(join(tmpdir(), "race-api-bench-ingest-"));
    const file = join(dir, "race.json");
    const full = structuredClone(scenario);
    for (const [r, race] of full.events[0]!.races.entries()) race.startGroups[0]!.tracks = tracks[r]!.map((t) => sliceTrack(t, 0, SECONDS));
    writeFileSync(file, JSON.stringify(full));
    const pool = createPool(url, { connectionLimit: 2, statementTimeoutMs: 0 });
    try {
      const before = { self: ownCpuS(), db: processCpuS(dbPid), at: performance.now() };
      await importScenarioFile(pool, file);
      return phase(ownCpuS() - before.self, processCpuS(dbPid) - before.db, FIXES, before.at, 0);
    } finally {
      await pool.end();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** One driver's messages into a fresh server and database: the server's CPU and the database's while they are sent. */
async function ingestPhase(send: (client: IngestClient, messages: Message[]) => Promise<Sent>, device: boolean): Promise<Phase> {
  const data = benchData(device);
  return withServer(data.scenario, async (client, serverPid) => {
    const messages = Array.from({ length: SECONDS }, (_, s) => secondOf(data, s)).flat();
    const before = { server: processCpuS(serverPid), db: processCpuS(dbPid), at: performance.now() };
    const sent = await send(client, messages);
    return phase(processCpuS(serverPid) - before.server, processCpuS(dbPid) - before.db, sent.accepted, before.at, sent.rejected);
  });
}

/** AppendFixes with device data, each second's messages of every race at once, as the platforms would send them. */
async function pacedPhase(): Promise<NonNullable<RunFigures["paced"]>> {
  const data = benchData(true);
  return withServer(data.scenario, async (client) => {
    const acks: number[] = [];
    let fixes = 0;
    let lateSeconds = 0;
    const started = performance.now();
    for (let second = 0; second < SECONDS; second++) {
      const due = started + second * 1000;
      if (performance.now() < due) await sleep(due - performance.now());
      else if (second > 0) lateSeconds++;
      const answers = await Promise.all(
        secondOf(data, second).map(async (message) => {
          const sentAt = performance.now();
          const answer = await client.appendFixes(message);
          acks.push(performance.now() - sentAt);
          return answer;
        }),
      );
      for (const answer of answers) fixes += answer.accepted;
    }
    const elapsedS = (performance.now() - started) / 1000;
    const sorted = Float64Array.from(acks).sort();
    return { fixesPerS: fixes / Math.max(SECONDS, elapsedS), p50: pct(sorted, 50), p99: pct(sorted, 99), lateSeconds };
  });
}

function phase(cpuS: number, dbCpuS: number, fixes: number, startedAt: number, rejected: number): Phase {
  const per100k = 100_000 / Math.max(1, fixes);
  return { serverCpu: cpuS * per100k, dbCpu: dbCpuS * per100k, fixesPerS: fixes / ((performance.now() - startedAt) / 1000), rejected };
}

/** Second `s` of every race: one message per race, as the platform sends it. */
function secondOf(data: BenchData, s: number): Message[] {
  return data.scenario.events[0]!.races.map((race, r) => {
    const ids = { raceId: race.id, startGroupId: race.startGroups[0]!.id };
    const message = fixBatches(
      ids,
      data.tracks[r]!.map((track) => sliceTrack(track, s, s + 1)),
    )[0]!;
    if (data.devices) message.boats = message.boats!.map((boat, b) => ({ ...boat, ...data.devices![b] }));
    return message;
  });
}

/** A scenario, its tracks, and each boat's device data when the messages carry it. */
interface BenchData {
  scenario: Scenario;
  tracks: Track[][];
  devices: Array<{ deviceId: string; phoneModel: string }> | null;
}

/** A scenario whose fixes start a little in the past, inside every window the server checks, and its tracks. */
function benchData(device: boolean): BenchData {
  const firstT = Date.now() - (DELAY_SECONDS - 120) * 1000;
  const scenario = benchScenario(firstT - 6 * 60_000);
  const tracks = syntheticTracks(scenario, firstT);
  const devices = device
    ? Array.from({ length: BOATS }, (_, b) => ({ deviceId: `device-${b.toString(16).padStart(12, "0")}`, phoneModel: "Pixel 8 Pro" }))
    : null;
  return { scenario, tracks, devices };
}

/** A fresh database holding the scenario without tracks, a fresh server on it, and a client with a token and a warm connection. */
async function withServer<T>(scenario: Scenario, work: (client: IngestClient, serverPid: number) => Promise<T>): Promise<T> {
  return inFreshDatabase(async (url) => {
    const pool = createPool(url, { connectionLimit: 2, statementTimeoutMs: 0 });
    await importScenario(pool, scenario);
    await pool.end();
    const api = await startServer(url);
    try {
      const client = createIngestClient({ url: api.url, grpcUrl: api.grpcUrl, clientId: "bench-ingest", clientSecret: SECRET });
      await client.updateRace({ raceId: scenario.events[0]!.races[0]!.id });
      return await work(client, api.pid);
    } finally {
      await api.stop();
    }
  });
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
      for (let k = 0; k < SECONDS; k++) {
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

async function* iterate<T>(items: readonly T[]): AsyncIterable<T> {
  yield* items;
}

function sum(sent: readonly Sent[]): Sent {
  return sent.reduce((a, b) => ({ accepted: a.accepted + b.accepted, rejected: a.rejected + b.rejected }), { accepted: 0, rejected: 0 });
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

/** The database server's pid: DB_PID, or its pid file when this user may read it; null if neither. */
async function databasePid(): Promise<number | null> {
  if (process.env.DB_PID) return Number(process.env.DB_PID);
  const pool = createPool(server, { connectionLimit: 1 });
  try {
    const [[row]] = await pool.query<RowDataPacket[]>("SELECT @@pid_file AS file");
    return Number(readFileSync(row!.file as string, "utf8").trim()) || null;
  } catch {
    return null;
  } finally {
    await pool.end();
  }
}

/** utime + stime of a process in seconds (/proc/PID/stat, clock ticks of 10 ms); NaN without a pid. */
function processCpuS(pid: number | null): number {
  if (pid === null) return NaN;
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function ownCpuS(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** `race-api serve` in a process of its own, on free ports. */
async function startServer(databaseUrl: string): Promise<{ url: string; grpcUrl: string; pid: number; stop(): Promise<void> }> {
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
    pid: child.pid!,
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
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en") : "n/a";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
