// The CPU an uncached live read costs this process (one live answer of a 100-boat
// race, read and built by the service's own code), through the service's pool
// against the same statements through a plain mysql2 pool with the driver's own
// parsing: the pool's exact numbers (store/pool.ts) must not make the read dearer.
// Rounds alternate the two; CPU seconds (process.cpuUsage) per read, medians compared.
// Run: node --import tsx bench/live-read-cpu.ts   (ROUNDS=7 READS=300 to change)

import mysql from "mysql2/promise";
import { readRaceLive } from "../src/reads/live-answer.js";
import { createPool, type Pool } from "../src/store/pool.js";
import { findRace, type RaceRecord } from "../src/store/races.js";
import { benchRace } from "./bench-race.js";

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const READS = Number(process.env.READS ?? 300);

const { url, adminPool, scenario, drop } = await benchRace();
const race = (await findRace(adminPool, scenario.events[0]!.races[0]!.id))!;

const servicePool = createPool(url, { connectionLimit: 4 });
// The baseline: the driver as it comes, with the pool options that change parsing alike.
const plainPool = mysql.createPool({ uri: url, timezone: "Z", connectionLimit: 4, supportBigNumbers: true, decimalNumbers: true });

/** One uncached live read through `pool`: the service's own (reads/race-live.ts). */
async function liveRead(pool: Pool, race: RaceRecord): Promise<number> {
  const { answer } = await readRaceLive(pool, race, Date.now());
  return answer.raceLive?.startGroups.reduce((n, group) => n + group.boats.length, 0) ?? 0;
}

/** CPU microseconds of this process per live read, over READS reads one after another. */
async function cpuPerRead(pool: Pool): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < READS; i++) await liveRead(pool, race);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / READS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const plainPoolAsPool = plainPool as unknown as Pool;
console.log(`live read: ${await liveRead(servicePool, race)} boats per read`);
await cpuPerRead(plainPoolAsPool); // warm-up: V8 compiles both paths before anything is counted
await cpuPerRead(servicePool);
const plain: number[] = [];
const service: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  plain.push(await cpuPerRead(plainPoolAsPool));
  service.push(await cpuPerRead(servicePool));
  console.log(`round ${round}: service pool ${service.at(-1)!.toFixed(0)} us, plain mysql2 ${plain.at(-1)!.toFixed(0)} us CPU per read`);
}
console.log(
  `Uncached live read (100 boats), medians of ${ROUNDS} rounds of ${READS}: service pool ${median(service).toFixed(0)} us, plain mysql2 ${median(plain).toFixed(0)} us CPU per read; ratio ${(median(service) / median(plain)).toFixed(2)}`,
);

await Promise.all([servicePool.end(), plainPool.end()]);
await drop();
