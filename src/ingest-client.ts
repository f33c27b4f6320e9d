// A client of IngestService for our own tools (the demo, `race-api feed`, the
// benchmarks): client credentials turned into a bearer token at the server's token
// endpoint, renewed before it expires, on gRPC (h2c or TLS) or the Connect protocol.

import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { IngestService } from "../gen/racing/v1/ingest_pb.js";

export type IngestClient = Client<typeof IngestService>;

export interface IngestClientOptions {
  /** Base URL of the server's HTTP listener: the token endpoint, and Connect unless `grpcUrl` is set. */
  url: string;
  clientId: string;
  clientSecret: string;
  /** Base URL of the server's gRPC listener: IngestService over gRPC instead of Connect. */
  grpcUrl?: string;
}

/** A token is renewed this long before it expires, so no call carries one that lapses on the way. */
const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000;

export function createIngestClient(options: IngestClientOptions): IngestClient {
  const interceptors = [bearerToken(options)];
  const transport: Transport = options.grpcUrl
    ? createGrpcTransport({ baseUrl: options.grpcUrl, interceptors })
    : createConnectTransport({ baseUrl: options.url, httpVersion: "1.1", useBinaryFormat: true, interceptors });
  return createClient(IngestService, transport);
}

/** Adds `authorization: Bearer ...`, fetching a token when there is none or it is about to expire. */
function bearerToken(options: IngestClientOptions): Interceptor {
  let token: { value: string; renewAtMs: number } | null = null;
  let fetching: Promise<string> | null = null;
  const current = async (): Promise<string> => {
    if (token && Date.now() < token.renewAtMs) return token.value;
    fetching ??= fetchToken(options).then(
      (fresh) => {
        token = fresh;
        fetching = null;
        return fresh.value;
      },
      (error: unknown) => {
        fetching = null;
        throw error;
      },
    );
    return fetching;
  };
  return (next) => async (request) => {
    request.header.set("authorization", `Bearer ${await current()}`);
    return next(request);
  };
}

async function fetchToken(options: IngestClientOptions): Promise<{ value: string; renewAtMs: number }> {
  const startedMs = Date.now();
  let response: Response;
  try {
    response = await fetch(new URL("/api/v1/oauth/token", options.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: options.clientId,
        client_secret: options.clientSecret,
        scope: "tracking:write",
      }),
    });
  } catch (error) {
    throw new ConnectError(`token endpoint unreachable: ${String((error as { cause?: unknown }).cause ?? error)}`, Code.Unavailable);
  }
  const body = (await response.json().catch(() => ({}))) as {
    access_token?: string;
    expires_in?: number;
    error?: string;
    error_description?: string;
  };
  if (response.status !== 200 || typeof body.access_token !== "string") {
    const why = `token endpoint answered ${response.status}${body.error ? ` ${body.error}` : ""}${body.error_description ? `: ${body.error_description}` : ""}`;
    // A wrong secret or scope does not get better by retrying; a busy or down server may.
    throw new ConnectError(why, response.status >= 500 || response.status === 429 ? Code.Unavailable : Code.Unauthenticated);
  }
  const lifetimeMs = (body.expires_in ?? 3600) * 1000;
  return { value: body.access_token, renewAtMs: startedMs + Math.max(lifetimeMs / 2, lifetimeMs - RENEW_BEFORE_EXPIRY_MS) };
}
