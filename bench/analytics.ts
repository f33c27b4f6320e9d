// What race analytics cost (issue 30), on the benchmark's 100-boat, 3-hour race
// (about 1.08 M fixes) imported whole, the engine run at chosen moments of it:
//
// 1. An incremental refresh with one more second of fixes, 3 hours in, against the same
//    refresh 10 minutes in: CPU seconds of this process (process.cpuUsage) and of the
//    database (/proc/PID/stat of mariadbd) per refresh. Goal: at most 1.5.
// 2. Rebuilding the race's analytics from the database (a fresh engine, as after a
//    restart), against reading the same fixes with a plain mysql2 query: wall time and
//    this process's CPU. Goal: at most 2.
// Rounds alternate; medians. The engine runs inside the server, so it is measured with
// the server's Node flags (bin/race-api.js). Run: npm run bench:analytics   (ROUNDS=3 REFRESHES=30)

import { readFileSync } from "node:fs";
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import mysql from "mysql2/promise";
import { AnalyticsEngine } from "../src/reads/analytics/race-analytics.js";
import { BENCHMARK_OPTIONS, simulateScenario } from "../src/sim/index.js";
import { createPool } from "../src/store/pool.js";
import { findRace } from "../src/store/races.js";
import { benchRace } from "./bench-race.js";
import { serverNodeFlags } from "./server-node-flags.js";

const flags = serverNodeFlags();
if (!flags.every((flag) => process.execArgv.includes(flag))) {
  const run = spawnSync(process.execPath, [...flags, ...process.execArgv, fileURLToPath(import.meta.url)], { stdio: "inherit" });
  process.exit(run.status ?? 1);
}

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const REFRESHES = Number(process.env.REFRESHES ?? 30);
const MINUTE = 60_000;

const started = Date.now();
const { url, adminPool, scenario, drop } = await benchRace(
  () => {},
  (nowMs) => simulateScenario({ ...BENCHMARK_OPTIONS, gunMs: nowMs - 4 * 3600_000 }),
);
const group = scenario.events[0]!.races[0]!.startGroups[0]!;
const gunMs = Date.parse(group.startTimeUtc!);
const race = (await findRace(adminPool, scenario.events[0]!.races[0]!.id))!;
const [[{ n: fixes }]] = (await adminPool.query("SELECT COUNT(*) AS n FROM fixes")) as unknown as [[{ n: number }]];
console.log(`race imported: ${fixes} fixes of ${group.entryIds.length} boats in ${((Date.now() - started) / 1000).toFixed(0)} s`);

const pool = createPool(url, { connectionLimit: 4 });
const source = { pool, behindMs: 0 };
const mariadbPid = Number(execFileSync("pgrep", ["-o", "-x", "mariadbd"]).toString().trim());

/** CPU seconds the database server has used so far (utime + stime of /proc/PID/stat). */
function databaseCpuS(): number {
  const fields = readFileSync(`/proc/${mariadbPid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
const processCpuS = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Median CPU (ms, this process and the database) of a refresh with one second more, at `atMs` after the gun. */
async function refreshCost(afterGunMs: number): Promise<{ node: number; db: number }> {
  const engine = new AnalyticsEngine();
  let now = gunMs + afterGunMs - 10_000;
  await engine.refresh(race, now, source);
  for (let i = 0; i < 5; i++) await engine.refresh(race, (now += 1000), source); // warm: heads built
  const node: number[] = [];
  const db: number[] = [];
  for (let i = 0; i < REFRESHES; i++) {
    const [n0, d0] = [processCpuS(), databaseCpuS()];
    await engine.refresh(race, (now += 1000), source);
    node.push((processCpuS() - n0) * 1000);
    db.push((databaseCpuS() - d0) * 1000);
  }
  return { node: median(node), db: median(db) };
}

/** Wall seconds and this process's CPU seconds of `run`. */
async function timed(run: () => Promise<unknown>): Promise<{ wallS: number; cpuS: number }> {
  const [wall0, cpu0] = [performance.now(), processCpuS()];
  await run();
  return { wallS: (performance.now() - wall0) / 1000, cpuS: processCpuS() - cpu0 };
}

const plain = await mysql.createConnection({ uri: url });
const plainRead = () =>
  plain.query("SELECT start_group_id, entry_id, t, lat, lon, sog_kn, cog_deg FROM fixes WHERE start_group_id = ? ORDER BY entry_id, t", [
    race.startGroups[0]!.id,
  ]);
const threeHours = 3 * 60 * MINUTE - 5_000;

const early: { node: number; db: number }[] = [];
const late: { node: number; db: number }[] = [];
const rebuilds: { wallS: number; cpuS: number }[] = [];
const reads: { wallS: number; cpuS: number }[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  early.push(await refreshCost(10 * MINUTE));
  late.push(await refreshCost(threeHours));
  reads.push(await timed(plainRead));
  rebuilds.push(await timed(() => new AnalyticsEngine().refresh(race, gunMs + threeHours, source)));
  console.log(
    `round ${round}: refresh 10 min in ${early.at(-1)!.node.toFixed(1)} ms + db ${early.at(-1)!.db.toFixed(1)} ms, 3 h in ${late.at(-1)!.node.toFixed(1)} ms + db ${late.at(-1)!.db.toFixed(1)} ms; ` +
      `rebuild ${rebuilds.at(-1)!.wallS.toFixed(2)} s (cpu ${rebuilds.at(-1)!.cpuS.toFixed(2)} s), plain read ${reads.at(-1)!.wallS.toFixed(2)} s (cpu ${reads.at(-1)!.cpuS.toFixed(2)} s)`,
  );
}
const m = (values: number[]) => median(values);
const earlyNode = m(early.map((e) => e.node));
const lateNode = m(late.map((e) => e.node));
const earlyAll = m(early.map((e) => e.node + e.db));
const lateAll = m(late.map((e) => e.node + e.db));
console.log(
  `Incremental refresh, one more second of 100 boats (medians): 10 min in ${earlyNode.toFixed(1)} ms CPU (with the database ${earlyAll.toFixed(1)} ms), 3 h in ${lateNode.toFixed(1)} ms (${lateAll.toFixed(1)} ms); ratio ${(lateNode / earlyNode).toFixed(2)} (with the database ${(lateAll / earlyAll).toFixed(2)}; goal <= 1.5)`,
);
const rebuild = m(rebuilds.map((r) => r.wallS));
const read = m(reads.map((r) => r.wallS));
console.log(
  `Rebuild after a restart (${fixes} fixes, medians): ${rebuild.toFixed(2)} s against a plain mysql2 read of the same fixes ${read.toFixed(2)} s; ratio ${(rebuild / read).toFixed(2)} (goal <= 2); CPU ${m(rebuilds.map((r) => r.cpuS)).toFixed(2)} s against ${m(reads.map((r) => r.cpuS)).toFixed(2)} s`,
);

await plain.end();
await pool.end();
await drop();
