// A real runtime (services, guard, limits, token endpoint) over a test file's database.

import { pino } from "pino";
import { createRuntime, type Runtime, type RuntimeConfig } from "../../src/runtime.js";
import type { TestDatabase } from "./database.js";

export const TEST_BASE_URL = "http://race-api.test";

export function testRuntime(db: TestDatabase, config: Partial<RuntimeConfig> = {}): Promise<Runtime> {
  return createRuntime({ publicBaseUrl: TEST_BASE_URL, trustProxy: [], redisUrl: undefined, insightsModel: undefined, ...config }, db.pool, pino({ level: "silent" }));
}
