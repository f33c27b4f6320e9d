// The service under a realistic load: broadcast overlays following 3 live races of 60
// boats (2 start groups x 30; RACES, GROUPS and BOATS change that) fed live through
// IngestService, through two API instances on one MariaDB and one Redis,
// at 200 and at 2,000 concurrent clients, each figure against baselines measured in the
// same run (these machines are noisy: compare ratios, quote medians of runs):
//
//  per phase: requests/s (all and per endpoint), latency p50/p99 per endpoint, every
//  status and transport error (must be none besides deliberate 429s, and this bench
//  makes none), the statements the instances send to MariaDB per second (and the whole
//  server's Questions and Com_select, which other work on the machine may share), CPU of
//  every process, and peak RSS and JS heap of each instance;
//
//  the feed: each race is fed through IngestService over gRPC (src/sim/feed.ts, one
//  tracking:write client per club, the races spread over both instances), as a club's
//  tracking platform would: per phase its calls and fixes per second, failures and
//  rejections, the acknowledgement latency of AppendFixes (p50/p99), and the time from
//  an acknowledgement to the fix being in a live answer (a probe polls the live race of
//  the first two races every 100 ms on the instance that did not take the write, with
//  delay 0: the first answer whose boat shows the acknowledged fix's time);
//
//  baselines: an idle window (instances up, the feed writing, no clients) for the
//  database's and the machine's background; 200 clients on ONE instance against 200
//  spread over two (what the second instance costs or gives at the same load); and the
//  200-client phase against the 2,000-client one (what 10x the clients costs).
//
// The mix per virtual client (an overlay in a browser): GET /live every 1 s; GET
// /live/insights every 15 s (lang en 70%, de 15%, fr 15%); and now and then (every
// TRACK_EVERY_S per client on average, Poisson) the track of one start group, paged
// from its capture start following nextSince up to the cut-off, keeping the immutable
// pages as a browser cache would. Each overlay sends If-None-Match with the ETag it
// holds and accept-encoding br/gzip, as a browser's HTTP cache does. Overlays are spread
// evenly over the races, the instances and 4 API clients (bearer tokens) per club. The
// phase is a slice of a steady state: every schedule starts at a random phase, and the
// first RAMP_SECONDS (connections opening) are not counted. Before the phases, the set-up
// pages every start group's track once on each instance as an overlay does, so the
// settled windows are held, as they are a few minutes into a real event.
//
// Why not autocannon: it cycles one request list per connection at one rate, so it
// cannot poll one URL every second and another every 15 s on the same client, follow
// nextSince, or revalidate with ETags, and it gives one latency histogram for the
// mix. The load generator here is open loop on node:http, a keep-alive agent per
// overlay: each poll is due on a fixed 1 s (15 s) schedule whatever the answers; a poll
// due while that overlay's previous one is still in flight is skipped and counted
// ("skipped ticks": the sign of saturation that an open loop would otherwise hide).
// Latency is from the request's start to its last byte, so it includes the load
// generator's own event-loop delay, printed beside it.
//
// Processes: this one sets up (the races so far are imported), probes and measures; the
// feed runs in a process of its own (load-feed.ts), as a club's platform would, and sends
// the races' new data through the instances every second; each API instance is
// `race-api serve` in its own process (this file with LOAD_ROLE=instance runs the CLI
// after installing a probe: memory every 100 ms, CPU, event-loop delay, and the
// statements it sends, from mysql2's diagnostics channels); every overlay runs in one
// client process; Redis is redis-server. Nothing shares an event loop with the API.
//
// Run: npm run bench:load   (WINDOW_SECONDS=20, CLIENTS=200,2000, TRACK_EVERY_S=300,
// RACES=3, GROUPS=2, BOATS=30, LOG_LEVEL=info by default; the whole bench takes about
// 100 s). npm run bench:ingest-mixed runs it with 20 races of 50 boats. PROFILE=DIR writes
// a V8 CPU profile of each instance there.

import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import diagnostics from "node:diagnostics_channel";
import { closeSync, createReadStream, openSync, readFileSync, readdirSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import type { RowDataPacket } from "mysql2/promise";
import type { Scenario } from "../src/domain/scenario.js";
import { importScenario } from "../src/scenario/import.js";
import { sliceScenario } from "../src/sim/index.js";
import { createDatabase, dropDatabase } from "../src/setup/database.js";
import { ensureLocalServer } from "../src/setup/local-mariadb.js";
import { migrate } from "../src/store/migrate.js";
import { createPool, withDatabase, type Pool } from "../src/store/pool.js";
import { ensureRedisServer, type RedisServer } from "../test/support/redis.js";
import { freePort } from "../test/support/ports.js";
import { benchRace, FeedProcess, type FeedCounts } from "./load-feed.js";
import { checkOpenFileLimit } from "./open-files.js";
import { serverNodeFlags } from "./server-node-flags.js";
import { fetchToken } from "./token.js";

const ROLE_VARIABLE = "LOAD_ROLE";
const WINDOW_SECONDS = Number(process.env.WINDOW_SECONDS ?? 20);
const [SMALL, LARGE] = (process.env.CLIENTS ?? "200,2000").split(",").map(Number) as [number, number];
const TRACK_EVERY_S = Number(process.env.TRACK_EVERY_S ?? 300);
/** `race-api serve`'s default: a line per request, written to a file per instance. */
const LOG_LEVEL = process.env.LOG_LEVEL ?? "info";
/** Connections open in these first seconds of a phase; its window starts after them. */
const RAMP_SECONDS = 3;
const IDLE_SECONDS = 5;
const WARM_UP = { clients: 60, seconds: 5 };
const RACES = Number(process.env.RACES ?? 3);
const GROUPS = Number(process.env.GROUPS ?? 2);
const BOATS = Number(process.env.BOATS ?? 30);
/** Races belong to at most this many clubs: the token endpoint allows 20 tokens a minute per caller address. */
const CLUBS = Math.min(RACES, 3);
const TOKENS_PER_RACE = 4;
/** How often the freshness probe polls the live race. */
const PROBE_EVERY_MS = 100;
const CLUB_TRACKING_LIMIT = 1_000_000;
const LIVE_EVERY_MS = 1000;
const INSIGHTS_EVERY_MS = 15_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** After the window, requests still in flight get this long to finish (and still count). */
const DRAIN_MS = 10_000;
/** At most three requests of one overlay are in flight at once: live, insights and a track page. */
const SOCKETS_PER_OVERLAY = 3;
const LANGUAGES: ReadonlyArray<[string, number]> = [
  ["en", 0.7],
  ["de", 0.15],
  ["fr", 0.15],
];

// --- messages between the bench and its processes ---

interface RacePlan {
  raceId: string;
  tokens: string[];
  groups: Array<{ id: string; captureFromMs: number }>;
}

interface Plan {
  label: string;
  clients: number;
  /** Base URLs of the instances the overlays are spread over. */
  targets: string[];
  races: RacePlan[];
  rampMs: number;
  windowMs: number;
  trackEveryMs: number;
  seed: number;
}

type ToClients = { type: "run"; plan: Plan };

interface EndpointResult {
  requests: number;
  statuses: Record<string, number>;
  /** Transport failures by code (timeouts, resets), no status at all. */
  failures: Record<string, number>;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  bytes: number;
  /** Polls due while the previous one of the same overlay was still in flight. */
  skipped: number;
}

type Endpoint = "live" | "insights" | "track";

interface PhaseResult {
  type: "result";
  endpoints: Record<Endpoint, EndpointResult>;
  all: { p50: number; p99: number };
  windowMs: number;
  trackCatchUps: number;
  /** Track pages an overlay already held (immutable) and so did not ask for. */
  trackPagesKept: number;
  loopP99Ms: number;
  cpuMs: number;
  /** Requests still in flight when the drain gave up. */
  unfinished: number;
}

type FromClients = { type: "ready" } | { type: "window-start" } | { type: "window-end" } | PhaseResult;

type ToInstance = { type: "snapshot"; resetPeaks: boolean };

interface InstanceSnapshot {
  type: "snapshot";
  cpuMs: number;
  statements: number;
  selects: number;
  rss: number;
  heapUsed: number;
  /** Highest readings since the last reset (sampled every 100 ms). */
  peakRss: number;
  peakHeap: number;
  loopP99Ms: number;
}

// ===================================================================================
// The bench: database, feed, instances, phases, figures.
// ===================================================================================

async function runBench(): Promise<void> {
  checkOpenFileLimit(LARGE * SOCKETS_PER_OVERLAY + 500, "CLIENTS");
  const loadBefore = os.loadavg();
  const dbServer = process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, "") : await ensureLocalServer();
  const url = withDatabase(dbServer, `race_api_bench_${randomBytes(4).toString("hex")}`);
  await createDatabase(url);
  const cleanup: Array<() => Promise<void>> = [];
  try {
    await benchOn(url, loadBefore, cleanup);
  } finally {
    // Also when a phase fails: no process or bench database is left behind.
    for (const step of cleanup.reverse()) await step().catch((error: unknown) => console.error(`clean-up: ${String(error)}`));
    await dropDatabase(url);
  }
}

interface Counters {
  atMs: number;
  instances: InstanceSnapshot[];
  questions: number;
  comSelect: number;
  /** Date.now() at atMs: the feed's acknowledgements carry wall-clock times. */
  wallMs: number;
  /** The feed's totals so far, every race. */
  feed: FeedCounts;
  benchCpuMs: number;
  mariadbTicks: number | null;
  redisTicks: number | null;
  /** Busy clock ticks of the whole machine (all cores), from /proc/stat. */
  machineTicks: number | null;
}

interface Figures {
  label: string;
  seconds: number;
  /** Per second over the window. */
  statements: number[];
  selects: number[];
  questions: number;
  comSelect: number;
  feed: FeedFigures;
  /** % of one core. */
  instanceCpu: number[];
  benchCpu: number;
  mariadbCpu: number | null;
  redisCpu: number | null;
  machineCpu: number | null;
  instanceLoopP99: number[];
  peakRss: number[];
  peakHeap: number[];
  clients: PhaseResult | null;
  clientCount: number;
  targets: number;
}

async function benchOn(url: string, loadBefore: number[], cleanup: Array<() => Promise<void>>): Promise<void> {
  const adminPool = createPool(url, { statementTimeoutMs: 0 });
  cleanup.push(() => adminPool.end());
  await migrate(adminPool);

  // --- RACES races of up to 3 clubs, 20 minutes after the first gun ---
  const now = Date.now();
  const races: Scenario[] = [];
  for (let r = 0; r < RACES; r++) races.push(benchRace(r, now, GROUPS, BOATS));
  const clubs = races.slice(0, CLUBS).map((race) => ({ ...race.clubs[0]!, trackingRateLimitPerMinute: CLUB_TRACKING_LIMIT }));
  for (const [r, race] of races.entries()) for (const event of race.events) event.clubId = clubs[r % CLUBS]!.id;
  const clubClients = clubs.map((club, c) => ({
    readers: Array.from({ length: TOKENS_PER_RACE }, (_, k) => ({
      clientId: `load-${c}-${k}`,
      clientSecret: "bench-secret-123",
      clubId: club.id,
      scopes: ["tracking:read"],
    })),
    feeder: { clientId: `feed-${c}`, clientSecret: "bench-secret-123", clubId: club.id, scopes: ["tracking:write"] },
  }));
  const sliced = races.map((race) => sliceScenario(race, null, now));
  await importScenario(adminPool, {
    format: sliced[0]!.format,
    clubs,
    clients: clubClients.flatMap((c) => [...c.readers, c.feeder]),
    events: sliced.flatMap((s) => s.events),
  });
  const fixes = sliced.reduce(
    (n, s) => n + s.events[0]!.races[0]!.startGroups.reduce((m, g) => m + (g.tracks ?? []).reduce((k, t) => k + t.t.length, 0), 0),
    0,
  );

  // --- Redis (one rate-limit budget for both instances) and the two instances ---
  const redis: RedisServer = await ensureRedisServer();
  cleanup.push(() => redis.stop());
  const instances: Instance[] = [];
  cleanup.push(async () => {
    for (const instance of instances) await instance.stop();
  });
  const started = await Promise.allSettled(["A", "B"].map((name) => Instance.start(name, url, redis.url)));
  for (const outcome of started) if (outcome.status === "fulfilled") instances.push(outcome.value);
  for (const outcome of started) if (outcome.status === "rejected") throw outcome.reason;
  const a = instances[0];

  // --- the feed: each race's new data every second through IngestService over gRPC, spread over both instances ---
  const feedLog: FeedLog = { acks: [], freshness: [], unseen: 0, firstError: "" };
  const pending = new Map<number, Array<{ startGroupId: string; entryId: string; t: number; ackedMs: number }>>();
  const feed = await FeedProcess.start(
    {
      nowMs: now,
      races: RACES,
      groups: GROUPS,
      boats: BOATS,
      instances: instances.map((instance) => ({ url: instance.url, grpcUrl: instance.grpcUrl })),
      feeders: clubClients.map((c) => ({ clientId: c.feeder.clientId, clientSecret: c.feeder.clientSecret })),
    },
    (ack) => {
      feedLog.acks.push({ atMs: ack.ackedMs, ms: ack.ms });
      const probed = pending.get(ack.race);
      if (probed && ack.entryId !== undefined && ack.t !== undefined)
        probed.push({ startGroupId: ack.startGroupId, entryId: ack.entryId, t: ack.t, ackedMs: ack.ackedMs });
    },
    (message) => (feedLog.firstError ||= ` (first: ${message})`),
  );
  cleanup.push(() => feed.stop());

  // --- tokens, and a first answer of every endpoint on both instances ---
  const racePlans: RacePlan[] = [];
  const clubTokens: string[][] = [];
  for (const c of clubClients) {
    const tokens: string[] = [];
    for (const client of c.readers) tokens.push(await fetchToken(a!.url, client.clientId, client.clientSecret));
    clubTokens.push(tokens);
  }
  for (const [r, race] of races.entries()) {
    const tokens = clubTokens[r % CLUBS]!;
    const groups = race.events[0]!.races[0]!.startGroups.map((g) => ({
      id: g.id,
      captureFromMs: Date.parse(g.startTimeUtc!) - 5 * 60_000,
    }));
    racePlans.push({ raceId: race.events[0]!.races[0]!.id, tokens, groups });
    for (const instance of instances) {
      for (const path of [`/live`, `/live/insights?lang=en`]) {
        const response = await fetch(`${instance.url}/api/v1/races/${racePlans[r]!.raceId}${path}`, {
          headers: { authorization: `Bearer ${tokens[0]}` },
        });
        if (response.status !== 200) throw new Error(`${instance.name} ${path}: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
      }
      for (const group of groups) await catchUpOnce(instance, racePlans[r]!.raceId, group, tokens[0]!);
    }
  }
  // The freshness probe: the first two races' live answers on the instance that did not take their writes.
  let probing = true;
  const probes = racePlans.slice(0, 2).map(async (plan, r) => {
    pending.set(r, []);
    const target = instances[(r + 1) % instances.length]!;
    while (probing) {
      const polled = Date.now();
      const response = await fetch(`${target.url}/api/v1/races/${plan.raceId}/live`, {
        headers: { authorization: `Bearer ${plan.tokens[0]}` },
      }).catch(() => null);
      const seenMs = Date.now();
      if (response?.status === 200) {
        const live = (await response.json()) as {
          startGroups: Array<{ startGroupId: string; boats: Array<{ entryId: string; fixTimeUtc: string | null }> }>;
        };
        const shown = new Map(
          live.startGroups.flatMap((g) =>
            g.boats.map((b) => [`${g.startGroupId}:${b.entryId}`, b.fixTimeUtc ? Date.parse(b.fixTimeUtc) : 0] as const),
          ),
        );
        const waiting = pending.get(r)!;
        const still = waiting.filter((ack) => {
          const t = shown.get(`${ack.startGroupId}:${ack.entryId}`);
          if (t !== undefined && t >= ack.t) {
            feedLog.freshness.push({ atMs: ack.ackedMs, ms: seenMs - ack.ackedMs });
            return false;
          }
          // Not shown within 30 s (an unapproved boat, or lost): counted apart.
          if (seenMs - ack.ackedMs > 30_000 || t === undefined) {
            feedLog.unseen += t === undefined ? 0 : 1;
            return false;
          }
          return true;
        });
        pending.set(r, still);
      } else await response?.arrayBuffer();
      await sleep(polled + PROBE_EVERY_MS - Date.now());
    }
  });
  cleanup.push(async () => {
    probing = false;
    await Promise.all(probes);
  });

  const liveSample = await fetch(`${a!.url}/api/v1/races/${racePlans[0]!.raceId}/live`, {
    headers: { authorization: `Bearer ${racePlans[0]!.tokens[0]}`, "accept-encoding": "identity" },
  });
  const liveBytes = (await liveSample.arrayBuffer()).byteLength;
  const liveBrSample = await fetch(`${a!.url}/api/v1/races/${racePlans[0]!.raceId}/live`, {
    headers: { authorization: `Bearer ${racePlans[0]!.tokens[0]}`, "accept-encoding": "br" },
  });
  const liveBrBytes = Number(liveBrSample.headers.get("content-length") ?? (await liveBrSample.arrayBuffer()).byteLength);

  // --- counters ---
  const mariadbPid = await serverPid(adminPool);
  const redisPid = findProcess((cmdline) => cmdline.includes("redis-server") && cmdline.includes(`:${redis.port}`));
  const readCounters = async (resetPeaks = false): Promise<Counters> => {
    const [snapshots, feedCounts] = await Promise.all([Promise.all(instances.map((i) => i.snapshot(resetPeaks))), feed.counts()]);
    const [rows] = await adminPool.query<RowDataPacket[]>("SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_select')");
    const value = (name: string) => Number(rows.find((row) => row.Variable_name === name)?.Value);
    const cpu = process.cpuUsage();
    return {
      atMs: performance.now(),
      instances: snapshots,
      questions: value("Questions"),
      comSelect: value("Com_select"),
      wallMs: Date.now(),
      feed: feedCounts,
      benchCpuMs: (cpu.user + cpu.system) / 1000 + feedCounts.cpuMs,
      mariadbTicks: cpuTicks(mariadbPid),
      redisTicks: cpuTicks(redisPid),
      machineTicks: machineBusyTicks(),
    };
  };
  const figures = (
    label: string,
    before: Counters,
    after: Counters,
    peaks: InstanceSnapshot[],
    clients: PhaseResult | null,
    clientCount: number,
    targets: number,
  ): Figures => {
    const seconds = (after.atMs - before.atMs) / 1000;
    const perSecond = (x: number, y: number) => (y - x) / seconds;
    const ticksPct = (x: number | null, y: number | null) => (x === null || y === null ? null : ((y - x) / CLOCK_TICKS / seconds) * 100);
    return {
      label,
      seconds,
      statements: after.instances.map((s, i) => perSecond(before.instances[i]!.statements, s.statements)),
      selects: after.instances.map((s, i) => perSecond(before.instances[i]!.selects, s.selects)),
      questions: perSecond(before.questions, after.questions),
      comSelect: perSecond(before.comSelect, after.comSelect),
      feed: feedFigures(feedLog, before, after, seconds),
      instanceCpu: after.instances.map((s, i) => (perSecond(before.instances[i]!.cpuMs, s.cpuMs) / 1000) * 100),
      benchCpu: (perSecond(before.benchCpuMs, after.benchCpuMs) / 1000) * 100,
      mariadbCpu: ticksPct(before.mariadbTicks, after.mariadbTicks),
      redisCpu: ticksPct(before.redisTicks, after.redisTicks),
      machineCpu: ticksPct(before.machineTicks, after.machineTicks),
      instanceLoopP99: after.instances.map((s) => s.loopP99Ms),
      peakRss: peaks.map((s) => s.peakRss),
      peakHeap: peaks.map((s) => s.peakHeap),
      clients,
      clientCount,
      targets,
    };
  };

  const clients = new ClientProcess();
  cleanup.push(async () => clients.end());
  // Its start (loading and compiling the TypeScript) takes a core for seconds: not in the idle window.
  await clients.ready;

  // --- idle: the instances up, the feed writing, no clients ---
  await readCounters(true);
  const idleBefore = await readCounters();
  await sleep(IDLE_SECONDS * 1000);
  const idleAfter = await readCounters();
  const idle = figures("idle", idleBefore, idleAfter, await Promise.all(instances.map((i) => i.snapshot(true))), null, 0, 0);

  const phase = async (label: string, count: number, targets: Instance[], windowSeconds: number, seed: number): Promise<Figures> => {
    await readCounters(true);
    const edges: { before?: Promise<Counters>; after?: Promise<Counters> } = {};
    const result = await clients.run(
      {
        label,
        clients: count,
        targets: targets.map((t) => t.url),
        races: racePlans,
        rampMs: RAMP_SECONDS * 1000,
        windowMs: windowSeconds * 1000,
        trackEveryMs: TRACK_EVERY_S * 1000,
        seed,
      },
      (message) => {
        if (message === "window-start") edges.before = readCounters();
        else edges.after = readCounters();
      },
    );
    if (!edges.before || !edges.after) throw new Error(`${label}: the client process never reported its window`);
    const peaks = await Promise.all(instances.map((i) => i.snapshot(true)));
    // Let the phase's connections close and their timers lapse before the next one.
    await sleep(1000);
    return figures(label, await edges.before, await edges.after, peaks, result, count, targets.length);
  };

  const warm = await phase("warm-up", WARM_UP.clients, instances, WARM_UP.seconds, 1);
  const one = await phase(`${SMALL} clients, one instance`, SMALL, [a!], WINDOW_SECONDS, 2);
  const two = await phase(`${SMALL} clients, two instances`, SMALL, instances, WINDOW_SECONDS, 3);
  const many = await phase(`${LARGE.toLocaleString("en")} clients, two instances`, LARGE, instances, WINDOW_SECONDS, 4);
  clients.end();
  const loadAfter = os.loadavg();
  // The feed and the probe first: stopping the instances under them would count as failed calls.
  probing = false;
  await Promise.all(probes);
  await feed.stop();
  for (const instance of instances) await instance.stop();
  const logs = await Promise.all(instances.map((instance) => instance.logProblems()));

  // --- figures ---
  const cpu = os.cpus();
  const [[version]] = await adminPool.query<RowDataPacket[]>("SELECT VERSION() AS v");
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
  const rate = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
  // NaN (no request of that kind in the window) crosses IPC as null.
  const ms = (n: number | null) => (n === null || !Number.isFinite(n) ? "-" : n >= 100 ? n.toFixed(0) : n.toFixed(1));
  const pct = (n: number | null) => (n === null ? "?" : `${n.toFixed(0)}%`);
  const sum = (values: number[]) => values.reduce((x, y) => x + y, 0);
  const requestsPerS = (f: Figures) =>
    f.clients ? sum(ENDPOINTS.map((e) => f.clients!.endpoints[e].requests)) / (f.clients.windowMs / 1000) : 0;
  const cpuPerRequest = (f: Figures) => (sum(f.instanceCpu) * 10) / Math.max(1e-9, requestsPerS(f)); // ms of CPU per request, both instances
  const errors = (f: Figures) => {
    const parts: string[] = [];
    for (const e of ENDPOINTS) {
      const r = f.clients!.endpoints[e];
      for (const [status, n] of Object.entries(r.statuses)) if (status !== "200" && status !== "304") parts.push(`${e} ${status} x ${n}`);
      for (const [code, n] of Object.entries(r.failures)) parts.push(`${e} ${code} x ${n}`);
    }
    if (f.clients!.unfinished) parts.push(`${f.clients!.unfinished} unfinished after the drain`);
    return parts.length ? parts.join(", ") : "none";
  };
  const instanceList = (values: number[], format: (n: number) => string) =>
    values.map((v, i) => `${instances[i]!.name} ${format(v)}`).join(", ");
  const block = (tag: string, f: Figures) => {
    const c = f.clients!;
    const e = c.endpoints;
    const seconds = c.windowMs / 1000;
    const share304 = (r: EndpointResult) => `${(((r.statuses["304"] ?? 0) / Math.max(1, r.requests)) * 100).toFixed(0)}%`;
    return `${tag} ${f.label}${tag === "A" ? " (baseline)" : ""}
   requests   ${rate(requestsPerS(f))}/s: live ${rate(e.live.requests / seconds)}/s, insights ${rate(e.insights.requests / seconds)}/s, track ${rate(e.track.requests / seconds)}/s (${c.trackCatchUps} catch-ups; pages the overlay held already: ${c.trackPagesKept}); 304: ${share304(e.live)} of live, ${share304(e.insights)} of insights
   latency    live p50 ${ms(e.live.p50)} / p99 ${ms(e.live.p99)} ms; insights ${ms(e.insights.p50)} / ${ms(e.insights.p99)} ms; track page ${ms(e.track.p50)} / ${ms(e.track.p99)} ms (max ${ms(e.track.max)}); all ${ms(c.all.p50)} / ${ms(c.all.p99)} ms
   errors     ${errors(f)}; skipped ticks: live ${e.live.skipped}, insights ${e.insights.skipped}
   ingest     ${feedLine(f.feed)}
   database   the API's statements ${rate(sum(f.statements))}/s (${instanceList(f.statements, rate)}), SELECTs ${rate(sum(f.selects))}/s; whole server: Questions ${rate(f.questions)}/s, Com_select ${rate(f.comSelect)}/s
   CPU        ${instanceList(f.instanceCpu, (n) => `${n.toFixed(0)}%`)} of a core = ${cpuPerRequest(f).toFixed(3)} ms per request; mariadbd ${pct(f.mariadbCpu)}, redis ${pct(f.redisCpu)}, clients ${pct((c.cpuMs / c.windowMs) * 100)}, feed+probe+bench ${pct(f.benchCpu)};
              the machine ${pct(f.machineCpu)} of ${os.cpus().length * 100}% (other processes ${pct(others(f))})
   event loop p99 ${instanceList(f.instanceLoopP99, (n) => `${ms(n)} ms`)}, clients ${ms(c.loopP99Ms)} ms
   memory     peak RSS ${instanceList(f.peakRss, mib)}; peak heap in use ${instanceList(f.peakHeap, mib)}
   goals      ${goals(f)}
   validity   ${validity(f)}`;
  };
  /** Issue 14's goals for ingest under the overlay load, met or not in this phase. */
  const goals = (f: Figures) => {
    const verdict = (met: boolean, what: string) => `${what}: ${met ? "met" : "NOT met"}`;
    const live = f.clients!.endpoints.live.p99;
    return [
      verdict(live < GOALS.readP99Ms, `read (live) p99 ${ms(live)} < ${GOALS.readP99Ms} ms`),
      verdict(f.feed.ackP99 < GOALS.ackP99Ms, `ack p99 ${ms(f.feed.ackP99)} < ${GOALS.ackP99Ms} ms`),
      verdict(errors(f) === "none" && f.feed.failed === 0, "no errors"),
      verdict(f.feed.freshP99 <= GOALS.ackToLiveP99Ms, `ack to live p99 ${ms(f.feed.freshP99)} <= ${GOALS.ackToLiveP99Ms} ms`),
    ].join("; ");
  };
  /**
   * Whether the phase measured the service: the overlays, the feed and the service share
   * the machine's cores, and a latency includes the load generator's own event-loop delay.
   */
  const validity = (f: Figures) => {
    const reasons: string[] = [];
    const capacity = os.cpus().length * 100;
    if (f.machineCpu !== null && f.machineCpu >= SATURATED * capacity) reasons.push(`the machine at ${pct(f.machineCpu)} of ${capacity}%`);
    if (f.clients!.loopP99Ms > GOALS.readP99Ms) reasons.push(`the load generator's event loop p99 ${ms(f.clients!.loopP99Ms)} ms`);
    return reasons.length === 0
      ? "the machine had room and the load generator kept up: these are the service's figures"
      : `${reasons.join(" and ")}: the latencies above are the shared host's and the load generator's as much as the service's`;
  };
  const others = (f: Figures) =>
    // Measured over slightly different spans (and in whole clock ticks): about 0 may come out a little below.
    f.machineCpu === null
      ? null
      : Math.max(
          0,
          f.machineCpu -
            sum(f.instanceCpu) -
            (f.mariadbCpu ?? 0) -
            (f.redisCpu ?? 0) -
            f.benchCpu -
            (f.clients ? (f.clients.cpuMs / f.clients.windowMs) * 100 : 0),
        );
  const ratio = (x: number | null, y: number | null) =>
    x === null || y === null || !Number.isFinite(x / y) ? "-" : `x${(x / y).toFixed(2)}`;
  const statementsOf = (f: Figures) => sum(f.statements);

  console.log(`
Load: overlays on ${RACES} live races of ${GROUPS * BOATS} boats (${GROUPS} start groups x ${BOATS}) fed through IngestService, two API instances, one MariaDB, one Redis, ${WINDOW_SECONDS} s windows (${new Date().toISOString()})
machine: ${cpu[0]?.model.trim() ?? "?"}, ${cpu.length} cores, ${mib(os.totalmem())} RAM, Node ${process.version}, MariaDB ${String(version?.v)}; load average before ${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after ${loadAfter.map((l) => l.toFixed(2)).join(" ")}
set-up:  each instance \`race-api serve\` in its own process (LOG_LEVEL=${LOG_LEVEL} to a file, pool 10, REDIS_URL shared: one rate-limit budget);
         every overlay in one client process (node:http, a keep-alive agent per overlay, open loop); ${fixes.toLocaleString("en")} fixes imported,
         and each race is fed every second through IngestService over gRPC (one tracking:write client per club, races spread over A and B); live answer ${liveBytes.toLocaleString("en")} bytes (${liveBrBytes.toLocaleString("en")} br);
         ${CLUBS} clubs x ${TOKENS_PER_RACE} API clients = ${CLUBS * TOKENS_PER_RACE} tokens shared by the overlays, so each club's trackingRateLimitPerMinute is raised to
         ${CLUB_TRACKING_LIMIT.toLocaleString("en")} (one overlay makes ~64/min: ${LARGE.toLocaleString("en")} on ${CLUBS * TOKENS_PER_RACE} tokens make ~${Math.round((LARGE * 64) / (CLUBS * TOKENS_PER_RACE)).toLocaleString("en")}/min each); no deliberate 429s
mix:     per overlay live every 1 s, insights every 15 s (en/de/fr), track of one start group every ${TRACK_EVERY_S} s on average (10-minute
         pages from the capture start to the cut-off, immutable ones kept); If-None-Match and accept-encoding br/gzip as a browser;
         each start group's track paged once per instance before the phases (settled windows held, as a few minutes into an event);
         the first ${RAMP_SECONDS} s of each phase (connections opening) not counted; warm-up ${WARM_UP.clients} clients for ${WARM_UP.seconds} s: ${errors(warm) === "none" ? "no errors" : errors(warm)}
idle     (no clients, ${IDLE_SECONDS} s): ingest ${feedLine(idle.feed)};
         the API's statements ${rate(statementsOf(idle))}/s, whole server Questions ${rate(idle.questions)}/s, Com_select ${rate(idle.comSelect)}/s;
         CPU ${instanceList(idle.instanceCpu, (n) => `${n.toFixed(0)}%`)}, mariadbd ${pct(idle.mariadbCpu)}, feed+probe+bench ${pct(idle.benchCpu)}, the machine ${pct(idle.machineCpu)} (other processes ${pct(others(idle))}); RSS ${instanceList(idle.peakRss, mib)}${feedLog.firstError}
${block("A", one)}
${block("B", two)}
${block("C", many)}
ratios   B / A (a second instance, same load): live p50 ${ratio(two.clients!.endpoints.live.p50, one.clients!.endpoints.live.p50)}, p99 ${ratio(two.clients!.endpoints.live.p99, one.clients!.endpoints.live.p99)}; CPU per request ${ratio(cpuPerRequest(two), cpuPerRequest(one))}; the API's statements ${ratio(statementsOf(two), statementsOf(one))}
         C / B (${(LARGE / SMALL).toFixed(0)}x the clients): requests ${ratio(requestsPerS(many), requestsPerS(two))}; the API's statements ${ratio(statementsOf(many), statementsOf(two))}; live p50 ${ratio(many.clients!.endpoints.live.p50, two.clients!.endpoints.live.p50)}, p99 ${ratio(many.clients!.endpoints.live.p99, two.clients!.endpoints.live.p99)}; CPU per request ${ratio(cpuPerRequest(many), cpuPerRequest(two))}
logs     ${logs.map((l, i) => `${instances[i]!.name}: ${l}`).join("; ")}`);
}

const ENDPOINTS: readonly Endpoint[] = ["live", "insights", "track"];
/** Issue 14, "Measured": at 2,000 clients, while 20 races of 50 boats are fed at 1 Hz. */
const GOALS = { readP99Ms: 50, ackP99Ms: 100, ackToLiveP99Ms: 2500 };
/** A machine busier than this share of its cores has no room left to answer on time. */
const SATURATED = 0.9;

/** What the feed did, its acknowledgements (wall-clock ms) and the probe's ack-to-live times. */
interface FeedLog {
  acks: Array<{ atMs: number; ms: number }>;
  freshness: Array<{ atMs: number; ms: number }>;
  /** Acknowledged fixes the probe never saw within 30 s. */
  unseen: number;
  firstError: string;
}

interface FeedFigures {
  callsPerS: number;
  fixesPerS: number;
  failed: number;
  rejected: number;
  ackP50: number;
  ackP99: number;
  freshP50: number;
  freshP99: number;
  freshMax: number;
  freshSamples: number;
  unseen: number;
}

function feedFigures(log: FeedLog, before: Counters, after: Counters, seconds: number): FeedFigures {
  const inWindow = (samples: Array<{ atMs: number; ms: number }>) =>
    Float64Array.from(samples.filter((s) => s.atMs >= before.wallMs && s.atMs < after.wallMs).map((s) => s.ms)).sort();
  const acks = inWindow(log.acks);
  const fresh = inWindow(log.freshness);
  return {
    callsPerS: (after.feed.calls - before.feed.calls) / seconds,
    fixesPerS: (after.feed.accepted - before.feed.accepted) / seconds,
    failed: after.feed.failed - before.feed.failed,
    rejected: after.feed.rejected - before.feed.rejected,
    ackP50: percentile(acks, 50),
    ackP99: percentile(acks, 99),
    freshP50: percentile(fresh, 50),
    freshP99: percentile(fresh, 99),
    freshMax: fresh.length ? fresh[fresh.length - 1]! : NaN,
    freshSamples: fresh.length,
    unseen: log.unseen,
  };
}

function feedLine(f: FeedFigures): string {
  const ms = (n: number) => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(1)) : "-");
  return (
    `${f.callsPerS.toFixed(1)} calls/s, ${f.fixesPerS.toFixed(0)} fixes/s accepted; failed calls ${f.failed}, rejected fixes ${f.rejected}; ` +
    `AppendFixes ack p50 ${ms(f.ackP50)} / p99 ${ms(f.ackP99)} ms; ack to live answer p50 ${ms(f.freshP50)} / p99 ${ms(f.freshP99)} / max ${ms(f.freshMax)} ms (${f.freshSamples} probed, ${f.unseen} unseen so far)`
  );
}

/** One `race-api serve` process with its probe, asked one snapshot at a time. */
class Instance {
  private pending: Array<(snapshot: InstanceSnapshot) => void> = [];
  private exited: Promise<void>;

  private constructor(
    readonly name: string,
    readonly url: string,
    readonly grpcUrl: string,
    private readonly child: ChildProcess,
    private readonly logFile: string,
  ) {
    child.on("message", (message) => this.pending.shift()?.(message as InstanceSnapshot));
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
  }

  static async start(name: string, databaseUrl: string, redisUrl: string): Promise<Instance> {
    const [port, grpcPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    const logFile = `${os.tmpdir()}/race-api-bench-load-${process.pid}-${name}.log`;
    const log = openSync(logFile, "w");
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      [ROLE_VARIABLE]: "instance",
      DATABASE_URL: databaseUrl,
      HOST: "127.0.0.1",
      PORT: String(port),
      GRPC_PORT: String(grpcPort),
      METRICS_PORT: String(metricsPort),
      // Shared by both: a token either one issues is valid on the other.
      PUBLIC_BASE_URL: "http://127.0.0.1",
      REDIS_URL: redisUrl,
      LOG_LEVEL,
    };
    for (const variable of ["INSIGHTS_MODEL_URL", "INSIGHTS_MODEL", "INSIGHTS_MODEL_API_KEY", "DATABASE_READ_URL", "TRUST_PROXY"])
      delete env[variable];
    // PROFILE=DIR: a V8 CPU profile of each instance there, written when it stops.
    const profile = process.env.PROFILE ? ["--cpu-prof", "--cpu-prof-interval=4000", `--cpu-prof-dir=${process.env.PROFILE}`] : [];
    const execArgv = ["--import", "tsx", ...serverNodeFlags(), ...profile];
    const child = fork(fileURLToPath(import.meta.url), [], { env, execArgv, stdio: ["ignore", log, log, "ipc"] });
    closeSync(log);
    const instance = new Instance(name, `http://127.0.0.1:${port}`, `http://127.0.0.1:${grpcPort}`, child, logFile);
    process.stderr.write(`instance ${name}: Prometheus metrics at http://127.0.0.1:${metricsPort}/metrics\n`);
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`instance ${name} exited (${child.exitCode}); see ${logFile}`);
      const ready = await fetch(`${instance.url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) return instance;
      if (Date.now() > deadline) {
        await instance.stop();
        throw new Error(`instance ${name} not ready within 30 s; see ${logFile}`);
      }
      await sleep(100);
    }
  }

  snapshot(resetPeaks: boolean): Promise<InstanceSnapshot> {
    return new Promise((resolve) => {
      this.pending.push(resolve);
      this.child.send({ type: "snapshot", resetPeaks } satisfies ToInstance);
    });
  }

  /** SIGTERM, as a deployment stops it; SIGKILL after 10 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGTERM");
    const killed = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await this.exited;
    clearTimeout(killed);
  }

  /** Warnings and errors in the instance's log (pino levels 40+), then the log is removed. */
  async logProblems(): Promise<string> {
    let lines = 0;
    const problems = new Map<string, number>();
    for await (const line of createInterface({ input: createReadStream(this.logFile) })) {
      lines++;
      let entry: { level?: number; msg?: string };
      try {
        entry = JSON.parse(line) as { level?: number; msg?: string };
      } catch {
        problems.set(line.slice(0, 120), (problems.get(line.slice(0, 120)) ?? 0) + 1);
        continue;
      }
      if ((entry.level ?? 0) >= 40) problems.set(`${entry.level} ${entry.msg}`, (problems.get(`${entry.level} ${entry.msg}`) ?? 0) + 1);
    }
    if (problems.size > 0) return `${lines} lines, ${[...problems].map(([m, n]) => `${n} x "${m}"`).join(", ")} (kept in ${this.logFile})`;
    rmSync(this.logFile, { force: true });
    return `${lines} lines, no warnings or errors`;
  }
}

/** The client process, asked one phase at a time. */
class ClientProcess {
  private readonly child: ChildProcess;
  private listener: ((message: FromClients) => void) | null = null;
  private failed: ((error: Error) => void) | null = null;
  /** Settles once the process has loaded and waits for its first phase. */
  readonly ready: Promise<void>;

  constructor() {
    this.child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, [ROLE_VARIABLE]: "clients" },
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.once("message", () => resolve());
      this.child.once("exit", (code) => reject(new Error(`the client process exited (${code}) before it was ready`)));
    });
    this.child.on("message", (message) => this.listener?.(message as FromClients));
    this.child.once("exit", (code) => this.failed?.(new Error(`the client process exited (${code}) during a phase`)));
  }

  run(plan: Plan, onWindow: (edge: "window-start" | "window-end") => void): Promise<PhaseResult> {
    return new Promise((resolve, reject) => {
      this.failed = reject;
      this.listener = (message) => {
        if (message.type === "result") {
          this.listener = null;
          this.failed = null;
          resolve(message);
        } else if (message.type !== "ready") onWindow(message.type);
      };
      this.child.send({ type: "run", plan } satisfies ToClients);
    });
  }

  end(): void {
    if (this.child.connected) this.child.disconnect();
  }
}

// ===================================================================================
// An API instance: `race-api serve` with a probe.
// ===================================================================================

async function runInstance(): Promise<void> {
  let statements = 0;
  let selects = 0;
  const count = (message: unknown) => {
    statements++;
    const query = (message as { query?: unknown }).query;
    // The live read's unions start with a parenthesis.
    if (typeof query === "string" && /^[\s(]*(select|with)\b/i.test(query)) selects++;
  };
  diagnostics.subscribe("tracing:mysql2:query:start", count);
  diagnostics.subscribe("tracing:mysql2:execute:start", count);
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const memory = process.memoryUsage();
    peakRss = Math.max(peakRss, memory.rss);
    peakHeap = Math.max(peakHeap, memory.heapUsed);
    return memory;
  };
  setInterval(sample, 100).unref();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  process.on("message", (message: ToInstance) => {
    const memory = sample();
    const cpu = process.cpuUsage();
    process.send?.({
      type: "snapshot",
      cpuMs: (cpu.user + cpu.system) / 1000,
      statements,
      selects,
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      peakRss,
      peakHeap,
      loopP99Ms: loop.percentile(99) / 1e6,
    } satisfies InstanceSnapshot);
    if (message.resetPeaks) {
      peakRss = 0;
      peakHeap = 0;
      loop.reset();
    }
  });
  const { main } = await import("../src/commands/cli.js");
  process.exitCode = await main(["serve"]);
  if (process.connected) process.disconnect();
}

// ===================================================================================
// The client process: every overlay of a phase.
// ===================================================================================

class EndpointStats {
  readonly latencies: number[] = [];
  readonly statuses: Record<string, number> = {};
  readonly failures: Record<string, number> = {};
  bytes = 0;
  skipped = 0;

  result(): EndpointResult {
    const sorted = Float64Array.from(this.latencies).sort();
    return {
      requests: this.latencies.length,
      statuses: this.statuses,
      failures: this.failures,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.length ? sorted[sorted.length - 1]! : NaN,
      bytes: this.bytes,
      skipped: this.skipped,
    };
  }
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer | null;
}

interface PageInfo {
  nextSince: string | null;
  untilMs: number;
  dataAsOfMs: number;
}

/** The `since` of a catch-up's next page, or null when this page reached the cut-off (or the capture window's end). */
function nextPageSince(page: PageInfo): string | null {
  return page.nextSince === null || page.untilMs >= page.dataAsOfMs ? null : page.nextSince;
}

/** One phase of the load: the overlays, their schedules and what they saw. */
class PhaseRun {
  readonly stats: Record<Endpoint, EndpointStats> = {
    live: new EndpointStats(),
    insights: new EndpointStats(),
    track: new EndpointStats(),
  };
  readonly windowStart: number;
  readonly windowEnd: number;
  readonly random: () => number;
  stopped = false;
  inFlight = 0;
  trackCatchUps = 0;
  trackPagesKept = 0;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly plan: Plan) {
    const t0 = performance.now();
    this.windowStart = t0 + plan.rampMs;
    this.windowEnd = this.windowStart + plan.windowMs;
    this.random = mulberry32(plan.seed);
  }

  inWindow(at: number): boolean {
    return at >= this.windowStart && at < this.windowEnd;
  }

  /** Runs `task` at `at` (performance.now() time) unless the phase is over by then. */
  at(at: number, task: () => void): void {
    if (at >= this.windowEnd) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (!this.stopped) task();
      },
      Math.max(0, at - performance.now()),
    );
    this.timers.add(timer);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** One GET, recorded under `endpoint` when it started in the window; null on a transport failure. */
  async get(
    endpoint: Endpoint,
    agent: http.Agent,
    url: string,
    headers: Record<string, string>,
    keepBody: boolean,
  ): Promise<Answer | null> {
    const started = performance.now();
    const stats = this.stats[endpoint];
    const counted = this.inWindow(started);
    this.inFlight++;
    try {
      const answer = await get(agent, url, headers, keepBody);
      if (counted) {
        stats.latencies.push(answer.elapsedMs);
        stats.statuses[answer.status] = (stats.statuses[answer.status] ?? 0) + 1;
        stats.bytes += answer.bytes;
      }
      return answer;
    } catch (error) {
      if (counted) {
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        stats.latencies.push(performance.now() - started);
        stats.failures[code] = (stats.failures[code] ?? 0) + 1;
      }
      return null;
    } finally {
      this.inFlight--;
    }
  }
}

class Overlay {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: SOCKETS_PER_OVERLAY });
  private readonly etags = new Map<string, string>();
  /** Immutable track pages held, by URL, as a browser cache keeps them. */
  private readonly keptPages = new Map<string, PageInfo>();
  private readonly race: RacePlan;
  private readonly base: string;
  private readonly authorization: string;
  private readonly language: string;
  private liveBusy = false;
  private insightsBusy = false;
  private trackBusy = false;

  constructor(
    private readonly run: PhaseRun,
    index: number,
  ) {
    const { plan } = run;
    // Spread evenly: race by index, then instance, then token.
    this.race = plan.races[index % plan.races.length]!;
    const rest = Math.floor(index / plan.races.length);
    this.base = plan.targets[rest % plan.targets.length]!;
    this.authorization = `Bearer ${this.race.tokens[Math.floor(rest / plan.targets.length) % this.race.tokens.length]}`;
    let draw = run.random();
    this.language = LANGUAGES.find(([, share]) => (draw -= share) < 0)?.[0] ?? "en";
  }

  start(): void {
    const t0 = performance.now();
    this.every(t0 + this.run.random() * LIVE_EVERY_MS, LIVE_EVERY_MS, () => this.poll("live"));
    // In a steady state an overlay holds the insights' ETag of its last poll (up to 15 s
    // ago): it fetches them once while the phase ramps up, then polls on its schedule.
    this.run.at(t0 + this.run.random() * (this.run.plan.rampMs / 2), () => this.poll("insights"));
    this.every(t0 + this.run.random() * INSIGHTS_EVERY_MS, INSIGHTS_EVERY_MS, () => this.poll("insights"));
    this.nextTrack(t0);
  }

  close(): void {
    this.agent.destroy();
  }

  /** A fixed schedule from `first`, every `periodMs`, whatever the answers. */
  private every(first: number, periodMs: number, task: () => void): void {
    const tick = (k: number) =>
      this.run.at(first + k * periodMs, () => {
        task();
        tick(k + 1);
      });
    tick(0);
  }

  private poll(endpoint: "live" | "insights"): void {
    const busy = endpoint === "live" ? this.liveBusy : this.insightsBusy;
    if (busy) {
      if (this.run.inWindow(performance.now())) this.run.stats[endpoint].skipped++;
      return;
    }
    const url =
      endpoint === "live"
        ? `${this.base}/api/v1/races/${this.race.raceId}/live`
        : `${this.base}/api/v1/races/${this.race.raceId}/live/insights?lang=${this.language}`;
    const headers: Record<string, string> = { authorization: this.authorization, "accept-encoding": "br, gzip" };
    const etag = this.etags.get(url);
    if (etag) headers["if-none-match"] = etag;
    this.setBusy(endpoint, true);
    void this.run.get(endpoint, this.agent, url, headers, false).then((answer) => {
      this.setBusy(endpoint, false);
      const tag = answer?.headers.etag;
      if (answer?.status === 200 && typeof tag === "string") this.etags.set(url, tag);
    });
  }

  private setBusy(endpoint: "live" | "insights", busy: boolean): void {
    if (endpoint === "live") this.liveBusy = busy;
    else this.insightsBusy = busy;
  }

  /** The next catch-up after an exponential wait (a Poisson process per overlay). */
  private nextTrack(from: number): void {
    const wait = -Math.log(1 - this.run.random()) * this.run.plan.trackEveryMs;
    this.run.at(from + wait, () => void this.catchUp());
  }

  /** Pages one start group's track from its capture start, following nextSince, up to the cut-off. */
  private async catchUp(): Promise<void> {
    if (!this.trackBusy) {
      this.trackBusy = true;
      if (this.run.inWindow(performance.now())) this.run.trackCatchUps++;
      const group = this.race.groups[Math.floor(this.run.random() * this.race.groups.length)]!;
      let since = new Date(group.captureFromMs).toISOString();
      for (let page = 0; page < 40 && !this.run.stopped; page++) {
        const url = `${this.base}/api/v1/races/${this.race.raceId}/track?startGroupId=${group.id}&since=${encodeURIComponent(since)}`;
        let info = this.keptPages.get(url);
        if (info) {
          if (this.run.inWindow(performance.now())) this.run.trackPagesKept++;
        } else {
          const answer = await this.run.get(
            "track",
            this.agent,
            url,
            { authorization: this.authorization, "accept-encoding": "br, gzip" },
            true,
          );
          if (answer?.status !== 200) break;
          info = await pageInfo(answer);
          if (String(answer.headers["cache-control"]).includes("immutable")) this.keptPages.set(url, info);
        }
        const next = nextPageSince(info);
        if (next === null) break;
        since = next;
      }
      this.trackBusy = false;
    }
    this.nextTrack(performance.now());
  }
}

/**
 * One catch-up of a start group's track as the overlays make it (the same `since`
 * spelling and encodings), so that each instance holds the settled windows before the
 * phases, as it does a few minutes into a real event: a phase is a slice of a steady
 * state, and 15 s windows would otherwise be spent building windows that an hour of
 * overlays builds once. A window that settles during the run is still built in its phase.
 */
async function catchUpOnce(
  instance: { name: string; url: string },
  raceId: string,
  group: { id: string; captureFromMs: number },
  token: string,
) {
  let since: string | null = new Date(group.captureFromMs).toISOString();
  for (let page = 0; since !== null && page < 40; page++) {
    const path = `/api/v1/races/${raceId}/track?startGroupId=${group.id}&since=${encodeURIComponent(since)}`;
    const response = await fetch(`${instance.url}${path}`, {
      headers: { authorization: `Bearer ${token}`, "accept-encoding": "br, gzip" },
    });
    if (response.status !== 200) throw new Error(`${instance.name} ${path}: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { until: string; nextSince: string | null };
    since = nextPageSince({
      nextSince: body.nextSince,
      untilMs: Date.parse(body.until),
      dataAsOfMs: Date.parse(response.headers.get("x-data-as-of")!),
    });
  }
}

async function pageInfo(answer: Answer): Promise<PageInfo> {
  const head = await pageHead(answer.body!, String(answer.headers["content-encoding"] ?? "identity"));
  const page = JSON.parse(head) as { until: string; nextSince?: string | null };
  return {
    nextSince: page.nextSince ?? null,
    untilMs: Date.parse(page.until),
    dataAsOfMs: Date.parse(String(answer.headers["x-data-as-of"])),
  };
}

/**
 * A track page's fields before its boats, as JSON, decompressing only as far as they
 * reach. A browser would read the whole page, but here 2,000 overlays share the
 * server's two cores: inflating and parsing megabytes of track took a third of this
 * process's CPU.
 */
function pageHead(body: Buffer, encoding: string): Promise<string> {
  const inflater = encoding === "br" ? zlib.createBrotliDecompress() : encoding === "gzip" ? zlib.createGunzip() : null;
  const headOf = (text: string) => {
    const boatsAt = text.indexOf(',"boats":');
    return boatsAt < 0 ? null : `${text.slice(0, boatsAt)}}`;
  };
  if (!inflater) return Promise.resolve(headOf(body.toString("utf8")) ?? body.toString("utf8"));
  return new Promise((resolve, reject) => {
    let text = "";
    inflater.setEncoding("utf8");
    inflater.on("data", (chunk: string) => {
      text += chunk;
      const head = headOf(text);
      if (head !== null) {
        inflater.destroy();
        resolve(head);
      }
    });
    inflater.on("end", () => resolve(text));
    inflater.on("error", reject);
    inflater.end(body);
  });
}

function get(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
  keepBody: boolean,
): Promise<Answer & { bytes: number; elapsedMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (keepBody) chunks.push(chunk);
      });
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: keepBody ? Buffer.concat(chunks) : null,
          bytes,
          elapsedMs: performance.now() - started,
        }),
      );
      response.on("error", reject);
    });
    request.setTimeout(REQUEST_TIMEOUT_MS, () => request.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })));
    request.on("error", reject);
  });
}

function runClients(): void {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const send = (message: FromClients) => process.send?.(message);

  const runPhase = async (plan: Plan): Promise<PhaseResult> => {
    const run = new PhaseRun(plan);
    const overlays = Array.from({ length: plan.clients }, (_, i) => new Overlay(run, i));
    for (const overlay of overlays) overlay.start();
    let cpuAtStart = process.cpuUsage();
    await sleep(run.windowStart - performance.now());
    cpuAtStart = process.cpuUsage();
    loop.reset();
    send({ type: "window-start" });
    await sleep(run.windowEnd - performance.now());
    const cpu = process.cpuUsage(cpuAtStart);
    const loopP99Ms = loop.percentile(99) / 1e6;
    send({ type: "window-end" });
    const windowMs = performance.now() - run.windowStart;
    run.stop();
    const deadline = performance.now() + DRAIN_MS;
    while (run.inFlight > 0 && performance.now() < deadline) await sleep(20);
    for (const overlay of overlays) overlay.close();
    const endpoints = { live: run.stats.live.result(), insights: run.stats.insights.result(), track: run.stats.track.result() };
    const all = Float64Array.from([...run.stats.live.latencies, ...run.stats.insights.latencies, ...run.stats.track.latencies]).sort();
    return {
      type: "result",
      endpoints,
      all: { p50: percentile(all, 50), p99: percentile(all, 99) },
      windowMs,
      trackCatchUps: run.trackCatchUps,
      trackPagesKept: run.trackPagesKept,
      loopP99Ms,
      cpuMs: (cpu.user + cpu.system) / 1000,
      unfinished: run.inFlight,
    };
  };

  process.on("message", (message: ToClients) => {
    if (message.type === "run") void runPhase(message.plan).then(send);
  });
  process.once("disconnect", () => process.exit(0));
  send({ type: "ready" });
}

// --- helpers ---

/** Clock ticks per second of /proc/PID/stat's CPU times. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process, in clock ticks; null when it cannot be read. */
function cpuTicks(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** Busy clock ticks of all cores (everything but idle and iowait); null when /proc/stat cannot be read. */
function machineBusyTicks(): number | null {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return fields.reduce((x, y) => x + y, 0) - fields[3]! - fields[4]!;
  } catch {
    return null;
  }
}

/** The database server's process (its pid file, or the only mariadbd/mysqld running), for its CPU time. */
async function serverPid(pool: Pool): Promise<number | null> {
  try {
    const [[row]] = await pool.query<RowDataPacket[]>("SELECT @@pid_file AS f");
    const pid = Number(readFileSync(String(row?.f), "utf8").trim());
    if (pid > 0 && cpuTicks(pid) !== null) return pid;
  } catch {
    // not readable: look for it
  }
  return findProcess((cmdline) => /(^|\/)(mariadbd|mysqld)(\s|$)/.test(cmdline), true);
}

/** The pid of the one process whose command line matches (null if none or, with `only`, several). */
function findProcess(matches: (cmdline: string) => boolean, only = false): number | null {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (matches(readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim())) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found.length === 1 || (!only && found.length > 0) ? found[0]! : null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** Nearest-rank percentile of sorted values; NaN for none. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A small seeded generator: the same phase draws the same schedules. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Last, so the classes and functions above are initialised when it runs.
const role = process.env[ROLE_VARIABLE];
if (role === "instance") await runInstance();
else if (role === "clients") runClients();
else await runBench();
