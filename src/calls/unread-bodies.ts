// Request bodies answered before they were read to the end: a message over the size
// bound, a refused call, a malformed envelope. Over HTTP/1.1 the client is usually
// still sending; a server that closes then resets the connection and the client sees
// EPIPE or ECONNRESET instead of the answer (Node destroys the socket when a
// half-read request is dropped). So the rest of the body is read and dropped, up to
// DRAIN_MAX_BYTES, while the answer goes out, and the connection stays usable. Past
// that much, it is closed: the client has had its answer for that long.

import type { IncomingMessage } from "node:http";
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from "@connectrpc/connect/protocol";

/** How much of an unread body is read and dropped before the connection is closed instead. */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/** `handler`, whose HTTP/1.x request body is drained rather than dropped when it answers before reading it all. */
export function withUnreadBodyDrained(handler: UniversalHandler): UniversalHandler {
  const wrapped = async (request: UniversalServerRequest): Promise<UniversalServerResponse> => {
    // HTTP/2 ends a stream on its own without touching the connection.
    if (request.httpVersion.startsWith("2") || !isByteStream(request.body)) return handler(request);
    const body = drainable(request.body);
    const response = await handler({ ...request, body });
    // A body still unread once the answer is written (never asked for: a refused call,
    // a bad content type) is drained too.
    return { ...response, body: thenDrain(response.body, body.drain) };
  };
  return Object.assign(wrapped, handler);
}

/**
 * Drops what is left of a request Fastify answered without reading (a body over its
 * limit, a content type it cannot parse), up to DRAIN_MAX_BYTES. Call it with the
 * `connection: close` Fastify set for such a request removed.
 */
export function drainRequest(request: IncomingMessage): void {
  if (request.complete) return;
  let read = 0;
  request.on("data", (chunk: Buffer) => {
    read += chunk.length;
    if (read > DRAIN_MAX_BYTES) request.destroy();
  });
  request.resume();
}

type Drainable = AsyncIterable<Uint8Array> & { drain: () => void };

/** The body as Connect reads it; stopping early (return) drains the rest instead of destroying the request. */
function drainable(body: AsyncIterable<Uint8Array>): Drainable {
  let source: AsyncIterator<Uint8Array> | undefined;
  let done = false;
  let draining = false;
  const drain = () => {
    if (done || draining) return;
    draining = true;
    source ??= body[Symbol.asyncIterator]();
    const it = source;
    void (async () => {
      let read = 0;
      for (let next = await it.next(); !next.done; next = await it.next()) {
        read += next.value.byteLength;
        if (read > DRAIN_MAX_BYTES) return void (await it.return?.());
      }
    })().catch(() => undefined);
  };
  return {
    drain,
    [Symbol.asyncIterator]() {
      source ??= body[Symbol.asyncIterator]();
      const it = source;
      return {
        async next() {
          const next = await it.next();
          if (next.done) done = true;
          return next;
        },
        async return() {
          drain();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

async function* thenDrain(body: AsyncIterable<Uint8Array> | undefined, drain: () => void): AsyncIterable<Uint8Array> {
  try {
    if (body) yield* body;
  } finally {
    drain();
  }
}

function isByteStream(body: UniversalServerRequest["body"]): body is AsyncIterable<Uint8Array> {
  return typeof body === "object" && body !== null && Symbol.asyncIterator in body;
}
