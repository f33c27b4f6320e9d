// The race at a past moment, checked the strong way: a simulated race fed live through
// IngestService (as a club's platform feeds it, one second at a time), its live and
// analytics answers kept as they were served; afterwards the same moments asked for
// with `at` answer the same bodies. Then the rules: a settled moment is immutable
// (ETag, 304, kept: one read however often asked), a recent one is shared for 2 s,
// `at` at or after the cut-off or malformed is API_PARAM_INVALID on REST, Connect and
// gRPC, and a moment before any data answers empty groups.

import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetRaceLiveRequestSchema, GetRaceLiveResponseSchema, RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import { simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { startFeed, type Feed } from "../../src/sim/feed.js";
import { createIngestClient } from "../../src/sim/ingest-client.js";
import { registry } from "../../src/telemetry/metrics.js";
import { bearer, CLUB, identityScenario, secretOf, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { grpcClient, unary } from "../support/grpc.js";
import { MINUTE } from "../support/race-scenarios.js";

// Longer than the feed can lag on a busy machine: every fix up to the cut-off has arrived when it is read.
const DELAY_SECONDS = 10;
const db = useFreshDatabase();
let api: Api;
let token: string;
let feed: Feed;
let raceId: string;
let groupIds: string[];
let gunMs: number;

beforeAll(async () => {
  const scenario = identityScenario();
  scenario.clients.push({ clientId: "feeder", clientSecret: secretOf("feeder"), clubId: CLUB, scopes: ["tracking:write"] });
  for (const club of scenario.clubs) club.trackingRateLimitPerMinute = 100_000;
  const startedAt = Date.now();
  gunMs = startedAt - 12 * MINUTE;
  const race = simulateScenario({
    seed: "past-moments",
    gunMs,
    startGroups: 2,
    boatsPerGroup: 6,
    laps: 1,
    legLengthM: 900,
    delaySeconds: DELAY_SECONDS,
  });
  race.events = race.events.map((event) => ({ ...event, clubId: CLUB }));
  const sliced = sliceScenario(race, null, startedAt);
  scenario.events = sliced.events;
  raceId = sliced.events[0]!.races[0]!.id;
  groupIds = sliced.events[0]!.races[0]!.startGroups.map((group) => group.id);
  await importScenario(db.pool, scenario);
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
  // The rest of the race comes in live, a second at a time, through IngestService.
  const client = createIngestClient({ url: api.url, clientId: "feeder", clientSecret: secretOf("feeder") });
  feed = startFeed(client, race, { fromMs: startedAt });
});
afterAll(async () => {
  await feed?.stop();
  await api?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${api.url}/api/v1${path}`, { headers: { ...bearer(token), ...headers } });

interface Served {
  dataAsOf: string;
  body: string;
}

describe("GET /races/{raceId}/live?at= during and after a live run", () => {
  it("answers each moment as the live answer served at it said, body for body; so does /analytics?at=", async () => {
    const live: Served[] = [];
    const analytics: Served[] = [];
    // What the feed had delivered when: a served answer is complete only if everything up
    // to its dataAsOf was stored before it was read (at dataAsOf + the delay). On a busy
    // machine the feed may fall behind, and a fix that comes in after an answer was read
    // belongs in the past moment but was not in that answer.
    const progress: Array<{ atMs: number; upToMs: number }> = [];
    const watch = setInterval(() => progress.push({ atMs: Date.now(), upToMs: feed.deliveredUpTo }), 100);
    const complete = ({ dataAsOf }: Served) => {
      const readAtMs = Date.parse(dataAsOf) + DELAY_SECONDS * 1000;
      return progress.some(({ atMs, upToMs }) => atMs <= readAtMs && upToMs >= Date.parse(dataAsOf));
    };
    // About 12 s of the live run: every state the shared reads produced, as served.
    for (let poll = 0; poll < 16; poll++) {
      const [liveAnswer, analyticsAnswer] = await Promise.all([
        get(`/races/${raceId}/live`),
        get(`/races/${raceId}/analytics?startGroupId=${groupIds[0]}`),
      ]);
      expect([liveAnswer.status, analyticsAnswer.status]).toEqual([200, 200]);
      for (const [served, answer] of [
        [live, liveAnswer],
        [analytics, analyticsAnswer],
      ] as const) {
        const dataAsOf = answer.headers.get("x-data-as-of")!;
        const body = await answer.text();
        if (served.at(-1)?.dataAsOf !== dataAsOf) served.push({ dataAsOf, body });
      }
      await sleep(750);
    }
    clearInterval(watch);
    expect(feed.totals.errors).toEqual({});
    expect(feed.totals.accepted).toBeGreaterThan(0);
    expect(live.filter(complete).length).toBeGreaterThanOrEqual(4);
    expect(analytics.filter(complete).length).toBeGreaterThanOrEqual(4);

    // Afterwards, while the feed goes on: the same moments, asked for.
    for (const { dataAsOf, body } of live.filter(complete)) {
      const past = await get(`/races/${raceId}/live?at=${dataAsOf}`);
      expect(past.status).toBe(200);
      expect(past.headers.get("x-data-as-of")).toBe(dataAsOf);
      expect(JSON.parse(await past.text()), `live at ${dataAsOf}`).toEqual(JSON.parse(body));
    }
    for (const { dataAsOf, body } of analytics.filter(complete)) {
      const past = await get(`/races/${raceId}/analytics?startGroupId=${groupIds[0]}&at=${dataAsOf}`);
      expect(past.status).toBe(200);
      expect(past.headers.get("x-data-as-of")).toBe(dataAsOf);
      expect(JSON.parse(await past.text()), `analytics at ${dataAsOf}`).toEqual(JSON.parse(body));
    }
    // Not vacuous: the race moved between the kept answers.
    const boatsAt = (served: Served) =>
      JSON.stringify((JSON.parse(served.body) as { startGroups: Array<{ boats: unknown }> }).startGroups.map((g) => g.boats));
    expect(boatsAt(live[0]!)).not.toBe(boatsAt(live.at(-1)!));
  }, 60_000);
});

/** Loads of a shared read so far: each one database read or computation. */
async function loads(cache: string): Promise<number> {
  const metric = await registry.getSingleMetric("race_api_shared_reads_total")!.get();
  return metric.values.filter((v) => v.labels.cache === cache && v.labels.result === "miss").reduce((sum, v) => sum + v.value, 0);
}

describe("a settled moment (at least 2 minutes before the cut-off)", () => {
  it("is immutable: Cache-Control for an hour, the same ETag, 304 on If-None-Match, read once however often asked", async () => {
    const at = new Date(gunMs + 5 * MINUTE).toISOString();
    const before = await loads("live_past_settled");
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(`/races/${raceId}/live?at=${at}`)));
    const bodies = await Promise.all(answers.map((answer) => answer.text()));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get("cache-control")).toBe("private, max-age=3600, immutable");
      expect(answer.headers.get("x-data-as-of")).toBe(at);
      expect(answer.headers.get("etag")).toBe(answers[0]!.headers.get("etag"));
    }
    expect(new Set(bodies).size).toBe(1);
    const again = await get(`/races/${raceId}/live?at=${at}`, { "if-none-match": answers[0]!.headers.get("etag")! });
    expect(again.status).toBe(304);
    expect(again.headers.get("cache-control")).toBe("private, max-age=3600, immutable");
    expect((await loads("live_past_settled")) - before).toBe(1);
    const body = JSON.parse(bodies[0]!) as { dataAsOf: string; startGroups: Array<{ boats: Array<{ fixTimeUtc: string }> }> };
    expect(body.dataAsOf).toBe(at);
    const boats = body.startGroups.flatMap((group) => group.boats);
    expect(boats.length).toBeGreaterThan(0);
    for (const boat of boats) expect(Date.parse(boat.fixTimeUtc)).toBeLessThanOrEqual(Date.parse(at));
  });

  it("is immutable for analytics too, computed once", async () => {
    const at = new Date(gunMs + 4 * MINUTE).toISOString();
    const before = await loads("analytics_past_settled");
    const path = `/races/${raceId}/analytics?startGroupId=${groupIds[1]}&at=${at}`;
    const [first, second] = await Promise.all([get(path), get(path)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.headers.get("cache-control")).toBe("private, max-age=3600, immutable");
    expect(first.headers.get("etag")).toBe(second.headers.get("etag"));
    expect(((await first.json()) as { dataAsOf: string }).dataAsOf).toBe(at);
    expect((await loads("analytics_past_settled")) - before).toBe(1);
  });

  it("a recent moment (within 2 minutes of the cut-off) is sent for 2 s, as the live answer", async () => {
    const at = new Date(Date.now() - DELAY_SECONDS * 1000 - 30_000).toISOString();
    const answer = await get(`/races/${raceId}/live?at=${at}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("private, max-age=2");
    const analytics = await get(`/races/${raceId}/analytics?startGroupId=${groupIds[0]}&at=${at}`);
    expect(analytics.headers.get("cache-control")).toBe("private, max-age=2");
  });

  it("a moment before any data answers the race with empty groups", async () => {
    const answer = await get(`/races/${raceId}/live?at=2001-01-01T00:00:00Z`);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as {
      startGroups: Array<{ boats: unknown[]; wind: unknown; liveOrder: unknown; courseVersion: number; state: string }>;
    };
    expect(body.startGroups.length).toBe(2);
    for (const group of body.startGroups)
      expect(group).toMatchObject({ boats: [], wind: null, liveOrder: null, courseVersion: 0, state: "Scheduled" });
  });
});

describe("refused moments", () => {
  const malformed = ["yesterday", "2026-13-01T00:00:00Z", "2026-07-04T13:00:00+02:00", "2026-07-04", ""];

  it("answers at at or after the cut-off, or malformed, with 400 API_PARAM_INVALID naming at, on live and analytics", async () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    const atCutoffOrLater = new Date(Date.now() - DELAY_SECONDS * 1000 + 1000).toISOString();
    for (const at of [future, atCutoffOrLater, ...malformed]) {
      for (const path of [`/races/${raceId}/live`, `/races/${raceId}/analytics?startGroupId=${groupIds[0]}&`]) {
        const answer = await get(`${path}${path.endsWith("&") ? "" : "?"}at=${encodeURIComponent(at)}`);
        expect(answer.status, `${path} at=${at}`).toBe(400);
        expect(await answer.json()).toMatchObject({ code: "API_PARAM_INVALID", params: { name: "at" } });
      }
    }
    const repeated = await get(`/races/${raceId}/live?at=2026-01-01T00:00:00Z&at=2026-01-01T00:00:01Z`);
    expect(repeated.status).toBe(400);
  });

  it("checks visibility before the moment: an unknown race is 404 whatever at says", async () => {
    const answer = await get(`/races/a9999999-0000-4000-8000-000000000001/live?at=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(answer.status).toBe(404);
  });

  it("answers the same over gRPC: a future at is INVALID_ARGUMENT, a past one the REST body's message", async () => {
    const client = grpcClient(api.grpcUrl);
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${token}`);
    const path = `/${RaceLiveService.typeName}/GetRaceLive`;
    const call = (atMs: number) =>
      unary(
        client,
        path,
        GetRaceLiveRequestSchema,
        GetRaceLiveResponseSchema,
        create(GetRaceLiveRequestSchema, { raceId, at: timestampFromMs(atMs) }),
        metadata,
      );
    await expect(call(Date.now() + 60_000)).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    const atMs = gunMs + 5 * MINUTE;
    const message = await call(atMs);
    const rest = (await (await get(`/races/${raceId}/live?at=${new Date(atMs).toISOString()}`)).json()) as {
      startGroups: Array<{ boats: unknown[] }>;
    };
    expect(message.raceLive!.startGroups.map((group) => group.boats.length)).toEqual(rest.startGroups.map((group) => group.boats.length));
    client.close();
  });
});
