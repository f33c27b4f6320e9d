// What counting a request costs: the REST gateway's onResponse recorder
// (telemetry/request-metrics.ts: a route's cell found by a map look-up, plain numbers
// added) against prom-client's own way with pre-bound label children (a counter's
// inc and a histogram's observe), measured in the same run on the same answers, and
// against an empty hook (the harness itself). Also the per-request test that tracing
// adds when it is off. Nanoseconds per request; medians of ROUNDS rounds.
//
//   npm run bench:telemetry          (ROUNDS=11 CALLS=1000000 npm run bench:telemetry)

import type { FastifyReply, FastifyRequest } from "fastify";
import { Counter, Histogram, Registry } from "prom-client";
import { traceIdFrom } from "../src/calls/context.js";
import { LATENCY_BUCKETS, recordRestResponse } from "../src/telemetry/request-metrics.js";

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const CALLS = Number(process.env.CALLS ?? 500_000);

// The cached live answer as the hook sees it: a route template, 200 or 304, about 0.1 ms.
const LIVE = "/api/v1/races/:raceId/live";
const answers = Array.from({ length: 64 }, (_, i) => ({
  request: { routeOptions: { url: LIVE } } as unknown as FastifyRequest,
  reply: { statusCode: i % 8 === 0 ? 304 : 200, elapsedTime: 0.05 + (i % 7) * 0.02 } as unknown as FastifyReply,
}));
const done = () => {};

// prom-client as one would write it: children bound once per route and status.
const registry = new Registry();
const requests = new Counter({
  name: "bench_requests_total",
  help: "-",
  labelNames: ["surface", "route", "status", "code"],
  registers: [registry],
});
const duration = new Histogram({
  name: "bench_duration_seconds",
  help: "-",
  labelNames: ["surface", "route"],
  buckets: [...LATENCY_BUCKETS],
  registers: [registry],
});
const byStatus = new Map([200, 304].map((status) => [status, requests.labels("rest", LIVE, String(status), "")]));
const timed = duration.labels("rest", LIVE);

function ours(i: number): void {
  const { request, reply } = answers[i & 63]!;
  recordRestResponse(request, reply, done);
}

function promClient(i: number): void {
  const { reply } = answers[i & 63]!;
  byStatus.get(reply.statusCode)!.inc();
  timed.observe(reply.elapsedTime / 1000);
  done();
}

function empty(i: number): void {
  const { reply } = answers[i & 63]!;
  if (reply.statusCode === 0) throw new Error("never");
  done();
}

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
let sink = 0;
function traceIds(): void {
  sink += traceIdFrom(TRACEPARENT).length;
}

function nsPerCall(work: (i: number) => void): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) work(i);
  return Number(process.hrtime.bigint() - started) / CALLS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const figures = { ours: [] as number[], promClient: [] as number[], empty: [] as number[], traceId: [] as number[] };
for (let round = 0; round < ROUNDS + 1; round++) {
  const measured = { ours: nsPerCall(ours), promClient: nsPerCall(promClient), empty: nsPerCall(empty), traceId: nsPerCall(traceIds) };
  if (round === 0) continue; // warm-up
  for (const key of Object.keys(figures) as Array<keyof typeof figures>) figures[key].push(measured[key]);
}

const [o, p, e, t] = [median(figures.ours), median(figures.promClient), median(figures.empty), median(figures.traceId)];
console.log(`${CALLS.toLocaleString("en")} calls per round, medians of ${ROUNDS} rounds (ns per request)`);
console.log(`  empty hook (harness):                     ${e.toFixed(1)}`);
console.log(`  our recorder (counter + histogram):       ${o.toFixed(1)}  (${(o - e).toFixed(1)} over the harness)`);
console.log(`  prom-client, pre-bound children:          ${p.toFixed(1)}  (${(p - e).toFixed(1)} over the harness)`);
console.log(`  ratio ours / prom-client (over harness):  ${((o - e) / (p - e)).toFixed(2)}`);
console.log(`  traceIdFrom(traceparent), tracing off:    ${t.toFixed(1)}  (the code before tracing; now one boolean test more)`);
if (sink < 0) console.log(sink);
