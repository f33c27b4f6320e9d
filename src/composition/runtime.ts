// The composition root: builds, once per process, everything the listeners share
// (service implementations, the guard and its caches, rate limits, the token
// endpoint) from the configuration and a database pool.

import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { addressResolver, type AddressResolver } from "../auth/client-address.js";
import { ClientStates } from "../auth/client-states.js";
import { Guard } from "../auth/guard.js";
import { KeyRing } from "../auth/key-ring.js";
import { KnownOrigins } from "../auth/origins.js";
import { TokenEndpoint } from "../auth/token-endpoint.js";
import { Tokens } from "../auth/tokens.js";
import type { Config } from "./config.js";
import { InsightsGenerator } from "../insights/generator.js";
import { ModelPhraser } from "../insights/model-phrasing.js";
import { RateLimits } from "../limits/rate-limits.js";
import { OpenStreams } from "../calls/guarded-stream.js";
import { RaceDirectory } from "../reads/race-access.js";
import { insightPassings } from "../reads/analytics/insight-passings.js";
import { AnalyticsEngine } from "../reads/analytics/race-analytics.js";
import type { StreamTiming } from "../calls/feeds.js";
import type { Services } from "../calls/connect-routes.js";
import { ingestService } from "../ingest/service.js";
import type { ServiceDeps } from "../reads/deps.js";
import { eventService } from "../reads/events.js";
import { liveInsightsService } from "../reads/live-insights.js";
import { raceLiveService } from "../reads/race-live.js";
import { resultsService } from "../reads/results.js";
import { scopeService } from "../reads/scopes.js";
import { trackService } from "../reads/track.js";
import { trackExportService } from "../reads/track-export.js";
import { EXPORTS_PER_CLIENT } from "../limits/policy.js";
import { raceAnalyticsService } from "../reads/analytics/service.js";
import { callOpener, type CallOpener } from "../calls/admission.js";
import type { Pool, PoolOptions } from "../store/pool.js";
import { primaryReads, replicaReads, type ReadPools } from "../store/read-replica.js";
import { watchDatabase } from "../telemetry/metrics.js";

type PoolConfig = Pick<Config, "databasePoolSize" | "databaseStatementTimeoutMs" | "databaseQueueLimit">;

export type RuntimeConfig = Pick<
  Config,
  | "publicBaseUrl"
  | "trustProxy"
  | "redisUrl"
  | "insightsModel"
  | "streamsPerClient"
  | "streamHeartbeatMs"
  | "streamStallMs"
  | "databaseReadUrl"
  | "databaseReadMaxLagMs"
  | "signingKeysRefreshMs"
  | "clientStateMaxAgeMs"
> &
  PoolConfig;

export interface Runtime {
  /** The primary: every write, and the reads that must be fresh. */
  pool: Pool;
  /** Where read-model queries go: the replica while it is caught up (DATABASE_READ_URL), otherwise the primary. */
  reads: ReadPools;
  logger: Logger;
  services: Services;
  /** Opens a call: the guard and the bucket, before its request is read (calls/admission.ts). */
  openCall: CallOpener;
  tokenEndpoint: TokenEndpoint;
  /** The token signing keys, whose public halves the JWK Set publishes. */
  keys: KeyRing;
  /** Every web origin some club or client allows: preflights and errors are granted to them (CORS). */
  origins: KnownOrigins;
  resolveAddress: AddressResolver;
  /** `{base_url}` of the spec: where clients reach this service. */
  publicBaseUrl: string;
  /** `{errors_url}` of the spec: the page documenting every error code. */
  errorsUrl: string;
  /** Every open Watch stream: the server ends them first when it shuts down. */
  streams: OpenStreams;
  streamTiming: StreamTiming;
  close(): Promise<void>;
}

/** A serving pool answers in time or fails: a slow read model becomes 503, not a hung request. */
export function servingPoolOptions(config: PoolConfig): PoolOptions {
  return {
    connectionLimit: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    queueLimit: config.databaseQueueLimit,
  };
}

export async function createRuntime(config: RuntimeConfig, pool: Pool, logger: Logger): Promise<Runtime> {
  let redisErrorLogged = 0;
  const limits = await RateLimits.create({
    redisUrl: config.redisUrl,
    onRedisError: (error) => {
      // Once a minute is enough to say the limiter runs on per-instance counters.
      if (Date.now() - redisErrorLogged < 60_000) return;
      redisErrorLogged = Date.now();
      logger.warn({ err: error }, "Redis unavailable: rate limits count per instance until it is back");
    },
  });
  // Read-model queries only; the guard, the token endpoint and the insights leases,
  // facts and texts stay on the primary (docs/decisions.md, "Scale-out: read replicas").
  const reads = config.databaseReadUrl
    ? replicaReads(pool, {
        url: config.databaseReadUrl,
        poolOptions: servingPoolOptions(config),
        maxLagMs: config.databaseReadMaxLagMs,
        logger,
      })
    : primaryReads(pool);
  const unwatchDatabase = watchDatabase(pool, reads);
  const keys = new KeyRing(pool, config.signingKeysRefreshMs);
  const tokens = new Tokens(keys, { issuer: config.publicBaseUrl, audience: `${config.publicBaseUrl}/api/v1` });
  const guard = new Guard(tokens, new ClientStates(pool, config.clientStateMaxAgeMs));
  const streams = new OpenStreams(config.streamsPerClient);
  const streamTiming = { heartbeatMs: config.streamHeartbeatMs, stallMs: config.streamStallMs };
  // One engine per process: the analytics and the insights' mark roundings share its state.
  const analytics = new AnalyticsEngine();
  return {
    pool,
    reads,
    logger,
    openCall: callOpener({ guard, limits, logger }),
    services: createServices({
      pool,
      reads,
      guard,
      limits,
      logger,
      races: new RaceDirectory(reads),
      streams,
      streamTiming,
      exports: new OpenStreams(EXPORTS_PER_CLIENT, "exports"),
      analytics,
      insights: new InsightsGenerator({
        pool,
        reads,
        stepPassings: insightPassings(analytics, reads),
        logger,
        phraser: config.insightsModel ? new ModelPhraser(config.insightsModel, { logger }) : null,
        instanceId: randomUUID(),
      }),
    }),
    tokenEndpoint: new TokenEndpoint({ pool, tokens, limits, logger }),
    keys,
    origins: new KnownOrigins(pool, config.clientStateMaxAgeMs),
    resolveAddress: addressResolver(config.trustProxy),
    publicBaseUrl: config.publicBaseUrl,
    errorsUrl: `${config.publicBaseUrl}/docs/errors`,
    streams,
    streamTiming,
    close: async () => {
      unwatchDatabase();
      await Promise.all([limits.close(), reads.close()]);
    },
  };
}

/** One implementation of each service, shared by every surface. */
export function createServices(deps: ServiceDeps): Services {
  return {
    events: eventService(deps),
    raceLive: raceLiveService(deps),
    liveInsights: liveInsightsService(deps),
    track: { ...trackService(deps), ...trackExportService(deps) },
    analytics: raceAnalyticsService(deps),
    results: resultsService(deps),
    scopes: scopeService(deps),
    ingest: ingestService(deps),
  };
}
