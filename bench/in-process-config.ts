// The configuration of a server a bench starts in its own process: ephemeral ports, no
// Redis and no model, an instance's pool of 10 with a deep queue (a bench measures the
// endpoint, not the pool refusing), and everything else `race-api serve`'s defaults.

import { loadConfig, type Config } from "../src/composition/config.js";

export function inProcessConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    host: "127.0.0.1",
    port: 0,
    grpcPort: 0,
    metricsPort: 0,
    publicBaseUrl: "http://127.0.0.1",
    trustProxy: [],
    redisUrl: undefined,
    insightsModel: undefined,
    databasePoolSize: 10,
    databaseStatementTimeoutMs: 5000,
    databaseQueueLimit: 1000,
    ...overrides,
  };
}
