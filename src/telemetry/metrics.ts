// The Prometheus metrics of one process: the registry `/metrics` serves (on its own
// port, telemetry/metrics-server.ts) and every metric in it, each documented in
// docs/operations.md. Counters on a request's path are plain numbers read at scrape time
// (request-metrics.ts, SharedRead), so serving a request allocates nothing for them;
// the rest are prom-client metrics on paths that are not per request.

import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import type { Pool } from "../store/pool.js";
import type { ReadPools } from "../store/read-replica.js";

export const registry = new Registry();

let defaultsStarted = false;
/** Process figures (CPU, memory, event-loop delay, GC): started with the metrics listener, so they cost nothing when it is off. */
export function startProcessMetrics(): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  collectDefaultMetrics({ register: registry });
}

// Shared reads (caching/shared-read.ts): each counts its hits, joins and loads in plain
// numbers, read here at scrape time and summed by cache name.
export interface SharedReadFigures {
  readonly name: string;
  /** Answered from a kept value. */
  hits: number;
  /** Answered by a load another caller had started (single-flight). */
  joins: number;
  /** Loads, i.e. reads of the database (or the model) for one key. */
  loads: number;
  /** Keys kept now. */
  keys(): number;
}

const sharedReads = new Set<WeakRef<SharedReadFigures>>();

export function watchSharedRead(figures: SharedReadFigures): void {
  sharedReads.add(new WeakRef(figures));
}

function sharedReadTotals(): Map<string, { hits: number; joins: number; loads: number; keys: number }> {
  const totals = new Map<string, { hits: number; joins: number; loads: number; keys: number }>();
  for (const ref of sharedReads) {
    const figures = ref.deref();
    if (!figures) {
      sharedReads.delete(ref);
      continue;
    }
    const total = totals.get(figures.name) ?? { hits: 0, joins: 0, loads: 0, keys: 0 };
    total.hits += figures.hits;
    total.joins += figures.joins;
    total.loads += figures.loads;
    total.keys += figures.keys();
    totals.set(figures.name, total);
  }
  return totals;
}

new Counter({
  name: "race_api_shared_reads_total",
  help: "Calls of a shared read (cache: live, race_visibility, client_state, insights, track_settled, track_near_now, analytics, analytics_settled) by result: hit (a kept value), joined (a load already under way), miss (a new load: one read for one key).",
  labelNames: ["cache", "result"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [cache, total] of sharedReadTotals()) {
      this.inc({ cache, result: "hit" }, total.hits);
      this.inc({ cache, result: "joined" }, total.joins);
      this.inc({ cache, result: "miss" }, total.loads);
    }
  },
});

new Gauge({
  name: "race_api_shared_read_keys",
  help: "Keys a shared read keeps now (for cache=live: the races being read); rate(misses) / keys is the reads per key.",
  labelNames: ["cache"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [cache, total] of sharedReadTotals()) this.set({ cache }, total.keys);
  },
});

// Database: the pools' connections, whose numbers mysql2 keeps in fields of its pool.
// One runtime per process serves; should a process hold several (tests), the newest shows.
const watched: Array<{ primary: Pool; reads: ReadPools }> = [];

function watchedPools(): Array<[string, Pool]> {
  const current = watched.at(-1);
  if (!current) return [];
  const replica = current.reads.replicaPool();
  return replica
    ? [
        ["primary", current.primary],
        ["replica", replica],
      ]
    : [["primary", current.primary]];
}

new Gauge({
  name: "race_api_db_pool_connections",
  help: "Connections of a database pool (primary, replica) by state: in_use (running a query or held by a transaction) or idle.",
  labelNames: ["pool", "state"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [name, pool] of watchedPools()) {
      const core = corePool(pool);
      this.set({ pool: name, state: "in_use" }, core._allConnections.length - core._freeConnections.length);
      this.set({ pool: name, state: "idle" }, core._freeConnections.length);
    }
  },
});

new Gauge({
  name: "race_api_db_pool_queued",
  help: "Queries waiting for a free connection of a database pool (DATABASE_QUEUE_LIMIT bounds it).",
  labelNames: ["pool"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [name, pool] of watchedPools()) this.set({ pool: name }, corePool(pool)._connectionQueue.length);
  },
});

new Gauge({
  name: "race_api_db_replica_lag_seconds",
  help: "The read replica's newest measured lag (DATABASE_READ_URL); absent without a replica, NaN before the first reading.",
  // Labelled so that without a replica there is no series at all (an unlabelled gauge shows 0).
  labelNames: ["pool"],
  registers: [registry],
  collect() {
    this.reset();
    const state = watched.at(-1)?.reads.replicaState();
    if (state) this.set({ pool: "replica" }, state.lagMs === null ? Number.NaN : state.lagMs / 1000);
  },
});

new Gauge({
  name: "race_api_db_replica_in_use",
  help: "1 while read-model queries go to the replica, 0 while they are on the primary (lag above DATABASE_READ_MAX_LAG_MS, or failing).",
  // Labelled so that without a replica there is no series at all (an unlabelled gauge shows 0).
  labelNames: ["pool"],
  registers: [registry],
  collect() {
    this.reset();
    const state = watched.at(-1)?.reads.replicaState();
    if (state) this.set({ pool: "replica" }, state.inUse ? 1 : 0);
  },
});

/** The runtime's pools, watched until it closes. */
export function watchDatabase(primary: Pool, reads: ReadPools): () => void {
  const entry = { primary, reads };
  watched.push(entry);
  return () => {
    const at = watched.indexOf(entry);
    if (at >= 0) watched.splice(at, 1);
  };
}

interface CorePool {
  _allConnections: { length: number };
  _freeConnections: { length: number };
  _connectionQueue: { length: number };
}

/** mysql2 has no public figures of its pool; these fields are what its own pool logic reads. */
function corePool(pool: Pool): CorePool {
  return (pool as unknown as { pool: CorePool }).pool;
}

export const unavailable = new Counter({
  name: "race_api_db_unavailable_total",
  help: "Calls answered 503 API_UNAVAILABLE because the database did not answer, by cause: statement_timeout (the server's or the client's time limit), pool_wait (no free connection in time, or the queue full), connection (unreachable, lost, refused).",
  labelNames: ["cause"],
  registers: [registry],
});

// Streams.
export const openStreams = new Gauge({
  name: "race_api_streams_open",
  help: "Watch streams open now (SSE and Connect/gRPC), on this instance.",
  registers: [registry],
});

export const droppedSubscribers = new Counter({
  name: "race_api_stream_subscribers_dropped_total",
  help: "Stream subscribers dropped by the server: stalled (took no message for STREAM_STALL_SECONDS) or slow_socket (an SSE socket that took no bytes that long).",
  labelNames: ["reason"],
  registers: [registry],
});

// Insights.
export const insightGenerations = new Counter({
  name: "race_api_insight_generations_total",
  help: "Insight generations (detection of a race's facts, once per 60 s under a lease) run by this instance, by result: ok or failed.",
  labelNames: ["result"],
  registers: [registry],
});

export const modelCalls = new Counter({
  name: "race_api_insight_model_calls_total",
  help: "Requests to the insight phrasing model, by result: ok (lines used), discarded (some lines failed the checks), failed (error or timeout).",
  labelNames: ["result"],
  registers: [registry],
});

export const templateFallbacks = new Counter({
  name: "race_api_insight_template_fallbacks_total",
  help: "Insight lines phrased from a template although a model is configured, by reason: quota (the language's hourly quota is used up), failed (the call failed), discarded (the model's line failed the checks).",
  labelNames: ["reason"],
  registers: [registry],
});

// Rate limits.
export const rateLimited = new Counter({
  name: "race_api_rate_limited_total",
  help: "Calls refused with 429 RATE_LIMIT_EXCEEDED, by bucket: tracking, general, ingest, token-client, token-ip, streams (the per-client stream cap), exports (the per-client export cap).",
  labelNames: ["bucket"],
  registers: [registry],
});

/**
 * Ingest (IngestService): fixes accepted, duplicate (already stored: a retry) or
 * rejected, with the reason of a rejection. Its counts are added by the ingest path.
 */
export const ingestedFixes = new Counter({
  name: "race_api_ingest_fixes_total",
  help: "Fixes pushed through IngestService, by result (accepted, duplicate, rejected) and, for rejected ones, reason.",
  labelNames: ["result", "reason"],
  registers: [registry],
});
