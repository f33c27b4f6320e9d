// Prometheus metrics on a port of their own: the listener, and the figures moving as
// calls arrive on every surface (REST, Connect, gRPC-Web, gRPC), shared reads, streams,
// rate limits, the database and insights.

import { create, toBinary } from "@bufbuild/protobuf";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListEventsRequestSchema, ListEventsResponseSchema } from "../../gen/racing/v1/event_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import type { Runtime } from "../../src/composition/runtime.js";
import { startServer, type RunningServer } from "../../src/composition/server.js";
import { Feeds, SubscriptionStalled } from "../../src/calls/feeds.js";
import { simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { createPool } from "../../src/store/pool.js";
import { bearer, CLUB, connectCall, identityScenario, requestToken, startApi, tokenFor } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { grpcClient, unary } from "../support/grpc.js";
import { freePort } from "../support/ports.js";
import { MINUTE } from "../support/race-scenarios.js";
import { testRuntime } from "../support/runtime.js";
import { openSse } from "../support/sse.js";

const db = useFreshDatabase();
let runtime: Runtime;
let server: RunningServer;
let metricsUrl: string;
let token: string;
let raceId: string;

beforeAll(async () => {
  const scenario = identityScenario();
  const now = Date.now();
  const race = sliceScenario(
    simulateScenario({
      seed: "metrics",
      gunMs: now - 20 * MINUTE,
      startGroups: 1,
      boatsPerGroup: 6,
      laps: 1,
      legLengthM: 700,
      delaySeconds: 0,
    }),
    null,
    now,
  );
  scenario.events = race.events.map((event) => ({ ...event, clubId: CLUB }));
  raceId = scenario.events[0]!.races[0]!.id;
  await importScenario(db.pool, scenario);
  // A model that is not there: every call fails and its lines come from templates.
  const deadModel = `http://127.0.0.1:${await freePort()}/v1/chat/completions`;
  runtime = await testRuntime(db, {
    streamsPerClient: 1,
    insightsModel: { url: deadModel, model: "none", quotaPerHour: 60, timeoutMs: 1000 },
  });
  server = await startServer({ host: "127.0.0.1", port: 0, grpcPort: 0, metricsPort: await freePort() }, runtime);
  metricsUrl = server.metricsUrl!;
  token = await tokenFor(server.httpUrl, "overlay");
});
afterAll(async () => {
  await server?.close();
  await runtime?.close();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

async function scrape(): Promise<Sample[]> {
  const text = await (await fetch(metricsUrl)).text();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** How much `name` with `labels` grew while `work` ran. */
async function growth(name: string, labels: Record<string, string>, work: () => Promise<unknown>): Promise<number> {
  const before = total(await scrape(), name, labels);
  await work();
  return total(await scrape(), name, labels) - before;
}

describe("the metrics listener", () => {
  it("serves Prometheus text at /metrics on METRICS_PORT, bound to HOST", async () => {
    expect(new URL(metricsUrl).hostname).toBe("127.0.0.1");
    expect(new URL(metricsUrl).port).not.toBe(new URL(server.httpUrl).port);
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const text = await response.text();
    for (const name of [
      "race_api_requests_total",
      "race_api_request_duration_seconds",
      "race_api_shared_reads_total",
      "race_api_shared_read_keys",
      "race_api_db_pool_connections",
      "race_api_db_pool_queued",
      "race_api_db_unavailable_total",
      "race_api_streams_open",
      "race_api_stream_subscribers_dropped_total",
      "race_api_insight_generations_total",
      "race_api_insight_model_calls_total",
      "race_api_insight_template_fallbacks_total",
      "race_api_rate_limited_total",
      "race_api_ingest_fixes_total",
      "process_cpu_seconds_total",
      "nodejs_eventloop_lag_seconds",
    ]) {
      expect(text, name).toContain(`# TYPE ${name} `);
    }
    await scrape(); // every line parses
  });

  it("answers HEAD without a body, other methods with 405 and other paths with 404", async () => {
    const head = await fetch(metricsUrl, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await fetch(metricsUrl, { method: "POST", body: "x" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    for (const path of ["/", "/metrics/extra", "/api/v1/events"]) expect((await fetch(new URL(path, metricsUrl))).status, path).toBe(404);
    expect((await fetch(`${metricsUrl}?name[]=race_api_requests_total`)).status).toBe(200);
  });

  it("is never on the public port: /metrics there is 404 problem+json", async () => {
    for (const method of ["GET", "HEAD"]) {
      const response = await fetch(`${server.httpUrl}/metrics`, { method });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(await (await fetch(`${server.httpUrl}/metrics`)).json()).toMatchObject({ code: "API_ROUTE_NOT_FOUND" });
  });

  it("fails to start on a metrics port in use, leaving no listener open", async () => {
    const [publicPort, grpcPort] = [await freePort(), await freePort()];
    const taken = new URL(metricsUrl).port;
    await expect(startServer({ host: "127.0.0.1", port: publicPort, grpcPort, metricsPort: Number(taken) }, runtime)).rejects.toMatchObject(
      { code: "EADDRINUSE" },
    );
    for (const port of [publicPort, grpcPort]) await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it("is off without METRICS_PORT: startServer opens no listener", async () => {
    const quiet = await startServer({ host: "127.0.0.1", port: 0, grpcPort: 0, metricsPort: 0 }, runtime);
    try {
      expect(quiet.metricsUrl).toBeUndefined();
    } finally {
      await quiet.close();
    }
  });
});

describe("requests", () => {
  it("counts REST calls by route template, status and error code, with their latency", async () => {
    const route = "/api/v1/events";
    const before = await scrape();
    await fetch(`${server.httpUrl}/api/v1/events`, { headers: bearer(token) });
    await fetch(`${server.httpUrl}/api/v1/events`, { headers: bearer(token) });
    await fetch(`${server.httpUrl}/api/v1/events?page=0`, { headers: bearer(token) });
    await fetch(`${server.httpUrl}/api/v1/events`);
    await fetch(`${server.httpUrl}/api/v1/races/${raceId}/live`, { headers: bearer(token) });
    await fetch(`${server.httpUrl}/api/v1/nothing-here`, { headers: bearer(token) });
    const after = await scrape();
    const grew = (labels: Record<string, string>) =>
      total(after, "race_api_requests_total", labels) - total(before, "race_api_requests_total", labels);
    expect(grew({ surface: "rest", route, status: "200", code: "" })).toBe(2);
    expect(grew({ surface: "rest", route, status: "400", code: "API_PARAM_INVALID" })).toBe(1);
    expect(grew({ surface: "rest", route, status: "401", code: "API_TOKEN_MISSING" })).toBe(1);
    expect(grew({ surface: "rest", route: "/api/v1/races/:raceId/live", status: "200", code: "" })).toBe(1);
    expect(grew({ surface: "rest", route: "unmatched", status: "404", code: "API_ROUTE_NOT_FOUND" })).toBe(1);
    // No raw path (a race id) becomes a label value.
    expect(after.some((s) => Object.values(s.labels).some((v) => v.includes(raceId)))).toBe(false);

    const count = (samples: Sample[]) => total(samples, "race_api_request_duration_seconds_count", { surface: "rest", route });
    expect(count(after) - count(before)).toBe(4);
    const buckets = after.filter((s) => s.name === "race_api_request_duration_seconds_bucket" && s.labels.route === route);
    expect(buckets.at(-1)!.labels.le).toBe("+Inf");
    expect(buckets.at(-1)!.value).toBe(count(after));
    // Cumulative buckets never decrease.
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    expect(total(after, "race_api_request_duration_seconds_sum", { surface: "rest", route })).toBeGreaterThan(0);
  });

  it("counts Connect, gRPC-Web and gRPC calls by RPC, gRPC status and error code", async () => {
    const rpc = "racing.v1.EventService/ListEvents";
    const before = await scrape();
    await connectCall(server.httpUrl, rpc, {}, bearer(token));
    await connectCall(server.httpUrl, rpc, {});
    // gRPC-Web: one length-prefixed message in the body, the status in a trailer frame.
    const message = toBinary(ListEventsRequestSchema, create(ListEventsRequestSchema, {}));
    const frame = new Uint8Array(5 + message.length);
    new DataView(frame.buffer).setUint32(1, message.length);
    frame.set(message, 5);
    const web = await fetch(`${server.httpUrl}/${rpc}`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto", ...bearer(token) },
      body: frame,
    });
    expect(new TextDecoder().decode(await web.arrayBuffer())).toMatch(/grpc-status: ?0\r\n/);
    const client = grpcClient(server.grpcUrl);
    try {
      const metadata = new (await import("@grpc/grpc-js")).Metadata();
      metadata.set("authorization", `Bearer ${token}`);
      await unary(client, `/${rpc}`, ListEventsRequestSchema, ListEventsResponseSchema, {}, metadata);
    } finally {
      client.close();
    }
    const after = await scrape();
    const grew = (labels: Record<string, string>) =>
      total(after, "race_api_requests_total", labels) - total(before, "race_api_requests_total", labels);
    expect(grew({ surface: "connect", route: rpc, status: "ok", code: "" })).toBe(1);
    expect(grew({ surface: "connect", route: rpc, status: "unauthenticated", code: "API_TOKEN_MISSING" })).toBe(1);
    expect(grew({ surface: "grpc-web", route: rpc, status: "ok", code: "" })).toBe(1);
    expect(grew({ surface: "grpc", route: rpc, status: "ok", code: "" })).toBe(1);
    expect(total(after, "race_api_request_duration_seconds_count", { surface: "grpc", route: rpc })).toBeGreaterThanOrEqual(1);
  });
});

describe("shared reads", () => {
  it("count one miss for the live race, then hits, and keep the race as a key", async () => {
    // Past the 2 s a live answer is kept, so the next call reads.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const before = await scrape();
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${server.httpUrl}/api/v1/races/${raceId}/live`, { headers: bearer(token) })).status).toBe(200);
    const after = await scrape();
    const grew = (result: string) =>
      total(after, "race_api_shared_reads_total", { cache: "live", result }) -
      total(before, "race_api_shared_reads_total", { cache: "live", result });
    expect(grew("miss")).toBe(1);
    expect(grew("hit")).toBe(2);
    expect(total(after, "race_api_shared_read_keys", { cache: "live" })).toBeGreaterThanOrEqual(1);
    expect(total(after, "race_api_shared_reads_total", { cache: "client_state" })).toBeGreaterThan(0);
  });
});

describe("streams", () => {
  it("count open streams, and a stream over the client's cap as a rate-limit rejection", async () => {
    const route = "/api/v1/races/:raceId/live/stream";
    const before = await scrape();
    const base = total(before, "race_api_streams_open");
    const stream = await openSse(`${server.httpUrl}/api/v1/races/${raceId}/live/stream`, bearer(token));
    try {
      await stream.nextEvent();
      expect(total(await scrape(), "race_api_streams_open")).toBe(base + 1);
      const refused = await growth("race_api_rate_limited_total", { bucket: "streams" }, async () => {
        const second = await fetch(`${server.httpUrl}/api/v1/races/${raceId}/live/stream`, { headers: bearer(token) });
        expect(second.status).toBe(429);
      });
      expect(refused).toBe(1);
    } finally {
      stream.close();
    }
    await expect.poll(async () => total(await scrape(), "race_api_streams_open")).toBe(base);
    // The SSE stream counts once it has ended; the refused one as its 429.
    const streamed = (samples: Sample[], labels: Record<string, string>) =>
      total(samples, "race_api_requests_total", { surface: "rest", route, ...labels });
    await expect
      .poll(async () => streamed(await scrape(), { status: "200", code: "" }) - streamed(before, { status: "200", code: "" }))
      .toBe(1);
    const after = await scrape();
    expect(
      streamed(after, { status: "429", code: "RATE_LIMIT_EXCEEDED" }) - streamed(before, { status: "429", code: "RATE_LIMIT_EXCEEDED" }),
    ).toBe(1);
    // A stream's duration is no latency.
    expect(total(after, "race_api_request_duration_seconds_count", { surface: "rest", route })).toBe(
      total(before, "race_api_request_duration_seconds_count", { surface: "rest", route }) + 1,
    );
  });

  it("count a subscriber dropped for stalling", async () => {
    const feeds = new Feeds<number>({ askEveryMs: 20, heartbeatMs: 60, stallMs: 150 }, pino({ level: "silent" }));
    let reads = 0;
    const dropped = await growth("race_api_stream_subscribers_dropped_total", { reason: "stalled" }, async () => {
      const iterator = feeds.subscribe("race", async () => ({ id: String(++reads), value: reads }), "")[Symbol.asyncIterator]();
      await new Promise((resolve) => setTimeout(resolve, 250));
      await expect(iterator.next()).rejects.toBeInstanceOf(SubscriptionStalled);
    });
    expect(dropped).toBe(1);
  });
});

describe("rate limits", () => {
  it("count rejections by bucket", async () => {
    const refused = await growth("race_api_rate_limited_total", { bucket: "token-ip" }, async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) statuses.push((await requestToken(server.httpUrl, "trackingOnly")).status);
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(1);
    });
    expect(refused).toBeGreaterThanOrEqual(1);
  });
});

describe("the database", () => {
  it("shows the primary pool's connections and queue", async () => {
    const samples = await scrape();
    const connections =
      total(samples, "race_api_db_pool_connections", { pool: "primary", state: "in_use" }) +
      total(samples, "race_api_db_pool_connections", { pool: "primary", state: "idle" });
    expect(connections).toBeGreaterThanOrEqual(1);
    expect(samples.find((s) => s.name === "race_api_db_pool_queued" && s.labels.pool === "primary")?.value).toBe(0);
  });

  it("shows a read replica's pool, lag and use", async () => {
    // The test database as its own replica: the heartbeat's lag is about zero.
    const replicated = await testRuntime(db, { databaseReadUrl: db.url });
    try {
      await expect.poll(async () => total(await scrape(), "race_api_db_replica_in_use"), { timeout: 10_000 }).toBe(1);
      const samples = await scrape();
      const lag = samples.find((s) => s.name === "race_api_db_replica_lag_seconds")!.value;
      expect(lag).toBeGreaterThanOrEqual(0);
      expect(lag).toBeLessThan(1);
      expect(samples.some((s) => s.name === "race_api_db_pool_connections" && s.labels.pool === "replica")).toBe(true);
    } finally {
      await replicated.close();
    }
    // Closed, the serving runtime's pools show again, and no replica.
    const after = await scrape();
    expect(after.some((s) => s.name === "race_api_db_replica_in_use")).toBe(false);
    expect(after.some((s) => s.name === "race_api_db_pool_connections" && s.labels.pool === "primary")).toBe(true);
  });

  it("counts 503s by cause: a statement over its time limit, a database that is not there", async () => {
    const quickPool = createPool(db.url, { statementTimeoutMs: 300 });
    const quick = await startApi(db, {}, quickPool);
    const locker = await db.pool.getConnection();
    try {
      const timedOut = await growth("race_api_db_unavailable_total", { cause: "statement_timeout" }, async () => {
        await locker.query("LOCK TABLES events WRITE");
        expect((await fetch(`${quick.url}/api/v1/events`, { headers: bearer(token) })).status).toBe(503);
      });
      expect(timedOut).toBe(1);
    } finally {
      await locker.query("UNLOCK TABLES");
      locker.release();
      await quick.close();
      await quickPool.end();
    }

    const deadPool = createPool(`mysql://race_api@127.0.0.1:${await freePort()}/nothing`);
    const dead = await startApi(db, {}, deadPool);
    try {
      // The token endpoint reads the client first: 503 temporarily_unavailable.
      const refused = await growth("race_api_db_unavailable_total", { cause: "connection" }, async () => {
        expect((await requestToken(dead.url, "overlay")).status).toBe(503);
      });
      expect(refused).toBe(1);
    } finally {
      await dead.close();
      await deadPool.end();
    }
  });
});

describe("insights", () => {
  it("count a generation, the failed model call and its lines' template fallbacks", async () => {
    const before = await scrape();
    const response = await fetch(`${server.httpUrl}/api/v1/races/${raceId}/live/insights`, { headers: bearer(token) });
    const body = (await response.json()) as { insights: Array<{ source: string }> };
    const after = await scrape();
    const grew = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
    expect(grew("race_api_insight_generations_total", { result: "ok" })).toBe(1);
    expect(body.insights.length).toBeGreaterThan(0);
    expect(body.insights.every((insight) => insight.source === "template")).toBe(true);
    expect(grew("race_api_insight_model_calls_total", { result: "failed" })).toBe(1);
    expect(grew("race_api_insight_template_fallbacks_total", { reason: "failed" })).toBeGreaterThanOrEqual(body.insights.length);
  });
});
