// The race the read benchmarks measure, in a database of their own: a simulated race
// of 100 boats, 40 minutes after its gun, imported as it stands now; or another race
// the caller simulates, imported whole.

import { randomBytes } from "node:crypto";
import type { Scenario } from "../src/domain/scenario.js";
import { importScenario } from "../src/scenario/import.js";
import { createDatabase, dropDatabase } from "../src/setup/database.js";
import { ensureLocalServer } from "../src/setup/local-mariadb.js";
import { simulateScenario, sliceScenario } from "../src/sim/index.js";
import { migrate } from "../src/store/migrate.js";
import { createPool, withDatabase, type Pool } from "../src/store/pool.js";

export interface BenchRace {
  url: string;
  /** No statement limit: set-up and the bench's own counting queries. */
  adminPool: Pool;
  scenario: Scenario;
  nowMs: number;
  /** Ends the pool and drops the database. */
  drop(): Promise<void>;
}

/** The benches' one reading client (tracking:read), added to a scenario by `addBenchReader`. */
export const BENCH_READER = { clientId: "bench", clientSecret: "bench-secret-123" } as const;

/** Adds BENCH_READER to the first club, its tracking bucket raised to `perMinute` so a bench measures the API, not 429s. */
export function addBenchReader(scenario: Scenario, perMinute: number): void {
  const club = scenario.clubs[0]!;
  club.trackingRateLimitPerMinute = perMinute;
  scenario.clients = [{ ...BENCH_READER, clubId: club.id, scopes: ["tracking:read"] }];
}

/**
 * `adjust` may change the scenario before it is imported (a client, a raised limit);
 * `simulate`, given the moment it runs, makes another race, imported whole.
 */
export async function benchRace(
  adjust: (scenario: Scenario) => void = () => {},
  simulate?: (nowMs: number) => Scenario,
): Promise<BenchRace> {
  const server = process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, "") : await ensureLocalServer();
  const url = withDatabase(server, `race_api_bench_${randomBytes(4).toString("hex")}`);
  await createDatabase(url);
  const adminPool = createPool(url, { statementTimeoutMs: 0 });
  await migrate(adminPool);
  const nowMs = Date.now();
  const scenario =
    simulate?.(nowMs) ??
    simulateScenario({
      seed: "bench-live",
      gunMs: nowMs - 40 * 60_000,
      startGroups: 1,
      boatsPerGroup: 100,
      laps: 5,
      legLengthM: 3100,
    });
  adjust(scenario);
  await importScenario(adminPool, simulate ? scenario : sliceScenario(scenario, null, nowMs));
  return {
    url,
    adminPool,
    scenario,
    nowMs,
    drop: async () => {
      await adminPool.end();
      await dropDatabase(url);
    },
  };
}
