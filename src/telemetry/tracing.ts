// OpenTelemetry traces: a span for each HTTP request (instrumentation-http, which also
// honours an incoming W3C traceparent), one for each RPC (rpcSpan, on every surface:
// REST, Connect, gRPC-Web, gRPC) and one for each mysql2 query (instrumentation-mysql2),
// exported over OTLP/HTTP. On only when OTEL_EXPORTER_OTLP_ENDPOINT is set (composition/config.ts);
// bin/race-api.js starts it before anything loads http or mysql2, which the
// instrumentations patch as they load. Off, the SDK is never loaded and every hook here
// is one test of `tracingOn`.

import { context, isSpanContextValid, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { DescMethod } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { ApiError, describeRpcError } from "../errors/api-error.js";

export let tracingOn = false;

const tracer = trace.getTracer("race-api");

export interface TracingConfig {
  /** Where spans are sent: OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, as the OTLP spec builds it. */
  tracesUrl: string;
  serviceName: string;
}

/** Starts the SDK; returns what flushes and stops it. */
export async function startTracing(settings: TracingConfig): Promise<() => Promise<void>> {
  const [{ NodeSDK }, { OTLPTraceExporter }, { HttpInstrumentation }, { MySQL2Instrumentation }] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/instrumentation-http"),
    import("@opentelemetry/instrumentation-mysql2"),
  ]);
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    traceExporter: new OTLPTraceExporter({ url: settings.tracesUrl }),
    instrumentations: [
      // Prometheus scrapes are not requests of the API.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => request.url === "/metrics" }),
      new MySQL2Instrumentation(),
    ],
  });
  sdk.start();
  tracingOn = true;
  return async () => {
    tracingOn = false;
    await sdk.shutdown();
  };
}

/** The trace id of the span the caller runs in, if tracing is on and there is one. */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan()?.spanContext();
  return span && isSpanContextValid(span) ? span.traceId : undefined;
}

/**
 * Runs an RPC in a span of its own: a child of the HTTP request's span, or, on the
 * gRPC listener (HTTP/2, which instrumentation-http does not see), a server span under
 * the caller's traceparent. `work` gets the span's trace id, the one its answers show.
 */
export function rpcSpan<T>(method: DescMethod, traceparent: string | null, work: (traceId: string) => Promise<T>): Promise<T> {
  const active = context.active();
  const inRequest = trace.getSpan(active) !== undefined;
  const parent = inRequest || !traceparent ? active : propagation.extract(active, { traceparent });
  const attributes = { "rpc.system": "connect_rpc", "rpc.service": method.parent.typeName, "rpc.method": method.name };
  return tracer.startActiveSpan(
    `${method.parent.typeName}/${method.name}`,
    { kind: inRequest ? SpanKind.INTERNAL : SpanKind.SERVER, attributes },
    parent,
    async (span) => {
      try {
        return await work(span.spanContext().traceId);
      } catch (error) {
        span.setAttribute("race_api.error_code", apiErrorCode(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks the active span (the call's RPC span) failed with `error`'s code: an error Connect answers never leaves the span's work. */
export function markActiveSpanFailed(error: unknown): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.setAttribute("race_api.error_code", apiErrorCode(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** The spec's code an error carries (the ErrorInfo reason of a ConnectError); INTERNAL_ERROR for anything else. */
export function apiErrorCode(error: unknown): string {
  if (error instanceof ApiError) return error.code;
  return error instanceof ConnectError ? describeRpcError(error).code : "INTERNAL_ERROR";
}
