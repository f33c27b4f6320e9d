// What every surface (Connect on HTTP/1.1, the gRPC listener, the REST gateway) hands
// a service call besides the request message: the caller's address and a trace id.

import { randomBytes } from "node:crypto";
import { createContextKey, createContextValues, type ContextValues } from "@connectrpc/connect";
import { activeTraceId, tracingOn } from "../telemetry/tracing.js";

export const callerAddress = createContextKey<string>("", { description: "caller IP address" });
export const traceId = createContextKey<string>("", { description: "trace id of the call" });

export function callContext(address: string, traceparent: string | string[] | undefined): ContextValues {
  return createContextValues().set(callerAddress, address).set(traceId, traceIdFrom(traceparent));
}

/**
 * A W3C traceparent's trace id when the caller sent a valid one, otherwise a new one;
 * with tracing on, the trace id of the request's span (which honoured the traceparent).
 */
export function traceIdFrom(traceparent: string | string[] | undefined): string {
  if (tracingOn) {
    const active = activeTraceId();
    if (active) return active;
  }
  const incoming = typeof traceparent === "string" ? /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/.exec(traceparent)?.[1] : undefined;
  return incoming && !/^0+$/.test(incoming) ? incoming : newTraceId();
}

// New trace ids are cut from a pool of random bytes drawn 256 ids at a time: one hex
// slice per request, a quarter of the cost of a randomUUID with its dashes removed.
// (All 128 bits are random; the all-zero id W3C forbids has odds of 2^-128.)
const IDS_PER_DRAW = 256;
let entropy = Buffer.alloc(0);
let nextId = 0;

function newTraceId(): string {
  if (nextId === entropy.length) {
    entropy = randomBytes(16 * IDS_PER_DRAW);
    nextId = 0;
  }
  nextId += 16;
  return entropy.toString("hex", nextId - 16, nextId);
}
