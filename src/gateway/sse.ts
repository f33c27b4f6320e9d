// The Watch streams as Server-Sent Events. Translation only, like the rest of the
// gateway: the RPC decides what to send and when (guard, limits, fan-out, heartbeats,
// revocation); this writes each message as an SSE event whose data is exactly the
// polled endpoint's JSON, serialised by the same schema, once per message however
// many clients receive it.

import type { DescMethodServerStreaming, DescMessage, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { FastifyReply, FastifyRequest, FastifySchema } from "fastify";
import type { ServerResponse } from "node:http";
import { NO_STORE } from "../caching/cache-policy.js";
import type { Services } from "../calls/connect-routes.js";
import { ref, type JsonSchema } from "./json-schema-ref.js";
import { streamRouteSchema, type StreamRouteDocs } from "./route-schemas.js";
import type { Query } from "./rpc-call.js";
import { v1Json } from "./v1-json.js";
import { componentName } from "./v1-schema.js";
import { droppedSubscribers } from "../telemetry/metrics.js";
import { recordRestStreamEnd } from "../telemetry/request-metrics.js";

/** One event of a stream: its id, the shared message its bytes are kept with, and its JSON. */
export interface StreamEvent {
  id: string;
  /** The message shared by every subscriber: the frame's bytes are kept with it. */
  shared: object;
  json: () => unknown;
}

export interface StreamRouteSpec<I extends DescMessage, O extends DescMessage> extends Omit<StreamRouteDocs, "rpc" | "body"> {
  path: string;
  rpc: DescMethodServerStreaming<I, O>;
  /** The message each event's data is the v1 JSON of: the polled endpoint's body. */
  body: DescMessage;
  implementation: (services: Services) => (request: MessageShape<I>, context: HandlerContext) => AsyncIterable<MessageInitShape<O>>;
  /** Path, query and Last-Event-ID as the request message. */
  request: (request: FastifyRequest) => MessageInitShape<I>;
  /** Adjusts the raw query before the schema validates it. */
  normalizeQuery?: (query: Query) => void;
  /** The stream message's id and body message, or null for a heartbeat. */
  event: (message: MessageShape<O>) => { id: string; body: object } | null;
}

export interface StreamRoute {
  path: string;
  rpc: DescMethodServerStreaming;
  /** The message each event's data is the v1 JSON of. */
  body: DescMessage;
  schema: FastifySchema;
  normalizeQuery?: (query: Query) => void;
  eventName: string;
  /** The schema each event's data is serialised with: a reference to the polled body's component. */
  dataSchema: JsonSchema;
  open(services: Services, request: FastifyRequest, context: HandlerContext): AsyncIterator<object>;
  event(message: object): StreamEvent | null;
}

export function streamRoute<I extends DescMessage, O extends DescMessage>(spec: StreamRouteSpec<I, O>): StreamRoute {
  const json = v1Json(spec.body);
  return {
    path: spec.path,
    rpc: spec.rpc as DescMethodServerStreaming,
    body: spec.body,
    schema: streamRouteSchema({ ...spec, rpc: spec.rpc, body: componentName(spec.body) }),
    ...(spec.normalizeQuery ? { normalizeQuery: spec.normalizeQuery } : {}),
    eventName: spec.eventName,
    dataSchema: ref(componentName(spec.body)),
    open(services, request, context) {
      const messages = spec.implementation(services)(create(spec.rpc.input, spec.request(request)), context);
      return messages[Symbol.asyncIterator]() as AsyncIterator<object>;
    },
    event: (message) => {
      const event = spec.event(message as MessageShape<O>);
      return event && { id: event.id, shared: event.body, json: () => json(event.body) };
    },
  };
}

/** The headers of an open stream (and of the answer to HEAD, which opens none). */
export const STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": NO_STORE,
  // Proxies such as nginx would otherwise buffer the stream.
  "x-accel-buffering": "no",
};

/** `: heartbeat`: an SSE comment, which EventSource ignores and proxies see as traffic. */
const HEARTBEAT = Buffer.from(": heartbeat\n\n");
/** Reconnect after 1 s: the server ends streams on shutdown so clients go elsewhere at once. */
const RETRY = Buffer.from("retry: 1000\n\n");

const frames = new WeakMap<object, Buffer>();

/** The bytes of one event, built once per shared message. */
export function eventFrame(eventName: string, event: StreamEvent, serialize: (json: unknown) => string): Buffer {
  let frame = frames.get(event.shared);
  if (!frame) {
    // JSON has no raw newlines, so the data is one `data:` line.
    frame = Buffer.from(`id: ${event.id}\nevent: ${eventName}\ndata: ${serialize(event.json())}\n\n`);
    frames.set(event.shared, frame);
  }
  return frame;
}

export interface SseOptions {
  /** A client whose socket takes no bytes for this long is dropped. */
  stallMs: number;
  /** The problem+json body of an error that ends an open stream. */
  problemBody: (error: unknown) => string;
}

/**
 * Writes the stream after its first message (or heartbeat): the call was accepted, so
 * the answer is 200 text/event-stream with the call's headers. A later error ends the
 * stream with an `error` event holding the problem the unary call would have answered.
 */
export async function writeStream(
  reply: FastifyReply,
  route: StreamRoute,
  messages: AsyncIterator<object>,
  first: object,
  headers: Record<string, string>,
  serialize: (json: unknown) => string,
  options: SseOptions,
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { ...headers, ...STREAM_HEADERS });
  raw.write(RETRY);
  let failure: unknown;
  try {
    let message: object | undefined = first;
    while (message !== undefined && !raw.destroyed) {
      const event = route.event(message);
      const written = raw.write(event ? eventFrame(route.eventName, event, serialize) : HEARTBEAT);
      // Never more than one event waiting in our buffer: a client that stops reading is dropped.
      if (!written && !(await drained(raw, options.stallMs))) {
        if (!raw.destroyed) droppedSubscribers.inc({ reason: "slow_socket" });
        raw.destroy();
        break;
      }
      const next: IteratorResult<object> = await messages.next();
      message = next.done ? undefined : next.value;
    }
  } catch (error) {
    failure = error;
    if (!raw.destroyed) raw.write(`event: error\ndata: ${options.problemBody(error)}\n\n`);
  } finally {
    await messages.return?.();
    if (!raw.destroyed) raw.end();
    recordRestStreamEnd(reply.request, failure);
  }
}

function drained(raw: ServerResponse, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      raw.off("drain", onDrain);
      raw.off("close", onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    raw.once("drain", onDrain);
    raw.once("close", onClose);
  });
}
