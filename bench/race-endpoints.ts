// The race endpoints under load, each against a baseline measured in the same run
// (these machines are noisy: compare ratios, quote medians):
//
//  (a) the cached live endpoint over REST vs a bare Fastify route sending the same
//      bytes with the same headers: requests/s and p99 latency, 50 connections
//      (goal: ratio >= 0.6, aim 0.9);
//  (b) an uncached 10-minute track page of 100 boats over REST vs the plain mysql2
//      query of the same rows (goal: ratio <= 1.2);
//  (c) SELECTs the database runs while 200 clients poll one live race (goal: one
//      live read per 2 s);
//  (d) the server process's peak memory;
//  (e) cached live insights over REST vs the same bare route;
//  (f) CPU time of the API's process per request of (a), (b), (e) and (g), from
//      /proc/self/stat (user + system): what a change to the request path costs,
//      however busy the shared machine is (compare runs of the same session);
//  (g) cached race analytics over REST vs cached live, rounds alternating (goal: ratio
//      >= 0.9), and (h) the analytics refreshes while 200 clients poll them (goal: one
//      per race per 2 s), counted as (c) counts live reads.
//
// Three processes: the API runs in this one (with the plain queries of (b)), the bare
// route in a child of its own (bare-route.ts), the load generator (autocannon) in
// another. Rounds alternate bare and API; medians of the rounds are compared.
// Run: npm run bench   (ROUNDS=5 for more rounds)

import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { RowDataPacket } from "mysql2/promise";
import { pino } from "pino";
import { createRuntime, servingPoolOptions } from "../src/composition/runtime.js";
import { startServer } from "../src/composition/server.js";
import { registry } from "../src/telemetry/metrics.js";
import { createPool } from "../src/store/pool.js";
import { startBareRoute } from "./bare-route.js";
import { addBenchReader, BENCH_READER, benchRace } from "./bench-race.js";
import { inProcessConfig } from "./in-process-config.js";
import { fetchToken } from "./token.js";

const run = promisify(execFile);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const AUTOCANNON = fileURLToPath(new URL("../node_modules/.bin/autocannon", import.meta.url));

// --- set-up: a fresh database with a race of 100 boats, 40 minutes after its gun ---
// The load comes from one client: its club's tracking bucket is raised so the bench measures the endpoint, not the 429s.
const { url, adminPool, scenario: race, drop } = await benchRace((race) => addBenchReader(race, 1_000_000_000));
const raceId = race.events[0]!.races[0]!.id;
const group = race.events[0]!.races[0]!.startGroups[0]!;

const config = inProcessConfig();
const pool = createPool(url, servingPoolOptions(config));
const runtime = await createRuntime(config, pool, pino({ level: "silent" }));
const api = await startServer(config, runtime);
const rssBeforeLoad = process.memoryUsage().rss;
let peakRss = 0;
let peakHeap = 0;
const sampler = setInterval(() => {
  const memory = process.memoryUsage();
  peakRss = Math.max(peakRss, memory.rss);
  peakHeap = Math.max(peakHeap, memory.heapUsed);
}, 100);
const phasePeaks: string[] = [];
/** Notes the peak so far under `phase`'s name. */
const notePeak = (phase: string) => phasePeaks.push(`${phase} ${(peakRss / 1024 / 1024).toFixed(0)} MiB`);

const token = await fetchToken(api.httpUrl, BENCH_READER.clientId, BENCH_READER.clientSecret);
const auth = `Bearer ${token}`;
const liveUrl = `${api.httpUrl}/api/v1/races/${raceId}/live`;

// The bare baseline: the same bytes and headers (content type, validators, cache, rate
// limit, trace id) from a route that does nothing else, in a process of its own.
const sample = await fetch(liveUrl, { headers: { authorization: auth, "accept-encoding": "identity" } });
if (sample.status !== 200) throw new Error(`live answered ${sample.status}: ${await sample.text()}`);
const liveBytes = Buffer.from(await sample.arrayBuffer());
const PER_CONNECTION = new Set(["date", "content-length", "connection", "keep-alive", "transfer-encoding"]);
const liveHeaders = Object.fromEntries([...sample.headers].filter(([name]) => !PER_CONNECTION.has(name)));
const bare = await startBareRoute(liveBytes, liveHeaders);
const bareUrl = bare.url;

interface Load {
  rps: number;
  p99: number;
  non2xx: number;
  /** CPU seconds this process (the API's) spent per request of the load. */
  cpuPerRequest: number;
}

const TICKS_PER_SECOND = 100;
/** CPU seconds (user + system) this process has used: /proc/self/stat fields 14 and 15, in clock ticks. */
function cpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

async function load(target: string, connections: number, seconds: number): Promise<Load> {
  const cpuBefore = cpuSeconds();
  const { stdout } = await run(
    AUTOCANNON,
    ["-j", "-c", String(connections), "-d", String(seconds), "-H", `authorization=${auth}`, target],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const cpu = cpuSeconds() - cpuBefore;
  const result = JSON.parse(stdout) as { requests: { average: number; total: number }; latency: { p99: number }; non2xx: number };
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx, cpuPerRequest: cpu / result.requests.total };
}

// --- (a) cached live vs the bare route ---
const liveRuns: Load[] = [];
const bareRuns: Load[] = [];
// One unrecorded round each first: both servers' hot code is still being compiled by V8
// during the first seconds, which would make round 1 measure the JIT, not the request.
await load(bareUrl, 50, 3);
await load(liveUrl, 50, 3);
for (let round = 1; round <= ROUNDS; round++) {
  bareRuns.push(await load(bareUrl, 50, 5));
  liveRuns.push(await load(liveUrl, 50, 5));
  console.log(
    `(a) round ${round}: live ${liveRuns.at(-1)!.rps.toFixed(0)} req/s p99 ${liveRuns.at(-1)!.p99} ms; bare ${bareRuns.at(-1)!.rps.toFixed(0)} req/s p99 ${bareRuns.at(-1)!.p99} ms`,
  );
}

notePeak("after (a)");

// --- (e) cached insights vs the bare route (the first call generates; the rest are cached until the next minute) ---
const insightsUrl = `${api.httpUrl}/api/v1/races/${raceId}/live/insights?lang=en`;
const firstInsights = await fetch(insightsUrl, { headers: { authorization: auth } });
const insightCount = ((await firstInsights.json()) as { insights: unknown[] }).insights.length;
const insightsRuns: Load[] = [];
for (let round = 1; round <= ROUNDS; round++) insightsRuns.push(await load(insightsUrl, 50, 5));

// --- (g) cached analytics vs cached live, alternating ---
const analyticsUrl = `${api.httpUrl}/api/v1/races/${raceId}/analytics`;
const firstAnalytics = await fetch(analyticsUrl, { headers: { authorization: auth } });
if (firstAnalytics.status !== 200) throw new Error(`analytics answered ${firstAnalytics.status}: ${await firstAnalytics.text()}`);
const analyticsBytes = (await firstAnalytics.arrayBuffer()).byteLength;
const analyticsRuns: Load[] = [];
const liveBesideRuns: Load[] = [];
await load(analyticsUrl, 50, 3);
for (let round = 1; round <= ROUNDS; round++) {
  liveBesideRuns.push(await load(liveUrl, 50, 5));
  analyticsRuns.push(await load(analyticsUrl, 50, 5));
}

notePeak("after (g)");

// --- (c) SELECTs while 200 clients poll one race; (h) analytics refreshes while 200 clients poll them ---
// SELECTs are the server's global count: another database's work on the same server
// shows in it. The refreshes are counted by the analytics shared read's own loads.
const selects = async () => {
  const [[row]] = await adminPool.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Com_select'");
  return Number(row?.Value);
};
const analyticsRefreshes = async () => {
  const metric = await registry.getSingleMetric("race_api_shared_reads_total")!.get();
  return metric.values.filter((v) => v.labels.cache === "analytics" && v.labels.result === "miss").reduce((n, v) => n + v.value, 0);
};
const pollSeconds = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
await sleep(2100); // let the shared read expire
const oneReadBefore = await selects();
await fetch(liveUrl, { headers: { authorization: auth } });
const selectsPerRead = (await selects()) - oneReadBefore; // SHOW STATUS counts as Com_show_status, not Com_select
const selectsBefore = await selects();
const polled = await load(liveUrl, 200, pollSeconds);
const selectsDuringPoll = (await selects()) - selectsBefore;
const liveReadsPer2s = (selectsDuringPoll / selectsPerRead / pollSeconds) * 2;
await sleep(2100);
const refreshesBefore = await analyticsRefreshes();
const analyticsPolled = await load(analyticsUrl, 200, pollSeconds);
const refreshesDuringPoll = (await analyticsRefreshes()) - refreshesBefore;

notePeak("after (c) and (h)");

// --- (b) an uncached track page vs the plain query of the same rows ---
const [members] = await adminPool.query<RowDataPacket[]>(
  "SELECT m.entry_id FROM start_group_entries m JOIN start_groups g ON g.id = m.start_group_id WHERE g.uuid = ?",
  [group.id],
);
const [[groupRow]] = await adminPool.query<RowDataPacket[]>("SELECT id FROM start_groups WHERE uuid = ?", [group.id]);
const entryIds = members.map((m) => m.entry_id as number);
const trackTimes: number[] = [];
const parsedTimes: number[] = [];
const queryTimes: number[] = [];
let trackCpu = 0;
let points = 0;
for (let i = 0; i < 20 * ROUNDS; i++) {
  // A window ending at the cut-off: answered with max-age=2 and never kept, so each request reads the database.
  const since = new Date(Date.now() - 10 * 60_000);
  const started = performance.now();
  const cpuBefore = cpuSeconds();
  const response = await fetch(`${api.httpUrl}/api/v1/races/${raceId}/track?since=${since.toISOString()}`, {
    headers: { authorization: auth, "accept-encoding": "identity" },
  });
  // The page's time is to its last byte, as the query's is to its last row: parsing the
  // JSON is the client's work (timed apart, as the issue first measured it).
  const bytes = Buffer.from(await response.arrayBuffer());
  trackTimes.push(performance.now() - started);
  // The client's fetch runs in this process too: the same in every run, so a change still shows.
  trackCpu += cpuSeconds() - cpuBefore;
  const body = JSON.parse(bytes.toString()) as { boats: Array<{ t: number[] }> };
  parsedTimes.push(performance.now() - started);
  points = body.boats.reduce((n, boat) => n + boat.t.length, 0);

  const queryStarted = performance.now();
  await pool.query(
    "SELECT entry_id, t, lat, lon, sog_kn, cog_deg FROM fixes WHERE start_group_id = ? AND entry_id IN (?) AND t >= ? AND t < ? ORDER BY entry_id, t",
    [groupRow!.id, entryIds, since.getTime(), Date.now()],
  );
  queryTimes.push(performance.now() - queryStarted);
}

notePeak("after (b)");
clearInterval(sampler);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const liveRps = median(liveRuns.map((r) => r.rps));
const bareRps = median(bareRuns.map((r) => r.rps));
const liveP99 = median(liveRuns.map((r) => r.p99));
const bareP99 = median(bareRuns.map((r) => r.p99));
const trackMedian = median(trackTimes);
const queryMedian = median(queryTimes);
const ms = (seconds: number) => `${(seconds * 1000).toFixed(3)} ms`;
const analyticsRps = median(analyticsRuns.map((r) => r.rps));
const liveBesideRps = median(liveBesideRuns.map((r) => r.rps));

console.log(`
Race endpoints, 100 boats, medians of ${ROUNDS} rounds (${new Date().toISOString()})
(a) cached live over REST   ${liveRps.toFixed(0)} req/s, p99 ${liveP99} ms   (50 connections, ${liveBytes.length} bytes, ${Object.keys(liveHeaders).length} headers)
    bare Fastify route      ${bareRps.toFixed(0)} req/s, p99 ${bareP99} ms   (own process, same bytes and headers)
    ratio live / bare       ${(liveRps / bareRps).toFixed(2)}   (req/s; goal >= 0.6, aim 0.9); p99 ${(liveP99 / bareP99).toFixed(1)}x the bare route's
(b) uncached track page     ${trackMedian.toFixed(1)} ms to the last byte for ${points} points (10 minutes, REST, identity encoding)
    plain mysql2 query      ${queryMedian.toFixed(1)} ms
    ratio page / query      ${(trackMedian / queryMedian).toFixed(2)}   (goal <= 1.2; with the client's JSON.parse ${(median(parsedTimes) / queryMedian).toFixed(2)})
(c) 200 clients polling live for ${pollSeconds} s: ${polled.rps.toFixed(0)} req/s, ${polled.non2xx} non-2xx,
    ${selectsDuringPoll} SELECTs = ${liveReadsPer2s.toFixed(2)} live reads per 2 s (one read = ${selectsPerRead} SELECTs; goal: 1)
(g) cached analytics (REST) ${analyticsRps.toFixed(0)} req/s, p99 ${median(analyticsRuns.map((r) => r.p99))} ms (${analyticsBytes} bytes); cached live beside it ${liveBesideRps.toFixed(0)} req/s
    ratio analytics / live  ${(analyticsRps / liveBesideRps).toFixed(2)}   (goal >= 0.9)
(h) 200 clients polling analytics for ${pollSeconds} s: ${analyticsPolled.rps.toFixed(0)} req/s, ${analyticsPolled.non2xx} non-2xx,
    ${refreshesDuringPoll} engine refreshes = ${((refreshesDuringPoll / pollSeconds) * 2).toFixed(2)} per 2 s (goal: 1)
(e) cached insights (REST)  ${median(insightsRuns.map((r) => r.rps)).toFixed(0)} req/s, p99 ${median(insightsRuns.map((r) => r.p99))} ms (${insightCount} insights; ratio to bare ${(median(insightsRuns.map((r) => r.rps)) / bareRps).toFixed(2)})
(d) server process RSS: ${(rssBeforeLoad / 1024 / 1024).toFixed(0)} MiB before the load (it also holds the simulated race); peak ${phasePeaks.join(", ")};
    peak JS heap in use ${(peakHeap / 1024 / 1024).toFixed(0)} MiB
(f) API process CPU per request (/proc/self/stat, 10 ms ticks): cached live ${ms(median(liveRuns.map((r) => r.cpuPerRequest)))},
    cached analytics ${ms(median(analyticsRuns.map((r) => r.cpuPerRequest)))}, cached insights ${ms(median(insightsRuns.map((r) => r.cpuPerRequest)))}, uncached track page ${ms(trackCpu / trackTimes.length)} (mean, with its fetch client)`);

await bare.close();
await api.close();
await runtime.close();
await pool.end();
await drop();
