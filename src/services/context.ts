// What every surface (Connect on HTTP/1.1, the gRPC listener, the REST gateway) hands
// a service call besides the request message: the caller's address and a trace id.

import { randomUUID } from "node:crypto";
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
  // randomUUID draws from a buffered entropy pool: a quarter of randomBytes' cost per call.
  return incoming && !/^0+$/.test(incoming) ? incoming : randomUUID().replaceAll("-", "");
}
