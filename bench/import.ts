// How fast `race-api import` loads a big race: 100 boats x 3 hours at 1 Hz (about
// 1.1 million fixes) from a file, validated and written in one transaction.
//
// Baseline, measured in the same run on the same server: the same fixes sent as
// plain multi-row INSERTs into the bare fixes table with no validation, no upsert
// and no other table: the cost of moving the rows into InnoDB at all. The ratio
// import / baseline is what to compare across machines; the seconds are this machine's.
//
//   npm run bench:import             (RUNS=5 npm run bench:import for more runs)

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importScenarioFile } from "../src/scenario/import.js";
import { validateScenario } from "../src/scenario/validate.js";
import { BENCHMARK_OPTIONS, simulateScenario } from "../src/sim/index.js";
import { createDatabase, dropDatabase } from "../src/setup/database.js";
import { ensureLocalServer } from "../src/setup/local-mariadb.js";
import { migrate } from "../src/store/migrate.js";
import { createPool, inTransaction, withDatabase, type Pool } from "../src/store/pool.js";

const RUNS = Number(process.env.RUNS ?? 3);

const server = process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, "") : await ensureLocalServer();
const scenario = simulateScenario({ ...BENCHMARK_OPTIONS, gunMs: Date.parse("2026-06-01T10:00:00Z") });
const tracks = scenario.events[0]!.races[0]!.startGroups[0]!.tracks!;
const fixes = tracks.reduce((n, track) => n + track.t.length, 0);
const dir = mkdtempSync(join(tmpdir(), "race-api-bench-"));
const file = join(dir, "race.json");
writeFileSync(file, JSON.stringify(scenario));
console.log(`scenario: ${tracks.length} boats, ${fixes.toLocaleString("en")} fixes, file ${(statSync(file).size / 1e6).toFixed(0)} MB`);

const validation: number[] = [];
const imports: number[] = [];
const baselines: number[] = [];
try {
  for (let run = 1; run <= RUNS; run++) {
    validation.push(time(() => validateScenario(scenario)));
    imports.push(await inFreshDatabase((pool) => importScenarioFile(pool, file)));
    baselines.push(await inFreshDatabase((pool) => plainInserts(pool)));
    console.log(
      `run ${run}: import ${imports.at(-1)!.toFixed(2)} s, baseline ${baselines.at(-1)!.toFixed(2)} s, validation alone ${validation.at(-1)!.toFixed(2)} s`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const importMedian = median(imports);
const baselineMedian = median(baselines);
console.log(`
median of ${RUNS} runs
  import (parse, validate, hash, write, commit)  ${importMedian.toFixed(2)} s  ${Math.round(fixes / importMedian).toLocaleString("en")} fixes/s
  baseline (plain INSERTs of the same fixes)     ${baselineMedian.toFixed(2)} s  ${Math.round(fixes / baselineMedian).toLocaleString("en")} fixes/s
  validation alone (schema + cross rules)        ${median(validation).toFixed(2)} s
  ratio import / baseline                        ${(importMedian / baselineMedian).toFixed(2)}`);

/** Seconds taken by `work` in a database of its own, created, migrated and dropped around it. */
async function inFreshDatabase(work: (pool: Pool) => Promise<unknown>): Promise<number> {
  const url = withDatabase(server, `race_api_bench_${randomBytes(4).toString("hex")}`);
  await createDatabase(url);
  const pool = createPool(url, { connectionLimit: 2, statementTimeoutMs: 0 });
  try {
    await migrate(pool);
    const started = performance.now();
    await work(pool);
    return (performance.now() - started) / 1000;
  } finally {
    await pool.end();
    await dropDatabase(url);
  }
}

async function plainInserts(pool: Pool): Promise<void> {
  await inTransaction(pool, async (conn) => {
    for (const [boat, track] of tracks.entries()) {
      for (let from = 0; from < track.t.length; from += 5000) {
        const rows: string[] = [];
        for (let i = from; i < Math.min(from + 5000, track.t.length); i++) {
          rows.push(
            `(1,${boat + 1},${track.t[i]},${track.lat[i]},${track.lon[i]},${track.sogKn?.[i] ?? "NULL"},${track.cogDeg?.[i] ?? "NULL"},${track.accuracyM?.[i] ?? "NULL"})`,
          );
        }
        await conn.query(`INSERT INTO fixes (start_group_id, entry_id, t, lat, lon, sog_kn, cog_deg, accuracy_m) VALUES ${rows.join(",")}`);
      }
    }
  });
}

function time(work: () => unknown): number {
  const started = performance.now();
  work();
  return (performance.now() - started) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
