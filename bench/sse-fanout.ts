// The live push stream under fan-out: 2,000 SSE subscribers to one live race, each
// figure against a baseline measured in the same run (these machines are noisy:
// compare ratios, quote medians):
//
//  (1) delivery latency of each new race-live state: arrival at the subscriber minus
//      the event's id (dataAsOf, the moment of the shared read, as delaySeconds is 0),
//      2,000 subscribers vs 1;
//  (2) database reads per second while they are subscribed (MariaDB's Com_select),
//      vs 1 subscriber and vs 1 client polling GET /live every second (goal: 2,000
//      subscribers cost the database what one poller costs);
//  (3) the server's heap and RSS per subscriber;
//  (4) how long until all 2,000 had their first event.
//
// The API runs in this process (node --expose-gc, so each memory reading follows a full
// collection); every client, the poller included, runs in one child process, so the
// server's memory and CPU figures are its own. Run: npm run bench:streams
// (SUBSCRIBERS=2000 and WINDOW_SECONDS=20 by default).

import { fork, type ChildProcess } from "node:child_process";
import http from "node:http";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { RowDataPacket } from "mysql2/promise";
import { simulateScenario, sliceScenario } from "../src/sim/index.js";
import { addBenchReader, BENCH_READER, type BenchRace, benchRace } from "./bench-race.js";
import { startCountedApi } from "./counted-api.js";
import { inProcessConfig } from "./in-process-config.js";
import { checkOpenFileLimit } from "./open-files.js";
import { fetchToken } from "./token.js";

const ROLE_VARIABLE = "SSE_FANOUT_ROLE";
const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 2000);
const WINDOW_SECONDS = Number(process.env.WINDOW_SECONDS ?? 20);
/** Longer than the 2 s shared read: the previous phase's read has expired and its producer has stopped. */
const PAUSE_MS = 2500;
const CLUB_TRACKING_LIMIT = 1_000_000;
const STREAMS_PER_CLIENT = 10_000;

// --- messages between the bench and its client process ---

type ToClients =
  | { type: "open"; url: string; authorization: string; count: number }
  | { type: "measure"; fromMs: number }
  | { type: "report"; untilMs: number }
  | { type: "poll"; url: string; authorization: string; seconds: number }
  | { type: "close" };

interface Opened {
  type: "opened";
  ok: number;
  failures: Record<string, number>;
  /** From the first request to the last subscriber's first event. */
  allFirstEventMs: number;
  firstEventMs: number[];
  sample: { bytes: number; boats: number; delaySeconds: number; raceId: string } | null;
}

interface Report {
  type: "report";
  latencies: number[];
  eventsPerSubscriber: number[];
  /** Distinct event ids that any subscriber received in the window: the changes sent. */
  distinctEvents: number;
  /** Time between consecutive changes (their ids, i.e. between their shared reads). */
  changeGapsMs: number[];
  /** Subscribers whose stream ended or failed while open. */
  lost: number;
  lostReasons: string[];
  /** The client process's own event-loop delay, part of every latency it measures. */
  clientLoopDelayP99Ms: number;
  /** Subscribers that had not yet received the window's last change when the report gave up waiting. */
  late: number;
}

interface Polled {
  type: "polled";
  requests: number;
  non200: number;
}

type FromClients = Opened | Report | Polled | { type: "closed" };

// ===================================================================================
// The bench: database, server, phases, figures.
// ===================================================================================

async function runBench(): Promise<void> {
  const gc = globalThis.gc;
  if (!gc) throw new Error("run with node --expose-gc (npm run bench:streams does): memory is read after a full collection");
  checkOpenFileLimit(SUBSCRIBERS + 500, "SUBSCRIBERS");

  // --- set-up: a fresh database with a race of 2 x 30 boats, 20 minutes after its gun ---
  const race = await benchRace(
    // One client opens every stream, and each open counts against its club's tracking bucket.
    (scenario) => addBenchReader(scenario, CLUB_TRACKING_LIMIT),
    (nowMs) =>
      sliceScenario(
        simulateScenario({ seed: "bench-sse", gunMs: nowMs - 20 * 60_000, startGroups: 2, boatsPerGroup: 30, delaySeconds: 0 }),
        null,
        nowMs,
      ),
  );
  try {
    await benchOn(race, gc);
  } finally {
    // Also when a phase fails: the bench databases are not left behind on the shared server.
    await race.drop();
  }
}

async function benchOn({ url, adminPool, scenario }: BenchRace, gc: () => void): Promise<void> {
  const raceId = scenario.events[0]!.races[0]!.id;

  // The default (10 streams per client) would refuse all but 10 of one client's streams.
  const config = inProcessConfig({ streamsPerClient: STREAMS_PER_CLIENT });
  const { api, runtime, selects: apiSelects, close } = await startCountedApi(url, config);

  const token = await fetchToken(api.httpUrl, BENCH_READER.clientId, BENCH_READER.clientSecret);
  const authorization = `Bearer ${token}`;
  const liveUrl = `${api.httpUrl}/api/v1/races/${raceId}/live`;
  const streamUrl = `${liveUrl}/stream`;

  const selects = async () => {
    const [[row]] = await adminPool.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Com_select'");
    return Number(row?.Value); // SHOW STATUS counts as Com_show_status, not Com_select
  };
  const serverLoop = monitorEventLoopDelay({ resolution: 10 });
  serverLoop.enable();

  interface Window {
    seconds: number;
    comSelectPerS: number;
    apiSelectsPerS: number;
    /** The API process's CPU time over the window, in % of one core. */
    serverCpuPct: number;
    serverLoopP99Ms: number;
  }
  /** Runs `during` (which must span the window) between two readings of the counters. */
  const measured = async <T>(during: () => Promise<T>): Promise<{ window: Window; result: T }> => {
    const comBefore = await selects();
    const apiBefore = apiSelects();
    const cpuBefore = process.cpuUsage();
    serverLoop.reset();
    const started = performance.now();
    const result = await during();
    const seconds = (performance.now() - started) / 1000;
    const comAfter = await selects();
    const cpu = process.cpuUsage(cpuBefore);
    return {
      window: {
        seconds,
        comSelectPerS: (comAfter - comBefore) / seconds,
        apiSelectsPerS: (apiSelects() - apiBefore) / seconds,
        serverCpuPct: ((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100,
        serverLoopP99Ms: serverLoop.percentile(99) / 1e6,
      },
      result,
    };
  };
  const waitForNoStreams = async () => {
    const deadline = Date.now() + 10_000;
    while (runtime.streams.size > 0 && Date.now() < deadline) await sleep(50);
    if (runtime.streams.size > 0) throw new Error(`${runtime.streams.size} streams still open on the server after the clients left`);
    await sleep(PAUSE_MS);
  };

  const clients = new ClientProcess();

  // --- baseline 1: one client polling GET /live every second ---
  await clients.ask({ type: "poll", url: liveUrl, authorization, seconds: 2 }, "polled"); // warm-up: JIT, caches, the client state
  await sleep(PAUSE_MS);
  const poller = await measured(() => clients.ask({ type: "poll", url: liveUrl, authorization, seconds: WINDOW_SECONDS }, "polled"));
  await sleep(PAUSE_MS);

  // --- baseline 2: one subscriber ---
  const oneOpened = await clients.ask({ type: "open", url: streamUrl, authorization, count: 1 }, "opened");
  if (oneOpened.ok !== 1) throw new Error(`the single subscriber did not open: ${JSON.stringify(oneOpened.failures)}`);
  await sleep(PAUSE_MS);
  const one = await measured(() => window(clients));
  await clients.ask({ type: "close" }, "closed");
  await waitForNoStreams();

  // --- the fan-out: SUBSCRIBERS at once ---
  const memoryBefore = memoryAfterGc(gc);
  const opened = await clients.ask({ type: "open", url: streamUrl, authorization, count: SUBSCRIBERS }, "opened");
  const openOnServer = runtime.streams.size;
  const memoryWith = memoryAfterGc(gc);
  // The full collection above stalls the loop: let a change or two go by before the window.
  await sleep(PAUSE_MS);
  const many = await measured(() => window(clients));
  await clients.ask({ type: "close" }, "closed");
  await waitForNoStreams();
  const memoryAfter = memoryAfterGc(gc);
  clients.end();

  // --- figures ---
  const sample = opened.sample ?? oneOpened.sample;
  if (sample && (sample.delaySeconds !== 0 || sample.raceId !== raceId))
    throw new Error(`unexpected first event: ${JSON.stringify(sample)}`);
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  const perSubscriber = (after: number, before: number) => `${((after - before) / Math.max(1, opened.ok) / 1024).toFixed(1)} KiB`;
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const failures =
    Object.entries(opened.failures)
      .map(([reason, n]) => `${n} x ${reason}`)
      .join(", ") || "none";
  const cpu = os.cpus();
  const gaps = (values: number[]) => (values.length ? `${Math.min(...values)}-${Math.max(...values)} ms (median ${median(values)})` : "-");
  const line = (label: string, w: Window) =>
    `    ${label.padEnd(33)}${w.comSelectPerS.toFixed(2).padStart(6)} SELECT/s   (the API's own: ${w.apiSelectsPerS.toFixed(2)}/s; API CPU ${w.serverCpuPct.toFixed(0)}% of a core)`;

  console.log(`
SSE fan-out: ${opened.ok.toLocaleString("en")} subscribers to one live race of ${sample?.boats ?? "?"} boats, ${WINDOW_SECONDS} s windows (${new Date().toISOString()})
machine: ${cpu[0]?.model.trim() ?? "?"}, ${cpu.length} cores, ${mib(os.totalmem())} RAM, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}
set-up:  the API in this process; every client (subscribers and the poller) in one child process over loopback HTTP/1.1;
         one API client opens every stream, so STREAMS_PER_CLIENT=${STREAMS_PER_CLIENT} and its club's trackingRateLimitPerMinute=${CLUB_TRACKING_LIMIT.toLocaleString("en")};
         events of ${sample?.bytes ?? "?"} bytes (live JSON, identity encoding), delaySeconds ${sample?.delaySeconds ?? "?"}
(1) delivery latency, arrival - id (dataAsOf = start of the shared read, so it includes the read itself)
    ${String(opened.ok).padStart(4)} subscribers  p50 ${ms(percentile(many.result.latencies, 50))}, p99 ${ms(percentile(many.result.latencies, 99))}, max ${ms(Math.max(...many.result.latencies))}   (${many.result.latencies.length} deliveries)
       1 subscriber   p50 ${ms(percentile(one.result.latencies, 50))}, p99 ${ms(percentile(one.result.latencies, 99))}   (baseline, ${one.result.latencies.length} deliveries)
    ratio p50 ${(percentile(many.result.latencies, 50) / Math.max(1, percentile(one.result.latencies, 50))).toFixed(1)}x, p99 ${(percentile(many.result.latencies, 99) / Math.max(1, percentile(one.result.latencies, 99))).toFixed(1)}x
    changes sent ${many.result.distinctEvents} (1 subscriber: ${one.result.distinctEvents}), ${gaps(many.result.changeGapsMs)} apart; events per subscriber min ${Math.min(...many.result.eventsPerSubscriber)} / median ${median(many.result.eventsPerSubscriber)}; lost streams ${many.result.lost}${many.result.lost ? ` (${many.result.lostReasons.join("; ")})` : ""}; late ${many.result.late}
    event-loop delay p99: API ${ms(many.window.serverLoopP99Ms)}, client process ${ms(many.result.clientLoopDelayP99Ms)} (the latter inflates every latency)
(2) database reads per second (Com_select of the whole MariaDB server, which other work may share)
${line("1 poller (GET /live every 1 s)", poller.window)}   ${poller.result.requests} requests, ${poller.result.non200} non-200
${line("1 subscriber", one.window)}
${line(`${opened.ok} subscribers`, many.window)}
    ratio ${opened.ok} subscribers / 1 poller   ${(many.window.comSelectPerS / poller.window.comSelectPerS).toFixed(2)}   (the API's own: ${(many.window.apiSelectsPerS / poller.window.apiSelectsPerS).toFixed(2)}; goal: ~1)
(3) API process memory after a full GC: heap in use / RSS
    before the ${opened.ok}       ${mib(memoryBefore.heapUsed)} / ${mib(memoryBefore.rss)}
    with them open        ${mib(memoryWith.heapUsed)} / ${mib(memoryWith.rss)}   (${openOnServer} streams open on the server)
    per subscriber        ${perSubscriber(memoryWith.heapUsed, memoryBefore.heapUsed)} heap, ${perSubscriber(memoryWith.rss, memoryBefore.rss)} RSS (external buffers ${perSubscriber(memoryWith.external, memoryBefore.external)})
    after they left       ${mib(memoryAfter.heapUsed)} / ${mib(memoryAfter.rss)}
(4) connect: ${SUBSCRIBERS} opened at once; ${opened.ok} streaming, failures ${failures};
    all had their first event after ${ms(opened.allFirstEventMs)} (per subscriber p50 ${ms(percentile(opened.firstEventMs, 50))}, p99 ${ms(percentile(opened.firstEventMs, 99))})`);

  await close();
}

/** Collects deliveries for one window, counted by event id, so the window is the same for every subscriber. */
async function window(clients: ClientProcess): Promise<Report> {
  const fromMs = Date.now();
  await clients.ask({ type: "measure", fromMs }, null);
  await sleep(WINDOW_SECONDS * 1000);
  return clients.ask({ type: "report", untilMs: Date.now() }, "report");
}

function memoryAfterGc(gc: () => void): NodeJS.MemoryUsage {
  // Twice: the first collection's finalisers can free more.
  gc();
  gc();
  return process.memoryUsage();
}

/** The client process, asked one thing at a time. */
class ClientProcess {
  private readonly child: ChildProcess;
  private waiting: { answer: (message: FromClients) => void; fail: (error: Error) => void } | null = null;

  constructor() {
    this.child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, [ROLE_VARIABLE]: "clients" },
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.child.on("message", (message) => {
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.answer(message as FromClients);
    });
    this.child.once("exit", (code) => this.waiting?.fail(new Error(`the client process exited (${code}) while the bench waited for it`)));
  }

  /** Sends `message` and waits for the answer of type `expect` (null: do not wait). */
  ask<K extends FromClients["type"]>(message: ToClients, expect: K): Promise<Extract<FromClients, { type: K }>>;
  ask(message: ToClients, expect: null): Promise<void>;
  // biome-ignore lint/suspicious/noConfusingVoidType: a message that expects no answer resolves with nothing.
  ask(message: ToClients, expect: FromClients["type"] | null): Promise<FromClients | void> {
    if (expect === null) {
      this.child.send(message);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.waiting = {
        answer: (answer) => (answer.type === expect ? resolve(answer) : reject(new Error(`expected ${expect}, got ${answer.type}`))),
        fail: reject,
      };
      this.child.send(message);
    });
  }

  end(): void {
    this.child.disconnect();
  }
}

// ===================================================================================
// The client process: raw node:http SSE subscribers and the poller.
// ===================================================================================

interface Subscriber {
  startedMs: number;
  firstEventMs: number | null;
  lastId: number;
  /** [id, latency ms] of each event since the window began. */
  events: Array<[number, number]>;
  request: http.ClientRequest;
  ended: string | null;
}

function runClients(): void {
  // No keep-alive and no socket cap: each stream is its own connection, as with separate viewers.
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let subscribers: Subscriber[] = [];
  let windowFromMs = Infinity;
  let closing = false;
  let sample: Opened["sample"] = null;
  const failures: Record<string, number> = {};
  const send = (message: FromClients) => process.send?.(message);

  const subscribe = (url: string, authorization: string, index: number): Subscriber => {
    const request = http.get(url, { agent, headers: { authorization, accept: "text/event-stream" } });
    const subscriber: Subscriber = { startedMs: Date.now(), firstEventMs: null, lastId: 0, events: [], request, ended: null };
    const end = (reason: string) => {
      if (subscriber.ended === null && !closing) subscriber.ended = reason;
    };
    request.on("error", (error) => end((error as NodeJS.ErrnoException).code ?? error.message));
    request.on("response", (response) => {
      if (response.statusCode !== 200) {
        end(`HTTP ${response.statusCode}`);
        response.resume();
        return;
      }
      response.setEncoding("utf8");
      let buffer = "";
      response.on("data", (chunk: string) => {
        const arrived = Date.now();
        buffer += chunk;
        let boundary: number;
        while ((boundary = buffer.indexOf("\n\n")) !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          // `retry:` and `: heartbeat` carry no state; the server writes `id:` first, then `event:`.
          if (!block.startsWith("id: ")) {
            if (block.startsWith("event: error")) end(`error event ${block.slice(block.indexOf("data: ") + 6, 200)}`);
            continue;
          }
          const lines = block.split("\n", 3);
          if (lines[1] !== "event: live") continue;
          const id = Number(lines[0]!.slice(4));
          subscriber.firstEventMs ??= arrived;
          subscriber.lastId = id;
          if (id >= windowFromMs) subscriber.events.push([id, arrived - id]);
          if (index === 0 && sample === null) {
            const data = lines[2]!.slice("data: ".length);
            const live = JSON.parse(data) as { raceId: string; delaySeconds: number; startGroups: Array<{ boats: unknown[] }> };
            sample = {
              bytes: Buffer.byteLength(block) + 2,
              boats: live.startGroups.reduce((n, group) => n + group.boats.length, 0),
              delaySeconds: live.delaySeconds,
              raceId: live.raceId,
            };
          }
        }
      });
      response.on("end", () => end("the server ended the stream"));
      response.on("close", () => end("closed"));
    });
    return subscriber;
  };

  const open = async (message: Extract<ToClients, { type: "open" }>) => {
    closing = false;
    windowFromMs = Infinity;
    sample = null;
    for (const key of Object.keys(failures)) delete failures[key];
    const started = Date.now();
    subscribers = Array.from({ length: message.count }, (_, i) => subscribe(message.url, message.authorization, i));
    const deadline = started + 60_000;
    while (subscribers.some((s) => s.firstEventMs === null && s.ended === null) && Date.now() < deadline) await sleep(20);
    const ok = subscribers.filter((s) => s.firstEventMs !== null && s.ended === null);
    for (const s of subscribers)
      if (s.firstEventMs === null)
        failures[s.ended ?? "no first event within 60 s"] = (failures[s.ended ?? "no first event within 60 s"] ?? 0) + 1;
    send({
      type: "opened",
      ok: ok.length,
      failures: { ...failures },
      allFirstEventMs: Math.max(0, ...ok.map((s) => s.firstEventMs! - started)),
      firstEventMs: ok.map((s) => s.firstEventMs! - s.startedMs),
      sample,
    });
  };

  const report = async (untilMs: number) => {
    // Every change read before untilMs counts, wherever it is on its way: wait until each
    // open subscriber has had the first one after it (or 10 s), then count by id.
    const deadline = Date.now() + 10_000;
    const behind = () => subscribers.filter((s) => s.ended === null && s.lastId < untilMs);
    while (behind().length > 0 && Date.now() < deadline) await sleep(20);
    const inWindow = subscribers.map((s) => s.events.filter(([id]) => id < untilMs));
    const live = subscribers.filter((s) => s.firstEventMs !== null);
    const lost = live.filter((s) => s.ended !== null);
    const ids = [...new Set(inWindow.flatMap((events) => events.map(([id]) => id)))].sort((a, b) => a - b);
    send({
      type: "report",
      latencies: inWindow.flatMap((events) => events.map(([, latency]) => latency)),
      eventsPerSubscriber: inWindow.map((events) => events.length),
      distinctEvents: ids.length,
      changeGapsMs: ids.slice(1).map((id, i) => id - ids[i]!),
      lost: lost.length,
      lostReasons: [...new Set(lost.map((s) => s.ended!))].slice(0, 3),
      clientLoopDelayP99Ms: loop.percentile(99) / 1e6,
      late: behind().length,
    });
  };

  const poll = async (message: Extract<ToClients, { type: "poll" }>) => {
    // A poller keeps its connection, as a browser or an overlay would.
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let requests = 0;
    let non200 = 0;
    const started = Date.now();
    for (let k = 0; k < message.seconds; k++) {
      await sleep(started + k * 1000 - Date.now());
      const status = await new Promise<number>((resolve, reject) => {
        http
          .get(message.url, { agent: keepAlive, headers: { authorization: message.authorization } }, (response) => {
            response.resume();
            response.on("end", () => resolve(response.statusCode ?? 0));
          })
          .on("error", reject);
      });
      requests++;
      if (status !== 200) non200++;
    }
    // The window is the whole number of seconds, however long the last request took.
    await sleep(started + message.seconds * 1000 - Date.now());
    keepAlive.destroy();
    send({ type: "polled", requests, non200 });
  };

  process.on("message", (message: ToClients) => {
    switch (message.type) {
      case "open":
        void open(message);
        break;
      case "measure":
        windowFromMs = message.fromMs;
        loop.reset();
        break;
      case "report":
        void report(message.untilMs);
        break;
      case "poll":
        void poll(message);
        break;
      case "close":
        closing = true;
        for (const s of subscribers) s.request.destroy();
        subscribers = [];
        send({ type: "closed" });
        break;
    }
  });
  process.once("disconnect", () => {
    agent.destroy();
    process.exit(0);
  });
}

// --- helpers ---

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Nearest-rank percentile; NaN for no values. */
function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

// Last, so the class and functions above are initialised when it runs.
if (process.env[ROLE_VARIABLE] === "clients") runClients();
else await runBench();
