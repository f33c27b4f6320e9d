// A real runtime (services, guard, limits, token endpoint) over a test file's database.

import { pino, type Logger } from "pino";
import { loadConfig } from "../../src/composition/config.js";
import { createRuntime, type Runtime, type RuntimeConfig } from "../../src/composition/runtime.js";
import type { TestDatabase } from "./database.js";

export const TEST_BASE_URL = "http://race-api.test";
/**
 * The key ring's and the client states' re-read interval in tests (production: 5 s):
 * a change made in a test bites within it, and the test polls for it (`within`).
 */
export const TEST_REFRESH_MS = 200;
const { signingKeysRefreshMs, clientStateMaxAgeMs } = loadConfig({});
/** The intervals as production has them: for a test counting queries, which a guard re-read half-way would spoil. */
export const PRODUCTION_REFRESH = { signingKeysRefreshMs, clientStateMaxAgeMs };

/** Silent unless `logger` is given, or TEST_LOG names a level: TEST_LOG=error shows what a 500 was. */
export function testRuntime(
  db: TestDatabase,
  config: Partial<RuntimeConfig> = {},
  logger: Logger = pino({ level: process.env.TEST_LOG ?? "silent" }),
): Promise<Runtime> {
  // Defaults as `race-api serve` has them with no environment, but short re-reads.
  const defaults = loadConfig({});
  return createRuntime(
    {
      ...defaults,
      publicBaseUrl: TEST_BASE_URL,
      trustProxy: [],
      redisUrl: undefined,
      insightsModel: undefined,
      signingKeysRefreshMs: TEST_REFRESH_MS,
      clientStateMaxAgeMs: TEST_REFRESH_MS,
      ...config,
    },
    db.pool,
    logger,
  );
}
