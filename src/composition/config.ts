// Every environment variable the service reads, parsed and checked in one place.
// A bad value stops the process with an error that names the variable.

import proxyAddr from "proxy-addr";
import type { ModelConfig } from "../insights/model-phrasing.js";
import type { TracingConfig } from "../telemetry/tracing.js";

export interface Config {
  host: string;
  port: number;
  grpcPort: number;
  /** Prometheus /metrics on a listener of its own; 0 = off. */
  metricsPort: number;
  /** Unset: the local MariaDB that setup/local-mariadb.ts provides. */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** Longest a serving query may run before the answer is 503 API_UNAVAILABLE. */
  databaseStatementTimeoutMs: number;
  /** Queries waiting for a connection beyond which a query fails at once (503); 0 = unbounded. */
  databaseQueueLimit: number;
  /** A replica for read-model queries; unset: every query goes to DATABASE_URL. */
  databaseReadUrl: string | undefined;
  /** Reads leave the replica while its measured lag is above this (or it does not answer). */
  databaseReadMaxLagMs: number;
  publicBaseUrl: string;
  logLevel: LogLevel;
  /** Proxies whose X-Forwarded-For is believed (addresses, CIDR ranges, or proxy-addr's names such as `loopback`); empty: none. */
  trustProxy: string[];
  /** Unset: rate-limit counters live in each instance's memory. */
  redisUrl: string | undefined;
  /** An OpenAI-compatible chat-completions model phrasing insights; unset: template lines only. */
  insightsModel: ModelConfig | undefined;
  /** OpenTelemetry traces exported over OTLP/HTTP; unset: no tracing at all. */
  tracing: TracingConfig | undefined;
  /** Watch streams a client may hold open on one instance. */
  streamsPerClient: number;
  /** A Watch stream sends a heartbeat after this long without news. */
  streamHeartbeatMs: number;
  /** A Watch stream whose client leaves a message untaken this long is dropped. */
  streamStallMs: number;
  /** The signing keys are re-read at most this often: a retired key stops verifying everywhere within it. */
  signingKeysRefreshMs: number;
  /** A client's state (disabled, expiry, allowlist, scopes, secret, origins) is re-read at most this often. */
  clientStateMaxAgeMs: number;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
    this.name = "ConfigError";
  }
}

/** The variables, their defaults and meaning; the configuration table of docs/operations.md says the same. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = text(env, "HOST", "127.0.0.1");
  const port = portNumber(env, "PORT", 8080);
  return {
    host,
    port,
    grpcPort: portNumber(env, "GRPC_PORT", 8081),
    metricsPort: metricsPort(env, port),
    databaseUrl: databaseUrl(env, "DATABASE_URL"),
    databasePoolSize: integer(env, "DATABASE_POOL_SIZE", 10, 1, 1000),
    databaseStatementTimeoutMs: integer(env, "DATABASE_STATEMENT_TIMEOUT_MS", 5000, 100, 600_000),
    databaseQueueLimit: integer(env, "DATABASE_QUEUE_LIMIT", 100, 0, 100_000),
    databaseReadUrl: databaseUrl(env, "DATABASE_READ_URL"),
    // Above the heartbeat's own period (store/read-replica.ts), and far below the 2 minutes
    // after which a track window is kept as settled: a replica read never misses what settled.
    databaseReadMaxLagMs: integer(env, "DATABASE_READ_MAX_LAG_MS", 1000, 500, 60_000),
    publicBaseUrl: baseUrl(env, `http://${host.includes(":") ? `[${host}]` : host}:${port}`),
    logLevel: oneOf(env, "LOG_LEVEL", LOG_LEVELS, "info"),
    trustProxy: trustedProxies(env),
    redisUrl: redisUrl(env),
    insightsModel: insightsModel(env),
    tracing: tracingConfig(env),
    streamsPerClient: integer(env, "STREAMS_PER_CLIENT", 10, 1, 10_000),
    streamHeartbeatMs: integer(env, "STREAM_HEARTBEAT_SECONDS", 15, 1, 300) * 1000,
    streamStallMs: integer(env, "STREAM_STALL_SECONDS", 30, 1, 3600) * 1000,
    // DESIGN.md promises changes bite "within 5 seconds"; tests set them short.
    signingKeysRefreshMs: integer(env, "SIGNING_KEYS_REFRESH_MS", 5000, 10, 300_000),
    clientStateMaxAgeMs: integer(env, "CLIENT_STATE_MAX_AGE_MS", 5000, 10, 300_000),
  };
}

function text(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name]?.trim();
  return value ? value : fallback;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function portNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  // 0 lets the system choose a free port (tests).
  return integer(env, name, fallback, 0, 65535);
}

/** 9464 is the OpenTelemetry convention for a Prometheus endpoint; 0 turns it off; never the public port. */
function metricsPort(env: NodeJS.ProcessEnv, publicPort: number): number {
  const port = portNumber(env, "METRICS_PORT", 9464);
  if (port !== 0 && port === publicPort)
    throw new ConfigError("METRICS_PORT", `must not be the public PORT (${publicPort}): metrics are served on a port of their own`);
  return port;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${values.join(", ")}, got "${raw}"`);
  return raw as T;
}

function databaseUrl(env: NodeJS.ProcessEnv, name: "DATABASE_URL" | "DATABASE_READ_URL"): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, "must be a URL like mysql://user:password@host:3306/database");
  }
  if (url.protocol !== "mysql:") throw new ConfigError(name, `must use the mysql: scheme, got "${url.protocol}"`);
  if (url.pathname.length <= 1) throw new ConfigError(name, "must name a database, as in mysql://user:password@host:3306/database");
  return raw;
}

function trustedProxies(env: NodeJS.ProcessEnv): string[] {
  const entries = (env.TRUST_PROXY ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    proxyAddr.compile(entries);
  } catch (error) {
    throw new ConfigError("TRUST_PROXY", `must list proxy addresses or CIDR ranges separated by commas (${(error as Error).message})`);
  }
  return entries;
}

function redisUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.REDIS_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError("REDIS_URL", "must be a URL like redis://host:6379");
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:")
    throw new ConfigError("REDIS_URL", `must use the redis: or rediss: scheme, got "${url.protocol}"`);
  return raw;
}

function insightsModel(env: NodeJS.ProcessEnv): ModelConfig | undefined {
  const url = env.INSIGHTS_MODEL_URL?.trim();
  if (!url) return undefined;
  let protocol = "";
  try {
    protocol = new URL(url).protocol;
  } catch {
    // reported below; the value is not echoed, a URL may carry a key
  }
  if (protocol !== "http:" && protocol !== "https:")
    throw new ConfigError("INSIGHTS_MODEL_URL", "must be the http(s) URL of a chat-completions endpoint");
  const model = env.INSIGHTS_MODEL?.trim();
  if (!model) throw new ConfigError("INSIGHTS_MODEL", "must name the model when INSIGHTS_MODEL_URL is set");
  const apiKey = env.INSIGHTS_MODEL_API_KEY?.trim();
  return {
    url,
    model,
    ...(apiKey ? { apiKey } : {}),
    quotaPerHour: integer(env, "INSIGHTS_MODEL_QUOTA_PER_HOUR", 60, 0, 100_000),
    timeoutMs: integer(env, "INSIGHTS_MODEL_TIMEOUT_MS", 8000, 100, 60_000),
  };
}

/**
 * The standard OpenTelemetry switches: traces are on when OTEL_EXPORTER_OTLP_ENDPOINT
 * names a collector's OTLP/HTTP base URL; OTEL_SERVICE_NAME names the service
 * (default race-api). The SDK's other OTEL_* variables (sampling, batching) it reads itself.
 */
export function tracingConfig(env: NodeJS.ProcessEnv): TracingConfig | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint) return undefined;
  let protocol = "";
  try {
    protocol = new URL(endpoint).protocol;
  } catch {
    // reported below
  }
  if (protocol !== "http:" && protocol !== "https:")
    throw new ConfigError(
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "must be the http(s) base URL of an OTLP/HTTP collector, such as http://127.0.0.1:4318",
    );
  return { tracesUrl: `${endpoint.replace(/\/+$/, "")}/v1/traces`, serviceName: text(env, "OTEL_SERVICE_NAME", "race-api") };
}

function baseUrl(env: NodeJS.ProcessEnv, fallback: string): string {
  const raw = env.PUBLIC_BASE_URL?.trim();
  if (!raw) return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError("PUBLIC_BASE_URL", `must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigError("PUBLIC_BASE_URL", `must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, "");
}
