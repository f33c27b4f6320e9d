// A running API over a test file's database, with clients in every state the guard
// distinguishes, and small helpers to call it over REST, Connect and gRPC.

import { fromBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll } from "vitest";
import type { Logger } from "pino";
import { ErrorInfoSchema, RetryInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import type { Config } from "../../src/composition/config.js";
import { importScenario } from "../../src/scenario/import.js";
import type { Client, Scenario } from "../../src/domain/scenario.js";
import type { Runtime, RuntimeConfig } from "../../src/composition/runtime.js";
import type { Pool } from "../../src/store/pool.js";
import { startServer, type RunningServer } from "../../src/composition/server.js";
import { useFreshDatabase, type TestDatabase } from "./database.js";
import { testRuntime } from "./runtime.js";

export const CLUB = "c1000000-0000-4000-8000-000000000001";
export const CO_HOST_CLUB = "c2000000-0000-4000-8000-000000000002";
export const OTHER_CLUB = "c3000000-0000-4000-8000-000000000003";
export const ALL_SCOPES = ["tracking:read", "events:read", "results:read"];

/** Clients of CLUB unless said otherwise; each secret is `${clientId}-secret`. */
export const CLIENTS = {
  overlay: { scopes: ALL_SCOPES },
  trackingOnly: { scopes: ["tracking:read"] },
  disabled: { scopes: ALL_SCOPES, disabled: true },
  expired: { scopes: ALL_SCOPES, expiresAt: "2020-01-01T00:00:00Z" },
  allowlisted: { scopes: ALL_SCOPES, ipAllowlist: ["10.1.0.0/16", "2001:db8::/32"] },
  coHost: { scopes: ALL_SCOPES, clubId: CO_HOST_CLUB },
  other: { scopes: ALL_SCOPES, clubId: OTHER_CLUB },
} satisfies Record<string, Partial<Client>>;
export type ClientName = keyof typeof CLIENTS;

export function secretOf(clientId: string): string {
  return `${clientId}-secret`;
}

/** Three clubs and the clients above; tests add their own events. */
export function identityScenario(): Scenario {
  return {
    format: "race-scenario/v1",
    clubs: [
      { id: CLUB, name: "Main Club" },
      { id: CO_HOST_CLUB, name: "Co-host Club", rateLimitPerMinute: 90 },
      { id: OTHER_CLUB, name: "Other Club" },
    ],
    clients: Object.entries(CLIENTS).map(([clientId, client]) => ({ clientSecret: secretOf(clientId), clubId: CLUB, clientId, ...client })),
    events: [],
  };
}

export interface Api {
  url: string;
  grpcUrl: string;
  runtime: Runtime;
  close(): Promise<void>;
}

/**
 * `db.pool` unless `pool` is given (e.g. one with a short statement time limit); a free
 * port unless `port` is given (a page that must reach the API at its PUBLIC_BASE_URL);
 * a silent logger unless `logger` is given.
 */
export async function startApi(
  db: TestDatabase,
  config: Partial<RuntimeConfig> = {},
  pool: Pool = db.pool,
  port = 0,
  logger?: Logger,
): Promise<Api> {
  const runtime = await testRuntime({ ...db, pool }, config, logger);
  const server: RunningServer = await startServer(
    { host: "127.0.0.1", port, grpcPort: 0 } satisfies Pick<Config, "host" | "port" | "grpcPort">,
    runtime,
  );
  return {
    url: server.httpUrl,
    grpcUrl: server.grpcUrl,
    runtime,
    async close() {
      await server.close();
      await runtime.close();
    },
  };
}

/** An API that `useApi` starts before the file's tests, with the file's database and a token. */
export interface ApiUnderTest extends Api {
  db: TestDatabase;
  /** A token of the client `useApi` was given; "" when none. */
  token: string;
}

/**
 * The start of most API test files: a fresh database holding `scenario` (the identities
 * when none is given), the API on real listeners before the tests and closed after
 * them, and a token of `client` when one is named.
 */
export function useApi(options: { scenario?: () => Scenario; client?: string; config?: Partial<RuntimeConfig> } = {}): ApiUnderTest {
  const db = useFreshDatabase();
  let api: Api | undefined;
  let token = "";
  beforeAll(async () => {
    await seedIdentities(db, options.scenario?.());
    api = await startApi(db, options.config);
    if (options.client) token = await tokenFor(api.url, options.client);
  });
  afterAll(() => api?.close());
  const started = (): Api => {
    if (!api) throw new Error("the API starts in beforeAll");
    return api;
  };
  return {
    db,
    get url() {
      return started().url;
    },
    get grpcUrl() {
      return started().grpcUrl;
    },
    get runtime() {
      return started().runtime;
    },
    get token() {
      return token;
    },
    close: () => started().close(),
  };
}

export async function seedIdentities(db: TestDatabase, scenario: Scenario = identityScenario()): Promise<void> {
  await importScenario(db.pool, scenario);
}

export async function requestToken(
  url: string,
  clientId: string,
  options: { scope?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const form = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: secretOf(clientId) });
  if (options.scope !== undefined) form.set("scope", options.scope);
  return fetch(`${url}/api/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...options.headers },
    body: form,
  });
}

export async function tokenFor(url: string, clientId: string, scope?: string): Promise<string> {
  const response = await requestToken(url, clientId, scope === undefined ? {} : { scope });
  if (response.status !== 200) throw new Error(`token for ${clientId}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** A Connect-protocol unary call over HTTP/1.1 with a JSON body. */
export async function connectCall(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

export interface ConnectErrorBody {
  code: string;
  reason: string | undefined;
  metadata: Record<string, string>;
  retryDelaySeconds: number | undefined;
}

/** The Connect JSON error with its ErrorInfo and RetryInfo details decoded. */
export async function connectError(response: Response): Promise<ConnectErrorBody> {
  const body = (await response.json()) as { code: string; details?: Array<{ type: string; value: string }> };
  const detail = (type: string) => body.details?.find((d) => d.type === type)?.value;
  const info = detail("google.rpc.ErrorInfo");
  const retry = detail("google.rpc.RetryInfo");
  const errorInfo = info ? fromBinary(ErrorInfoSchema, Buffer.from(info, "base64")) : undefined;
  return {
    code: body.code,
    reason: errorInfo?.reason,
    metadata: { ...errorInfo?.metadata },
    retryDelaySeconds: retry ? Number(fromBinary(RetryInfoSchema, Buffer.from(retry, "base64")).retryDelay?.seconds) : undefined,
  };
}
