// What the service implementations are built from: the guard's parts, the primary
// (IngestService writes there), the read pools, the race directory, the insights
// generator, the analytics engine (one per process: the insights read its passings),
// the Watch streams' timing and the exports' slots.

import type { InsightsGenerator } from "../insights/generator.js";
import type { Pool } from "../store/pool.js";
import type { ReadPools } from "../store/read-replica.js";
import type { StreamTiming } from "../calls/feeds.js";
import type { OpenStreams, StreamDeps } from "../calls/guarded-stream.js";
import type { AnalyticsEngine } from "./analytics/race-analytics.js";
import type { RaceDirectory } from "./race-access.js";

/** `reads.pool()` for every read-model query: the replica while it is caught up, otherwise the primary. */
export type ServiceDeps = StreamDeps & {
  pool: Pool;
  reads: ReadPools;
  races: RaceDirectory;
  insights: InsightsGenerator;
  analytics: AnalyticsEngine;
  streamTiming: StreamTiming;
  /** The exports each client runs at once (limits/policy.ts EXPORTS_PER_CLIENT). */
  exports: OpenStreams;
};
