// OpenTelemetry traces of `race-api serve` (the real command, so the SDK starts before
// http and mysql2 load, as in production), received by a small OTLP/HTTP collector of
// the test's own: the spans of one request (HTTP, RPC, each query) under the caller's
// traceparent, the problem body's traceId, the gRPC listener, and nothing when off.

import { createServer, type Server } from "node:http";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListEventsRequestSchema, ListEventsResponseSchema } from "../../gen/racing/v1/event_pb.js";
import { bearer, seedIdentities, tokenFor } from "../support/api.js";
import { start, type Running } from "../support/cli.js";
import { useFreshDatabase } from "../support/database.js";
import { grpcClient, unary } from "../support/grpc.js";
import { freePort } from "../support/ports.js";

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: unknown;
}

const SERVER = 2;
const INTERNAL = 1;

/** An OTLP/HTTP collector: POST /v1/traces with the JSON encoding, spans kept in arrival order. */
class Collector {
  readonly spans: ReceivedSpan[] = [];
  requests = 0;
  private server!: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        this.requests += 1;
        if (request.method !== "POST" || request.url !== "/v1/traces" || !request.headers["content-type"]?.startsWith("application/json")) {
          response.writeHead(415).end();
          return;
        }
        for (const resourceSpans of JSON.parse(body).resourceSpans ?? []) {
          const service = attributesOf(resourceSpans.resource?.attributes)["service.name"];
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) this.spans.push({ ...span, attributes: attributesOf(span.attributes), service });
          }
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    const port = await freePort();
    await new Promise<void>((resolve) => this.server.listen(port, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${port}`;
  }

  /** The spans of `traceId`, once `done` says they are all there. */
  async trace(traceId: string, done: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const spans = this.spans.filter((span) => span.traceId === traceId);
      if (done(spans)) return spans;
      if (Date.now() > deadline) throw new Error(`trace ${traceId} incomplete: ${JSON.stringify(spans.map((s) => s.name))}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function attributesOf(list: Array<{ key: string; value: Record<string, unknown> }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, Object.values(value)[0]]));
}

const db = useFreshDatabase();
const collector = new Collector();
let server: Running;
let httpUrl: string;
let grpcUrl: string;
let token: string;

beforeAll(async () => {
  await seedIdentities(db);
  await collector.start();
  server = start(["serve"], {
    DATABASE_URL: db.url,
    PORT: "0",
    GRPC_PORT: "0",
    METRICS_PORT: "0",
    LOG_LEVEL: "info",
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_SERVICE_NAME: "race-api-under-test",
    // The SDK's own variable: send batches every 100 ms rather than 5 s.
    OTEL_BSP_SCHEDULE_DELAY: "100",
  });
  const [, http, grpcAt] = await server.waitFor(/"httpUrl":"(http:\/\/[^"]+)","grpcUrl":"(http:\/\/[^"]+)"/);
  httpUrl = http!;
  grpcUrl = grpcAt!;
  token = await tokenFor(httpUrl, "overlay");
});
afterAll(async () => {
  await server?.stop("SIGTERM");
  await collector.close();
});

const hex = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join("");

describe("traces", () => {
  it("send the spans of one request under the caller's traceparent: HTTP, then the RPC, then each query", async () => {
    const [traceId, parentId] = [hex(32), hex(16)];
    const response = await fetch(`${httpUrl}/api/v1/events`, {
      headers: { ...bearer(token), traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-trace-id")).toBe(traceId);

    const spans = await collector.trace(
      traceId,
      (s) =>
        s.some((span) => span.name === "racing.v1.EventService/ListEvents") &&
        s.some((span) => span.attributes["db.system"] === "mysql" || span.attributes["db.system.name"] === "mysql"),
    );
    const http = spans.find((span) => span.kind === SERVER && span.parentSpanId === parentId);
    expect(http, JSON.stringify(spans.map((s) => [s.name, s.kind, s.parentSpanId]))).toBeDefined();
    expect(http!.attributes["http.route"] ?? http!.attributes["url.path"] ?? http!.attributes["http.target"]).toBeDefined();
    const rpc = spans.find((span) => span.name === "racing.v1.EventService/ListEvents")!;
    expect(rpc).toMatchObject({
      kind: INTERNAL,
      parentSpanId: http!.spanId,
      attributes: { "rpc.service": "racing.v1.EventService", "rpc.method": "ListEvents" },
    });
    const queries = spans.filter((span) => span.attributes["db.system"] === "mysql" || span.attributes["db.system.name"] === "mysql");
    expect(queries.length).toBeGreaterThanOrEqual(1);
    // Every query of the call is under its RPC span.
    for (const query of queries) expect(query.parentSpanId).toBe(rpc.spanId);
    expect(http!.service).toBe("race-api-under-test");
  });

  it("give a problem body the trace's id: the caller's, or the new trace's", async () => {
    const [traceId, parentId] = [hex(32), hex(16)];
    const followed = await fetch(`${httpUrl}/api/v1/events?page=0`, {
      headers: { ...bearer(token), traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(followed.status).toBe(400);
    expect(await followed.json()).toMatchObject({ code: "API_PARAM_INVALID", traceId });
    await collector.trace(traceId, (s) => s.some((span) => span.parentSpanId === parentId));

    for (const request of [
      () => fetch(`${httpUrl}/api/v1/events?page=0`, { headers: bearer(token) }),
      () => fetch(`${httpUrl}/api/v1/races/not-a-race/live`, { headers: bearer(token) }),
      () => fetch(`${httpUrl}/api/v1/nothing-here`),
      () =>
        fetch(`${httpUrl}/api/v1/events`, {
          headers: { ...bearer(token), traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01" },
        }),
    ]) {
      const response = await request();
      const body = (await response.json()) as { traceId?: string };
      const own = body.traceId ?? response.headers.get("x-trace-id")!;
      expect(own).toMatch(/^[0-9a-f]{32}$/);
      expect(response.headers.get("x-trace-id") ?? own).toBe(own);
      // A trace of that id arrives, rooted at the HTTP request.
      const spans = await collector.trace(own, (s) => s.some((span) => span.kind === SERVER));
      expect(spans.find((span) => span.kind === SERVER)!.parentSpanId ?? "").toBe("");
    }
  });

  it("trace a call on the gRPC listener as a server span under the caller's traceparent", async () => {
    const [traceId, parentId] = [hex(32), hex(16)];
    const client = grpcClient(grpcUrl);
    try {
      const metadata = new grpc.Metadata();
      metadata.set("authorization", `Bearer ${token}`);
      metadata.set("traceparent", `00-${traceId}-${parentId}-01`);
      await unary(client, "/racing.v1.EventService/ListEvents", ListEventsRequestSchema, ListEventsResponseSchema, {}, metadata);
    } finally {
      client.close();
    }
    const spans = await collector.trace(
      traceId,
      (s) => s.some((span) => span.name === "racing.v1.EventService/ListEvents") && s.length >= 2,
    );
    const rpc = spans.find((span) => span.name === "racing.v1.EventService/ListEvents")!;
    expect(rpc).toMatchObject({ kind: SERVER, parentSpanId: parentId });
    expect(spans.some((span) => span.parentSpanId === rpc.spanId)).toBe(true);
  });
});

describe("without OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("sends nothing, and trace ids stay those of traceparent or new ones", async () => {
    const quiet = new Collector();
    await quiet.start();
    const off = start(["serve"], {
      DATABASE_URL: db.url,
      PORT: "0",
      GRPC_PORT: "0",
      METRICS_PORT: "0",
      LOG_LEVEL: "info",
      OTEL_SERVICE_NAME: "race-api-off",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    });
    try {
      const [, url] = await off.waitFor(/"httpUrl":"(http:\/\/[^"]+)"/);
      const traceId = hex(32);
      const response = await fetch(`${url}/api/v1/events?page=0`, {
        headers: { ...bearer(token), traceparent: `00-${traceId}-${hex(16)}-01` },
      });
      expect(await response.json()).toMatchObject({ traceId });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(quiet.requests).toBe(0);
      expect(collector.spans.some((span) => span.traceId === traceId)).toBe(false);
    } finally {
      await off.stop("SIGTERM");
      await quiet.close();
    }
  });

  it("refuses an endpoint that is not an http(s) URL, naming the variable", async () => {
    const bad = start(["serve"], {
      DATABASE_URL: db.url,
      PORT: "0",
      GRPC_PORT: "0",
      METRICS_PORT: "0",
      OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
    });
    expect(await new Promise((resolve) => bad.process.once("exit", resolve))).toBe(1);
    expect(bad.stderr()).toContain("OTEL_EXPORTER_OTLP_ENDPOINT must be the http(s) base URL");
  });
});
