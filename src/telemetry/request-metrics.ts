// Requests by surface (rest, connect, grpc-web, grpc), route or RPC, status and error
// code, with latency histograms. Each route keeps its counts and histogram buckets in
// plain numbers, found by a map look-up or two per request (no label objects, no
// strings built) and turned into Prometheus series only when /metrics is read.

import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { DescMethod } from "@bufbuild/protobuf";
import type { FastifyReply, FastifyRequest } from "fastify";
import { describeRpcError } from "../errors/api-error.js";
import type { ErrorCode } from "../errors/codes.js";
import { registry } from "./metrics.js";
import { apiErrorCode } from "./tracing.js";

const PROBLEM_CODE = Symbol("problem code");

/** Notes the code of the problem a reply sends (gateway/problem.ts), for the request counts. */
export function markProblemCode(reply: FastifyReply, code: ErrorCode): void {
  (reply as FastifyReply & { [PROBLEM_CODE]?: ErrorCode })[PROBLEM_CODE] = code;
}

function problemCodeOf(reply: FastifyReply): ErrorCode | undefined {
  return (reply as FastifyReply & { [PROBLEM_CODE]?: ErrorCode })[PROBLEM_CODE];
}

export type Surface = "rest" | "connect" | "grpc-web" | "grpc";

/** Seconds; from a cached answer (well under a millisecond) to the statement time limit. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface Outcome {
  status: string;
  code: string;
  count: number;
}

class RouteStats {
  private readonly outcomes = new Map<number | string, Outcome>();
  /** Per bucket (the last one is +Inf), not yet cumulative. */
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  constructor(
    readonly surface: Surface,
    readonly route: string,
  ) {}

  /** One answer; `seconds` null for a stream, whose duration is no latency. */
  record(status: number | string, code: string, seconds: number | null): void {
    // A success is keyed by its status alone: nothing is built for it.
    const key = code === "" ? status : `${status} ${code}`;
    let outcome = this.outcomes.get(key);
    if (!outcome) {
      outcome = { status: String(status), code, count: 0 };
      this.outcomes.set(key, outcome);
    }
    outcome.count += 1;
    if (seconds === null) return;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket += 1;
    this.buckets[bucket]! += 1;
    this.sum += seconds;
    this.count += 1;
  }

  counterValues(): Array<{ labels: Record<string, string>; value: number }> {
    return [...this.outcomes.values()].map((outcome) => ({
      labels: { surface: this.surface, route: this.route, status: outcome.status, code: outcome.code },
      value: outcome.count,
    }));
  }

  histogramValues(name: string): Array<{ labels: Record<string, string | number>; value: number; metricName: string }> {
    if (this.count === 0) return [];
    const labels = { surface: this.surface, route: this.route };
    const values = [];
    let cumulative = 0;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      cumulative += this.buckets[i]!;
      values.push({ labels: { ...labels, le: LATENCY_BUCKETS[i]! }, value: cumulative, metricName: `${name}_bucket` });
    }
    values.push({ labels: { ...labels, le: "+Inf" }, value: this.count, metricName: `${name}_bucket` });
    values.push({ labels, value: this.sum, metricName: `${name}_sum` }, { labels, value: this.count, metricName: `${name}_count` });
    return values;
  }
}

const routes: RouteStats[] = [];

const REQUESTS = "race_api_requests_total";
const DURATION = "race_api_request_duration_seconds";
registry.registerMetric({
  name: REQUESTS,
  help: "Answered calls by surface (rest, connect, grpc-web, grpc), route (REST path template) or RPC (service/method), status (HTTP status for REST; the gRPC code for RPCs) and code (the spec's error code; empty on success).",
  type: "counter",
  get: () => ({ name: REQUESTS, help: "", type: "counter", aggregator: "sum", values: routes.flatMap((route) => route.counterValues()) }),
} as unknown as Parameters<typeof registry.registerMetric>[0]);
registry.registerMetric({
  name: DURATION,
  help: "Time from a call's arrival to its answer, by surface and route or RPC; streams are not included.",
  type: "histogram",
  get: () => ({
    name: DURATION,
    help: "",
    type: "histogram",
    aggregator: "sum",
    values: routes.flatMap((route) => route.histogramValues(DURATION)),
  }),
} as unknown as Parameters<typeof registry.registerMetric>[0]);

function routeStats(surface: Surface, route: string): RouteStats {
  const stats = new RouteStats(surface, route);
  routes.push(stats);
  return stats;
}

// REST: the gateway's routes by path template; a path no route matches is "unmatched".
const restRoutes = new Map<string, RouteStats>();
let unmatched: RouteStats | null = null;

function restStats(path: string | undefined): RouteStats {
  let stats = path === undefined ? unmatched : restRoutes.get(path);
  if (!stats) {
    stats = routeStats("rest", path ?? "unmatched");
    if (path === undefined) unmatched = stats;
    else restRoutes.set(path, stats);
  }
  return stats;
}

/** Fastify's onResponse hook of the REST gateway. SSE streams take over their socket and never get here. */
export function recordRestResponse(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  restStats(request.routeOptions.url).record(reply.statusCode, problemCodeOf(reply) ?? "", reply.elapsedTime / 1000);
  done();
}

/** An SSE stream that has ended: 200, with the code of the `error` event that ended it, if one did. */
export function recordRestStreamEnd(request: FastifyRequest, error: unknown): void {
  restStats(request.routeOptions.url).record(200, error === undefined ? "" : apiErrorCode(error), null);
}

// Connect, gRPC-Web and gRPC: every RPC through an interceptor of the Connect router.
const rpcRoutes = new Map<DescMethod, Record<Surface, RouteStats | undefined>>();

function rpcStats(method: DescMethod, surface: Surface): RouteStats {
  let bySurface = rpcRoutes.get(method);
  if (!bySurface) {
    bySurface = { rest: undefined, connect: undefined, "grpc-web": undefined, grpc: undefined };
    rpcRoutes.set(method, bySurface);
  }
  return (bySurface[surface] ??= routeStats(surface, `${method.parent.typeName}/${method.name}`));
}

/** The protocol of a call, from its content type (as Connect's router decides it). */
function surfaceOf(contentType: string | null): Surface {
  if (contentType?.startsWith("application/grpc-web")) return "grpc-web";
  if (contentType?.startsWith("application/grpc")) return "grpc";
  return "connect";
}

const STATUS_NAMES = new Map<Code, string>();
/** gRPC's code names as its docs spell them: `ok`, `not_found`, `resource_exhausted`. */
function statusName(code: Code): string {
  let name = STATUS_NAMES.get(code);
  if (!name) {
    name = Code[code].replace(/[A-Z]/g, (letter, at: number) => (at > 0 ? "_" : "") + letter.toLowerCase());
    STATUS_NAMES.set(code, name);
  }
  return name;
}

function recordRpcError(stats: RouteStats, error: unknown, seconds: number | null): void {
  const connectError = ConnectError.from(error);
  const code = connectError.code === Code.Canceled ? "" : describeRpcError(connectError).code;
  stats.record(statusName(connectError.code), code, seconds);
}

export const rpcMetrics: Interceptor = (next) => async (request) => {
  const stats = rpcStats(request.method, surfaceOf(request.header.get("content-type")));
  const started = performance.now();
  let response: Awaited<ReturnType<typeof next>>;
  try {
    response = await next(request);
  } catch (error) {
    recordRpcError(stats, error, request.stream ? null : (performance.now() - started) / 1000);
    throw error;
  }
  if (!response.stream) {
    stats.record("ok", "", (performance.now() - started) / 1000);
    return response;
  }
  // A stream is counted when it ends, with how it ended.
  return { ...response, message: counted(response.message, stats) };
};

async function* counted<T>(messages: AsyncIterable<T>, stats: RouteStats): AsyncIterable<T> {
  try {
    yield* messages;
    stats.record("ok", "", null);
  } catch (error) {
    recordRpcError(stats, error, null);
    throw error;
  }
}
