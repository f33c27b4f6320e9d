// Replay streams under fan-out: VIEWERS SSE viewers of one race replaying it at SPEED x,
// against the same number of live viewers of it in the same run (these machines are
// noisy: compare ratios):
//
//  (1) database reads per second (MariaDB's Com_select, and the API's own SELECTs
//      counted at its pool): the goal is reads shared by the viewers, not one per
//      viewer: one read per replayed moment (2 s of race time), however many watch;
//  (2) the API process's CPU (utime + stime from /proc/PID/stat) per delivered event,
//      replay vs live;
//  (3) heap per kept past-moment boat, after a full collection (the bound of past-live.ts).
//
// The API runs in this process (node --expose-gc); every viewer runs in one child
// process over loopback HTTP/1.1, so the CPU figures are the API's own. Run:
// npm run bench:replay (VIEWERS=500, SPEED=10, WINDOW_SECONDS=20 by default).

import { fork, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { fileURLToPath } from "node:url";
import type { RowDataPacket } from "mysql2/promise";
import { simulateScenario, sliceScenario } from "../src/sim/index.js";
import { registry } from "../src/telemetry/metrics.js";
import { addBenchReader, BENCH_READER, type BenchRace, benchRace } from "./bench-race.js";
import { startCountedApi } from "./counted-api.js";
import { inProcessConfig } from "./in-process-config.js";
import { checkOpenFileLimit } from "./open-files.js";
import { fetchToken } from "./token.js";

const ROLE_VARIABLE = "REPLAY_BENCH_ROLE";
const VIEWERS = Number(process.env.VIEWERS ?? 500);
const SPEED = Number(process.env.SPEED ?? 10);
const WINDOW_SECONDS = Number(process.env.WINDOW_SECONDS ?? 20);
const PAUSE_MS = 2500;

type ToClients = { type: "open"; url: string; authorization: string; count: number } | { type: "count" } | { type: "close" };
type FromClients =
  | { type: "opened"; ok: number; failures: string[] }
  | { type: "counted"; events: number; lost: number }
  | { type: "closed" };

async function runBench(): Promise<void> {
  const gc = globalThis.gc;
  if (!gc) throw new Error("run with node --expose-gc (npm run bench:replay does)");
  checkOpenFileLimit(VIEWERS + 500, "VIEWERS");
  // A race of 2 x 30 boats, an hour after its gun: the replay starts 50 minutes back.
  const race = await benchRace(
    (scenario) => addBenchReader(scenario, 1_000_000),
    (nowMs) =>
      sliceScenario(
        simulateScenario({ seed: "bench-replay", gunMs: nowMs - 60 * 60_000, startGroups: 2, boatsPerGroup: 30, delaySeconds: 0 }),
        null,
        nowMs,
      ),
  );
  try {
    await benchOn(race, gc);
  } finally {
    await race.drop();
  }
}

async function benchOn({ url, adminPool, scenario, nowMs: now }: BenchRace, gc: () => void): Promise<void> {
  const raceId = scenario.events[0]!.races[0]!.id;

  const config = inProcessConfig({ streamsPerClient: 100_000 });
  const { api, runtime, selects: apiSelects, close } = await startCountedApi(url, config);
  const authorization = `Bearer ${await fetchToken(api.httpUrl, BENCH_READER.clientId, BENCH_READER.clientSecret)}`;
  const streamUrl = `${api.httpUrl}/api/v1/races/${raceId}/live/stream`;
  const comSelect = async () => Number((await adminPool.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Com_select'"))[0][0]?.Value);

  interface Phase {
    label: string;
    viewers: number;
    events: number;
    lost: number;
    comSelectPerS: number;
    apiSelectsPerS: number;
    cpuSeconds: number;
  }
  const clients = new ClientProcess();
  const phase = async (label: string, query: string, viewers: number): Promise<Phase> => {
    const opened = await clients.ask({ type: "open", url: `${streamUrl}${query}`, authorization, count: viewers }, "opened");
    if (opened.ok !== viewers) throw new Error(`${label}: ${opened.ok} of ${viewers} opened (${opened.failures.slice(0, 3).join("; ")})`);
    await sleep(PAUSE_MS);
    await clients.ask({ type: "count" }, "counted");
    const [comBefore, apiBefore, cpuBefore, started] = [await comSelect(), apiSelects(), cpuSeconds(), performance.now()];
    await sleep(WINDOW_SECONDS * 1000);
    const counted = await clients.ask({ type: "count" }, "counted");
    const seconds = (performance.now() - started) / 1000;
    const result = {
      label,
      viewers,
      events: counted.events,
      lost: counted.lost,
      cpuSeconds: cpuSeconds() - cpuBefore,
      comSelectPerS: ((await comSelect()) - comBefore) / seconds,
      apiSelectsPerS: (apiSelects() - apiBefore) / seconds,
    };
    await clients.ask({ type: "close" }, "closed");
    while (runtime.streams.size > 0) await sleep(50);
    await sleep(PAUSE_MS);
    return result;
  };

  const from = new Date(now - 50 * 60_000).toISOString();
  const replayQuery = `?from=${from}&speed=${SPEED}`;
  await phase("warm-up", "", 5);
  const live = await phase(`${VIEWERS} live viewers`, "", VIEWERS);
  const oneReplay = await phase(`1 replay viewer at ${SPEED}x`, `?from=${new Date(now - 40 * 60_000).toISOString()}&speed=${SPEED}`, 1);
  const heapBefore = heapAfterGc(gc);
  const keptBefore = await keptAnswers();
  const replay = await phase(`${VIEWERS} replay viewers at ${SPEED}x`, replayQuery, VIEWERS);
  const keptBoats = ((await keptAnswers()) - keptBefore) * 60;
  const heapPerKeptBoat = (heapAfterGc(gc) - heapBefore) / Math.max(1, keptBoats);
  clients.end();

  const line = (p: Phase) =>
    `    ${p.label.padEnd(30)} ${p.comSelectPerS.toFixed(1).padStart(6)} Com_select/s (the API's own ${p.apiSelectsPerS.toFixed(1)}/s)   ${String(p.events).padStart(7)} events, ${(p.events / WINDOW_SECONDS).toFixed(0)}/s, lost ${p.lost}   CPU ${p.cpuSeconds.toFixed(2)} s = ${((p.cpuSeconds / Math.max(1, p.events)) * 1e6).toFixed(0)} µs/event`;
  const perEvent = (p: Phase) => p.cpuSeconds / Math.max(1, p.events);
  const cpu = os.cpus();
  console.log(`
Replay fan-out: one race of 60 boats, ${WINDOW_SECONDS} s windows (${new Date().toISOString()})
machine: ${cpu[0]?.model.trim() ?? "?"}, ${cpu.length} cores, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}
set-up: the API in this process, every viewer in one child process (SSE over loopback); delaySeconds 0; replays from ${from}
(1) database reads and (2) the API's CPU (/proc/${process.pid}/stat utime+stime) per delivered event
${line(live)}
${line(oneReplay)}
${line(replay)}
    replay reads per moment: ${(replay.apiSelectsPerS / (SPEED / 2)).toFixed(1)} SELECTs per 2 s of race time (one live read is 6); unshared, ${VIEWERS} viewers would make ${((VIEWERS * SPEED) / 2).toFixed(0)} reads/s
    ratio of database reads, ${VIEWERS} replay viewers / 1 replay viewer: ${(replay.apiSelectsPerS / Math.max(0.01, oneReplay.apiSelectsPerS)).toFixed(2)} (goal: ~1)
    CPU per delivered event, replay / live: ${(perEvent(replay) / perEvent(live)).toFixed(2)}
(3) heap per kept past-moment boat: ${(heapPerKeptBoat / 1024).toFixed(2)} KiB (${keptBoats} boats kept during the replay phase)`);

  await close();
}

/** This process's CPU seconds so far, user and system, as /proc/PID/stat counts them. */
function cpuSeconds(): number {
  const fields = readFileSync(`/proc/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // Fields 14 and 15 (utime, stime), counted from the state (field 3) at index 0.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function keptAnswers(): Promise<number> {
  const metric = await registry.getSingleMetric("race_api_shared_read_keys")!.get();
  return metric.values.find((v) => v.labels.cache === "live_past_settled")?.value ?? 0;
}

function heapAfterGc(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

class ClientProcess {
  private readonly child: ChildProcess;
  private waiting: ((message: FromClients) => void) | null = null;

  constructor() {
    this.child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, [ROLE_VARIABLE]: "clients" },
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.child.on("message", (message) => {
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.(message as FromClients);
    });
  }

  ask<K extends FromClients["type"]>(message: ToClients, expect: K): Promise<Extract<FromClients, { type: K }>> {
    return new Promise((resolve, reject) => {
      this.waiting = (answer) =>
        answer.type === expect ? resolve(answer as Extract<FromClients, { type: K }>) : reject(new Error(`got ${answer.type}`));
      this.child.send(message);
    });
  }

  end(): void {
    this.child.disconnect();
  }
}

/** The viewers: raw node:http SSE readers counting `event: live` blocks. */
function runClients(): void {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  let requests: http.ClientRequest[] = [];
  let events = 0;
  let lost = 0;
  let closing = false;
  const send = (message: FromClients) => process.send?.(message);

  const open = async (message: Extract<ToClients, { type: "open" }>) => {
    closing = false;
    const failures: string[] = [];
    let first = 0;
    requests = Array.from({ length: message.count }, () => {
      let started = false;
      const request = http.get(message.url, { agent, headers: { authorization: message.authorization, accept: "text/event-stream" } });
      request.on("error", (error) => (closing ? undefined : failures.push(error.message)));
      request.on("response", (response) => {
        if (response.statusCode !== 200) failures.push(`HTTP ${response.statusCode}`);
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          const count = chunk.split("\nevent: live\n").length - 1;
          events += count;
          if (count > 0 && !started) {
            started = true;
            first++;
          }
        });
        response.on("close", () => (closing ? undefined : lost++));
      });
      return request;
    });
    const deadline = Date.now() + 60_000;
    while (first + failures.length < message.count && Date.now() < deadline) await sleep(20);
    send({ type: "opened", ok: first, failures });
  };

  process.on("message", (message: ToClients) => {
    if (message.type === "open") void open(message);
    else if (message.type === "count") {
      send({ type: "counted", events, lost });
      events = 0;
      lost = 0;
    } else {
      closing = true;
      for (const request of requests) request.destroy();
      requests = [];
      send({ type: "closed" });
    }
  });
  process.once("disconnect", () => {
    agent.destroy();
    process.exit(0);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

if (process.env[ROLE_VARIABLE] === "clients") runClients();
else await runBench();
