import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/composition/config.js";

describe("configuration", () => {
  it("has defaults for everything but the database", () => {
    expect(loadConfig({})).toEqual({
      host: "127.0.0.1",
      port: 8080,
      grpcPort: 8081,
      metricsPort: 9464,
      databaseUrl: undefined,
      databasePoolSize: 10,
      databaseStatementTimeoutMs: 5000,
      databaseQueueLimit: 100,
      databaseReadUrl: undefined,
      databaseReadMaxLagMs: 1000,
      publicBaseUrl: "http://127.0.0.1:8080",
      logLevel: "info",
      trustProxy: [],
      redisUrl: undefined,
      insightsModel: undefined,
      tracing: undefined,
      streamsPerClient: 10,
      streamHeartbeatMs: 15_000,
      streamStallMs: 30_000,
      // DESIGN.md's "within 5 seconds" for a retired key and a changed client.
      signingKeysRefreshMs: 5000,
      clientStateMaxAgeMs: 5000,
    });
  });

  it("reads every variable", () => {
    const config = loadConfig({
      HOST: "0.0.0.0",
      PORT: "9000",
      GRPC_PORT: "9001",
      METRICS_PORT: "9100",
      DATABASE_URL: "mysql://u:p@db:3306/races",
      DATABASE_POOL_SIZE: "25",
      DATABASE_STATEMENT_TIMEOUT_MS: "2500",
      DATABASE_QUEUE_LIMIT: "0",
      DATABASE_READ_URL: "mysql://reader:p@db-replica:3306/races",
      DATABASE_READ_MAX_LAG_MS: "2500",
      PUBLIC_BASE_URL: "https://api.example.org/",
      LOG_LEVEL: "debug",
      TRUST_PROXY: "10.0.0.1, 192.168.0.0/16,loopback",
      REDIS_URL: "redis://cache:6379/2",
      INSIGHTS_MODEL_URL: "http://127.0.0.1:8000/v1/chat/completions",
      INSIGHTS_MODEL: "llama-3.1-8b",
      INSIGHTS_MODEL_API_KEY: "sk-local",
      INSIGHTS_MODEL_QUOTA_PER_HOUR: "120",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
      OTEL_SERVICE_NAME: "race-api-eu",
      STREAMS_PER_CLIENT: "25",
      STREAM_HEARTBEAT_SECONDS: "5",
      STREAM_STALL_SECONDS: "60",
      SIGNING_KEYS_REFRESH_MS: "250",
      CLIENT_STATE_MAX_AGE_MS: "300",
    });
    expect(config).toEqual({
      host: "0.0.0.0",
      port: 9000,
      grpcPort: 9001,
      metricsPort: 9100,
      databaseUrl: "mysql://u:p@db:3306/races",
      databasePoolSize: 25,
      databaseStatementTimeoutMs: 2500,
      databaseQueueLimit: 0,
      databaseReadUrl: "mysql://reader:p@db-replica:3306/races",
      databaseReadMaxLagMs: 2500,
      publicBaseUrl: "https://api.example.org",
      logLevel: "debug",
      trustProxy: ["10.0.0.1", "192.168.0.0/16", "loopback"],
      redisUrl: "redis://cache:6379/2",
      insightsModel: {
        url: "http://127.0.0.1:8000/v1/chat/completions",
        model: "llama-3.1-8b",
        apiKey: "sk-local",
        quotaPerHour: 120,
        timeoutMs: 8000,
      },
      tracing: { tracesUrl: "http://collector:4318/v1/traces", serviceName: "race-api-eu" },
      streamsPerClient: 25,
      streamHeartbeatMs: 5000,
      streamStallMs: 60_000,
      signingKeysRefreshMs: 250,
      clientStateMaxAgeMs: 300,
    });
  });

  it.each([
    ["PORT", "eighty", /PORT must be a whole number from 0 to 65535/],
    ["PORT", "70000", /PORT must be a whole number/],
    ["GRPC_PORT", "-1", /GRPC_PORT must be a whole number/],
    ["METRICS_PORT", "metrics", /METRICS_PORT must be a whole number from 0 to 65535/],
    ["METRICS_PORT", "8080", /METRICS_PORT must not be the public PORT \(8080\)/],
    ["DATABASE_POOL_SIZE", "0", /DATABASE_POOL_SIZE must be a whole number from 1/],
    ["DATABASE_STATEMENT_TIMEOUT_MS", "50", /DATABASE_STATEMENT_TIMEOUT_MS must be a whole number from 100 to 600000/],
    ["DATABASE_QUEUE_LIMIT", "-5", /DATABASE_QUEUE_LIMIT must be a whole number/],
    ["STREAMS_PER_CLIENT", "0", /STREAMS_PER_CLIENT must be a whole number from 1/],
    ["STREAM_HEARTBEAT_SECONDS", "1.5", /STREAM_HEARTBEAT_SECONDS must be a whole number/],
    ["STREAM_STALL_SECONDS", "0", /STREAM_STALL_SECONDS must be a whole number from 1/],
    ["SIGNING_KEYS_REFRESH_MS", "5", /SIGNING_KEYS_REFRESH_MS must be a whole number from 10 to 300000/],
    ["CLIENT_STATE_MAX_AGE_MS", "5s", /CLIENT_STATE_MAX_AGE_MS must be a whole number from 10 to 300000/],
    ["DATABASE_URL", "postgres://u@h/db", /DATABASE_URL must use the mysql: scheme/],
    ["DATABASE_URL", "mysql://u@h:3306", /DATABASE_URL must name a database/],
    ["DATABASE_URL", "not a url", /DATABASE_URL must be a URL/],
    ["DATABASE_READ_URL", "postgres://u@h/db", /DATABASE_READ_URL must use the mysql: scheme/],
    ["DATABASE_READ_URL", "mysql://u@h:3306", /DATABASE_READ_URL must name a database/],
    ["DATABASE_READ_MAX_LAG_MS", "100", /DATABASE_READ_MAX_LAG_MS must be a whole number from 500 to 60000/],
    ["PUBLIC_BASE_URL", "ftp://x", /PUBLIC_BASE_URL must be an http\(s\) URL/],
    ["LOG_LEVEL", "loud", /LOG_LEVEL must be one of fatal, error/],
    ["TRUST_PROXY", "10.0.0.0/99", /TRUST_PROXY must list proxy addresses/],
    ["TRUST_PROXY", "the-proxy", /TRUST_PROXY must list proxy addresses/],
    ["REDIS_URL", "http://cache", /REDIS_URL must use the redis: or rediss: scheme/],
    ["INSIGHTS_MODEL_URL", "ftp://model", /INSIGHTS_MODEL_URL must be the http\(s\) URL/],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318", /OTEL_EXPORTER_OTLP_ENDPOINT must be the http\(s\) base URL/],
  ])("refuses %s=%s, naming the variable", (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(name);
    expect((error as Error).message).toMatch(message);
  });
});

describe("tracing", () => {
  it("is off without OTEL_EXPORTER_OTLP_ENDPOINT, and names the service race-api by default", () => {
    expect(loadConfig({ OTEL_SERVICE_NAME: "only-a-name" }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example:4318" }).tracing).toEqual({
      tracesUrl: "https://otel.example:4318/v1/traces",
      serviceName: "race-api",
    });
  });
});

describe("the metrics port", () => {
  it("is off at 0, and may be any port but the public one", () => {
    expect(loadConfig({ METRICS_PORT: "0" }).metricsPort).toBe(0);
    expect(loadConfig({ PORT: "0", METRICS_PORT: "0" }).metricsPort).toBe(0);
    expect(loadConfig({ PORT: "9464", METRICS_PORT: "9465" }).metricsPort).toBe(9465);
    expect(() => loadConfig({ PORT: "9464" })).toThrow(/METRICS_PORT must not be the public PORT \(9464\)/);
  });
});

describe("the insights model settings", () => {
  const URL_ = "http://127.0.0.1:8000/v1/chat/completions";

  it("are absent without a URL (template lines only)", () => {
    expect(loadConfig({}).insightsModel).toBeUndefined();
    expect(loadConfig({ INSIGHTS_MODEL_URL: "  ", INSIGHTS_MODEL: "m" }).insightsModel).toBeUndefined();
  });

  it("read every variable, with defaults", () => {
    expect(loadConfig({ INSIGHTS_MODEL_URL: URL_, INSIGHTS_MODEL: "qwen2.5-7b" }).insightsModel).toStrictEqual({
      url: URL_,
      model: "qwen2.5-7b",
      quotaPerHour: 60,
      timeoutMs: 8000,
    });
    expect(
      loadConfig({
        INSIGHTS_MODEL_URL: URL_,
        INSIGHTS_MODEL: "m",
        INSIGHTS_MODEL_API_KEY: "sk-test",
        INSIGHTS_MODEL_QUOTA_PER_HOUR: "0",
        INSIGHTS_MODEL_TIMEOUT_MS: "2500",
      }).insightsModel,
    ).toStrictEqual({ url: URL_, model: "m", apiKey: "sk-test", quotaPerHour: 0, timeoutMs: 2500 });
  });

  it.each([
    [{ INSIGHTS_MODEL_URL: "not a url", INSIGHTS_MODEL: "m" }, "INSIGHTS_MODEL_URL"],
    [{ INSIGHTS_MODEL_URL: URL_ }, "INSIGHTS_MODEL"],
    [{ INSIGHTS_MODEL_URL: URL_, INSIGHTS_MODEL: "m", INSIGHTS_MODEL_QUOTA_PER_HOUR: "ten" }, "INSIGHTS_MODEL_QUOTA_PER_HOUR"],
    [{ INSIGHTS_MODEL_URL: URL_, INSIGHTS_MODEL: "m", INSIGHTS_MODEL_TIMEOUT_MS: "99" }, "INSIGHTS_MODEL_TIMEOUT_MS"],
  ])("refuse %o, naming %s", (env, variable) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
  });
});
