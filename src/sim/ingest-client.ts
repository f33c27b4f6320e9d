// A client of IngestService for our own tools (the demo, `race-api feed`, the
// benchmarks): client credentials turned into a bearer token at the server's token
// endpoint, renewed before it expires, on gRPC (h2c or TLS) or the Connect protocol;
// and a fix pusher, the one PushFixes stream a platform keeps open.

import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { createWritableIterable, type WritableIterable } from "@connectrpc/connect/protocol";
import { IngestService, type PushFixesRequestSchema, type PushFixesResponse } from "../../gen/racing/v1/ingest_pb.js";
import { ApiError, toConnectError } from "../errors/api-error.js";
import { isErrorCode } from "../errors/codes.js";

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

/** One batch of fixes as PushFixes carries it, without the sequence the pusher gives it. */
export type PushedBatch = Omit<MessageInitShape<typeof PushFixesRequestSchema>, "sequence" | "$typeName">;

/** The one PushFixes stream a platform keeps open (HTTP/2 only: a client made with `grpcUrl`). */
export interface FixPusher {
  /**
   * Sends `batch` with the next sequence without waiting for earlier answers. Resolves
   * with its answer once committed; rejects with the answer's error when the batch was
   * refused as a whole, or with the stream's when it ended first (nothing is known of
   * the batch then: push it again, from the first one without an answer).
   */
  push(batch: PushedBatch): Promise<PushFixesResponse>;
  /** Half-closes the stream and waits for the answers still due. */
  close(): Promise<void>;
}

/** A stream is replaced this long after it opened, so it never outlives the token it opened with (5 minutes left at least). */
const STREAM_MAX_AGE_MS = 4 * 60_000;

export function createFixPusher(client: IngestClient, options: { maxStreamAgeMs?: number } = {}): FixPusher {
  const maxAgeMs = options.maxStreamAgeMs ?? STREAM_MAX_AGE_MS;
  let stream: PushStream | null = null;
  return {
    push(batch) {
      if (!stream?.usable(maxAgeMs)) {
        stream?.close();
        stream = new PushStream(client);
      }
      return stream.push(batch);
    },
    async close() {
      stream?.close();
      await stream?.done;
    },
  };
}

/** One PushFixes call: answers come in the order sent, each settling its batch's promise. */
class PushStream {
  private readonly openedMs = Date.now();
  private readonly outbox: WritableIterable<MessageInitShape<typeof PushFixesRequestSchema>> = createWritableIterable();
  private readonly waiting = new Map<bigint, { resolve: (answer: PushFixesResponse) => void; reject: (error: unknown) => void }>();
  private nextSequence = 1n;
  private ended = false;
  readonly done: Promise<void>;

  constructor(client: IngestClient) {
    this.done = this.read(client);
  }

  usable(maxAgeMs: number): boolean {
    return !this.ended && Date.now() - this.openedMs < maxAgeMs;
  }

  push(batch: PushedBatch): Promise<PushFixesResponse> {
    const sequence = this.nextSequence++;
    return new Promise((resolve, reject) => {
      this.waiting.set(sequence, { resolve, reject });
      this.outbox.write({ ...batch, sequence }).catch((error: unknown) => this.settleAll(error));
    });
  }

  close(): void {
    this.outbox.close();
  }

  private async read(client: IngestClient): Promise<void> {
    try {
      for await (const answer of client.pushFixes(this.outbox)) {
        const waiting = this.waiting.get(answer.sequence);
        this.waiting.delete(answer.sequence);
        if (answer.error) waiting?.reject(refusal(answer.error.reason, answer.error.metadata));
        else waiting?.resolve(answer);
      }
      // The server ended the stream (it is shutting down): what it did not answer is unknown.
      this.settleAll(new ConnectError("the stream ended before these were answered", Code.Unavailable));
    } catch (error) {
      this.settleAll(ConnectError.from(error));
    }
  }

  private settleAll(error: unknown): void {
    this.ended = true;
    this.outbox.close();
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}

/** A batch's refusal as the ConnectError AppendFixes would have answered it with. */
function refusal(reason: string, metadata: Record<string, string>): ConnectError {
  return isErrorCode(reason) ? toConnectError(new ApiError(reason, metadata), "") : new ConnectError(reason, Code.Unknown);
}
