// What a track export costs (issue 31), on the benchmark's 100-boat, 3-hour race (about
// 1.08 M fixes) imported whole, its capture window settled: `race-api serve` in a
// process of its own exports the start group in each format, and the same rows are read
// by a plain mysql2 streaming query (the baseline) in the same run. Per format: the
// server's CPU seconds (/proc/PID/stat utime + stime) and wall time against the
// baseline's, the bytes sent (identity and br), and the server's peak RSS (VmRSS sampled
// every 20 ms) against its RSS before the exports. Goal: at most 2 times the baseline.
// Rounds alternate; medians. Run: npm run bench:export   (ROUNDS=3; SERVER_FLAGS="--cpu-prof
// --cpu-prof-dir=/tmp/prof" to profile the server)

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import mysql from "mysql2";
import { BENCHMARK_OPTIONS, simulateScenario } from "../src/sim/index.js";
import { BIN } from "../test/support/cli.js";
import { addBenchReader, BENCH_READER, benchRace } from "./bench-race.js";
import { serverNodeFlags } from "./server-node-flags.js";
import { fetchToken } from "./token.js";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const FORMATS = ["csv", "gpx", "kml", "geojson"] as const;

const started = Date.now();
const { url, adminPool, scenario, drop } = await benchRace(
  (race) => addBenchReader(race, 1_000_000),
  (nowMs) => simulateScenario({ ...BENCHMARK_OPTIONS, gunMs: nowMs - 4 * 3600_000 }),
);
const race = scenario.events[0]!.races[0]!;
const group = race.startGroups[0]!;
const [[{ n: fixes }]] = (await adminPool.query("SELECT COUNT(*) AS n FROM fixes")) as unknown as [[{ n: number }]];
const [[{ id: groupId }]] = (await adminPool.query("SELECT id FROM start_groups WHERE uuid = ?", [group.id])) as unknown as [
  [{ id: number }],
];
console.log(`race imported: ${fixes} fixes of ${group.entryIds.length} boats in ${((Date.now() - started) / 1000).toFixed(0)} s`);

const port = await freePort();
const server = spawn(
  process.execPath,
  [...serverNodeFlags(), ...(process.env.SERVER_FLAGS ?? "").split(" ").filter(Boolean), BIN, "serve"],
  {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      GRPC_PORT: String(await freePort()),
      METRICS_PORT: "0",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "inherit", "inherit"],
  },
);
const base = `http://127.0.0.1:${port}`;
await waitForServer(base);
const token = await fetchToken(base, BENCH_READER.clientId, BENCH_READER.clientSecret);

/** CPU seconds a process has used (utime + stime of /proc/PID/stat). */
function cpuS(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m)!;
  return Number(line[1]) / 1024;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Measure {
  wallS: number;
  cpuS: number;
  bytes: number;
  peakRssMiB: number;
}

/** One export read to its end and dropped: the server's CPU and peak RSS while it ran. */
async function exportOnce(format: string, encoding: string): Promise<Measure> {
  let peak = rssMiB(server.pid!);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(server.pid!));
  }, 20);
  const [wall0, cpu0] = [performance.now(), cpuS(server.pid!)];
  const response = await fetch(`${base}/api/v1/races/${race.id}/track/export?format=${format}`, {
    headers: { authorization: `Bearer ${token}`, "accept-encoding": encoding },
  });
  if (response.status !== 200) throw new Error(`export ${format}: ${response.status} ${await response.text()}`);
  let bytes = 0;
  // Counted as they come, never held: undici decodes br, so count the bytes it hands over.
  for await (const chunk of response.body!) bytes += chunk.length;
  const measure = { wallS: (performance.now() - wall0) / 1000, cpuS: cpuS(server.pid!) - cpu0, bytes, peakRssMiB: peak };
  clearInterval(sampler);
  return measure;
}

/** The baseline: the same rows, boat by boat in time order, by one plain mysql2 streaming query (binary protocol), counted and dropped. */
async function plainStream(): Promise<{ wallS: number; cpuS: number; rows: number }> {
  const connection = mysql.createConnection({ uri: url });
  const [wall0, cpu0] = [performance.now(), process.cpuUsage()];
  let rows = 0;
  await new Promise<void>((resolve, reject) => {
    connection
      .execute(
        "SELECT entry_id, t, lat, lon, sog_kn, cog_deg FROM fixes WHERE start_group_id = ? AND t >= ? AND t < ? ORDER BY entry_id, t",
        [groupId, Date.parse(group.startTimeUtc!) - 5 * 60_000, Date.parse(group.startTimeUtc!) + 3 * 3600_000],
      )
      .on("result", () => rows++)
      .on("end", () => resolve())
      .on("error", reject);
  });
  const cpu = process.cpuUsage(cpu0);
  connection.end();
  return { wallS: (performance.now() - wall0) / 1000, cpuS: (cpu.user + cpu.system) / 1e6, rows };
}

const rssBefore = rssMiB(server.pid!);
// One unrecorded round: V8 compiles the hot code on its first pass.
await plainStream();
for (const format of FORMATS) await exportOnce(format, "identity");

const baseline: { wallS: number; cpuS: number }[] = [];
const results = new Map<string, Measure[]>();
for (let round = 1; round <= ROUNDS; round++) {
  const plain = await plainStream();
  baseline.push(plain);
  const line = [`round ${round}: plain stream ${plain.rows} rows ${plain.wallS.toFixed(2)} s (cpu ${plain.cpuS.toFixed(2)} s)`];
  for (const format of FORMATS) {
    for (const encoding of ["identity", "br"]) {
      const measure = await exportOnce(format, encoding);
      const key = `${format} ${encoding}`;
      results.set(key, [...(results.get(key) ?? []), measure]);
      line.push(`${key} ${measure.wallS.toFixed(2)} s (cpu ${measure.cpuS.toFixed(2)} s, peak ${measure.peakRssMiB.toFixed(0)} MiB)`);
    }
  }
  console.log(line.join("; "));
}

const plainWall = median(baseline.map((b) => b.wallS));
const plainCpu = median(baseline.map((b) => b.cpuS));
console.log(
  `\nExport of ${fixes} fixes (medians of ${ROUNDS}); baseline: a plain mysql2 streaming query of the same rows, ${plainWall.toFixed(2)} s wall, ${plainCpu.toFixed(2)} s CPU`,
);
console.log(`server RSS before the exports: ${rssBefore.toFixed(0)} MiB`);
for (const [key, measures] of results) {
  const wall = median(measures.map((m) => m.wallS));
  const cpu = median(measures.map((m) => m.cpuS));
  console.log(
    `${key.padEnd(16)} ${wall.toFixed(2)} s wall (x${(wall / plainWall).toFixed(2)}), server CPU ${cpu.toFixed(2)} s (x${(cpu / plainCpu).toFixed(2)}; goal <= 2), ` +
      `${(median(measures.map((m) => m.bytes)) / 1024 / 1024).toFixed(1)} MiB of file, peak RSS ${Math.max(...measures.map((m) => m.peakRssMiB)).toFixed(0)} MiB`,
  );
}

server.kill("SIGTERM");
await new Promise((resolve) => server.once("exit", resolve));
await drop();

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function waitForServer(baseUrl: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      await fetch(`${baseUrl}/api/v1/openapi.json`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error("the server did not start");
}
