// Replay streams: the live stream with `from` and `speed` replays a simulated race at
// 60x over SSE and over a real gRPC client: states on the 2-second grid in order, each
// the past-moment answer of its moment, then, once caught up with the delayed cut-off,
// the live stream; Last-Event-ID resumes after the last id; viewers at the same moment
// share one read; bad parameters are API_PARAM_INVALID naming them; HEAD and other
// methods as on the rest of the API. No timed assertions: order and race-time spacing.

import { create, type MessageInitShape, toJson } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import {
  RaceLiveSchema,
  WatchRaceLiveRequestSchema,
  WatchRaceLiveResponseSchema,
  type WatchRaceLiveRequest,
  type WatchRaceLiveResponse,
} from "../../gen/racing/v1/race_live_pb.js";
import { REPLAY_STEP_MS } from "../../src/domain/past-moment.js";
import { importScenario } from "../../src/scenario/import.js";
import { simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { registry } from "../../src/telemetry/metrics.js";
import { bearer, CLUB, identityScenario, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { grpcClient } from "../support/grpc.js";
import { within } from "../support/load.js";
import { MINUTE } from "../support/race-scenarios.js";
import { openSse, type SseMessage, type SseStream } from "../support/sse.js";

const DELAY_SECONDS = 30;
const db = useFreshDatabase();
let api: Api;
let token: string;
let raceId: string;
const open: SseStream[] = [];

beforeAll(async () => {
  const scenario = identityScenario();
  for (const club of scenario.clubs) club.trackingRateLimitPerMinute = 100_000;
  const now = Date.now();
  const race = sliceScenario(
    simulateScenario({
      seed: "replay",
      gunMs: now - 15 * MINUTE,
      startGroups: 2,
      boatsPerGroup: 5,
      laps: 1,
      legLengthM: 700,
      delaySeconds: DELAY_SECONDS,
    }),
    null,
    now,
  );
  scenario.events = race.events.map((event) => ({ ...event, clubId: CLUB }));
  raceId = scenario.events[0]!.races[0]!.id;
  await importScenario(db.pool, scenario);
  api = await startApi(db, { streamHeartbeatMs: 1000, streamsPerClient: 50 });
  token = await tokenFor(api.url, "overlay");
});
afterAll(async () => {
  for (const stream of open) stream.close();
  await api?.close();
});

const cutoffMs = () => Date.now() - DELAY_SECONDS * 1000;
const iso = (ms: number) => new Date(ms).toISOString();
const onGrid = (ms: number) => ms % REPLAY_STEP_MS === 0;

async function sse(query: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const stream = await openSse(`${api.url}/api/v1/races/${raceId}/live/stream${query}`, { ...bearer(token), ...headers });
  open.push(stream);
  return stream;
}

/** Events until `live` of them are past the replay (off the grid): what a viewer of the catch-up sees. */
async function untilLive(stream: SseStream, live = 2): Promise<SseMessage[]> {
  const events: SseMessage[] = [];
  while (events.filter((event) => !onGrid(Number(event.id))).length < live) events.push(await stream.nextEvent(10_000));
  return events;
}

describe("GET /races/{raceId}/live/stream?from=&speed= (SSE)", () => {
  it("replays at 60x: the 2-second grid from the moment at or before from, in order, each the live answer at that moment; then the live stream", async () => {
    const fromMs = cutoffMs() - 80_000 + 777;
    const stream = await sse(`?from=${iso(fromMs)}&speed=60`);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = await untilLive(stream);
    stream.close();
    const ids = events.map((event) => Number(event.id));
    const replayed = ids.slice(
      0,
      ids.findIndex((id) => !onGrid(id)),
    );
    // The grid, from the moment at or before from, every 2 s of race time, none missed.
    expect(replayed[0]).toBe(Math.floor(fromMs / REPLAY_STEP_MS) * REPLAY_STEP_MS);
    expect(replayed.length).toBeGreaterThanOrEqual(40);
    for (let i = 1; i < replayed.length; i++) expect(replayed[i]! - replayed[i - 1]!).toBe(REPLAY_STEP_MS);
    // Then live states, never going back; every state's id is its dataAsOf.
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!);
    for (const event of events) expect(Date.parse((JSON.parse(event.data!) as { dataAsOf: string }).dataAsOf)).toBe(Number(event.id));
    const firstLive = events.find((event) => !onGrid(Number(event.id)))!;
    expect(Number(firstLive.id)).toBeGreaterThan(firstLive.receivedAt - DELAY_SECONDS * 1000 - 5000);
    expect(Number(firstLive.id)).toBeLessThanOrEqual(firstLive.receivedAt - DELAY_SECONDS * 1000);
    // Each replayed state is what GET /live?at= answers for its moment.
    for (const event of events.slice(0, replayed.length)) {
      const past = await fetch(`${api.url}/api/v1/races/${raceId}/live?at=${iso(Number(event.id))}`, { headers: bearer(token) });
      expect(JSON.parse(await past.text())).toEqual(JSON.parse(event.data!));
    }
    // Not vacuous: the boats moved during the replay.
    const boats = (event: SseMessage) =>
      JSON.stringify((JSON.parse(event.data!) as { startGroups: Array<{ boats: unknown }> }).startGroups.map((g) => g.boats));
    expect(boats(events[0]!)).not.toBe(boats(events[replayed.length - 1]!));
  });

  it("resumes after Last-Event-ID: the next moment of the grid, as EventSource reconnects to the same URL", async () => {
    const fromMs = cutoffMs() - 5 * MINUTE;
    const query = `?from=${iso(fromMs)}&speed=60`;
    const first = await sse(query);
    const seen = [await first.nextEvent(), await first.nextEvent(), await first.nextEvent()];
    first.close();
    const resumed = await sse(query, { "last-event-id": seen[2]!.id! });
    const next = [await resumed.nextEvent(), await resumed.nextEvent()];
    resumed.close();
    expect(Number(next[0]!.id)).toBe(Number(seen[2]!.id) + REPLAY_STEP_MS);
    expect(Number(next[1]!.id)).toBe(Number(seen[2]!.id) + 2 * REPLAY_STEP_MS);
    // A live id (off the grid) resumes at the next moment after it; a foreign one is ignored.
    const afterLive = await sse(query, { "last-event-id": String(fromMs + 61_001) });
    expect(Number((await afterLive.nextEvent()).id)).toBe(Math.floor((fromMs + 61_001) / REPLAY_STEP_MS + 1) * REPLAY_STEP_MS);
    afterLive.close();
    const foreign = await sse(query, { "last-event-id": "not-an-id" });
    expect(Number((await foreign.nextEvent()).id)).toBe(Math.floor(fromMs / REPLAY_STEP_MS) * REPLAY_STEP_MS);
    foreign.close();
  });

  it("resumed past the cut-off, goes on as the live stream", async () => {
    const stream = await sse(`?from=${iso(cutoffMs() - MINUTE)}&speed=10`, { "last-event-id": String(cutoffMs() - 1) });
    const event = await stream.nextEvent();
    stream.close();
    expect(onGrid(Number(event.id)) && Number(event.id) < cutoffMs() - 5000).toBe(false);
    expect(Number(event.id)).toBeGreaterThan(event.receivedAt - DELAY_SECONDS * 1000 - 5000);
  });

  it("shares the states: 30 viewers replaying the same minute read each settled moment once", async () => {
    const fromMs = cutoffMs() - 8 * MINUTE;
    const before = await settledLoads();
    const keptBefore = await keptMoments();
    const viewers = await Promise.all(Array.from({ length: 30 }, () => sse(`?from=${iso(fromMs)}&speed=60`)));
    const seen = await Promise.all(viewers.map(async (viewer) => Promise.all(Array.from({ length: 20 }, () => viewer.nextEvent()))));
    for (const viewer of viewers) viewer.close();
    // Every viewer saw the same 20 moments, and each was read once for all of them.
    for (const events of seen) expect(events.map((event) => event.id)).toEqual(seen[0]!.map((event) => event.id));
    // Each moment any viewer reached was read once: as many reads as moments kept (the
    // fastest viewers may have gone a few moments further before they were closed, and
    // a read they started may still be finishing: it is kept once done).
    await within(5000, async () => {
      const loads = (await settledLoads()) - before;
      expect(loads).toBeGreaterThanOrEqual(20);
      expect(loads).toBe((await keptMoments()) - keptBefore);
    });
  });
});

async function settledLoads(): Promise<number> {
  const metric = await registry.getSingleMetric("race_api_shared_reads_total")!.get();
  return metric.values
    .filter((v) => v.labels.cache === "live_past_settled" && v.labels.result === "miss")
    .reduce((sum, v) => sum + v.value, 0);
}

async function keptMoments(): Promise<number> {
  const metric = await registry.getSingleMetric("race_api_shared_read_keys")!.get();
  return metric.values.find((v) => v.labels.cache === "live_past_settled")?.value ?? 0;
}

describe("refused replays", () => {
  const future = () => iso(Date.now() + MINUTE);
  it.each([
    ["speed", "0"],
    ["speed", "61"],
    ["speed", "NaN"],
    ["speed", "-1"],
    ["speed", "Infinity"],
    ["speed", "ten"],
    ["speed", ""],
  ])("%s=%s is 400 API_PARAM_INVALID naming it", async (name, value) => {
    const response = await fetch(`${api.url}/api/v1/races/${raceId}/live/stream?from=${iso(cutoffMs() - MINUTE)}&${name}=${value}`, {
      headers: bearer(token),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "API_PARAM_INVALID", params: { name } });
  });

  it("refuses from in the future or at the cut-off, malformed from, speed without from, and repeated parameters", async () => {
    const cases: Array<[string, string]> = [
      [`?from=${future()}`, "from"],
      [`?from=${iso(cutoffMs() + 1000)}&speed=2`, "from"],
      ["?from=yesterday", "from"],
      ["?from=2026-02-30T10:00:00Z", "from"],
      ["?speed=10", "speed"],
      [`?from=${iso(cutoffMs() - MINUTE)}&speed=2&speed=3`, "speed"],
    ];
    for (const [query, name] of cases) {
      const response = await fetch(`${api.url}/api/v1/races/${raceId}/live/stream${query}`, { headers: bearer(token) });
      expect(response.status, query).toBe(400);
      expect(await response.json(), query).toMatchObject({ code: "API_PARAM_INVALID", params: { name } });
    }
  });

  it("HEAD answers the stream's headers and opens nothing; another method is no endpoint, as everywhere", async () => {
    const query = `?from=${iso(cutoffMs() - MINUTE)}&speed=10`;
    const head = await fetch(`${api.url}/api/v1/races/${raceId}/live/stream${query}`, { method: "HEAD", headers: bearer(token) });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(await head.text()).toBe("");
    const badHead = await fetch(`${api.url}/api/v1/races/${raceId}/live/stream?from=${future()}`, {
      method: "HEAD",
      headers: bearer(token),
    });
    expect(badHead.status).toBe(400);
    const post = await fetch(`${api.url}/api/v1/races/${raceId}/live/stream${query}`, { method: "POST", headers: bearer(token), body: "" });
    expect(post.status).toBe(404);
    expect(await post.json()).toMatchObject({ code: "API_ROUTE_NOT_FOUND" });
  });
});

/** A WatchRaceLive call over gRPC; its messages as they come. */
function watch(request: MessageInitShape<typeof WatchRaceLiveRequestSchema>): {
  messages: WatchRaceLiveResponse[];
  call: grpc.ClientReadableStream<WatchRaceLiveResponse>;
  done: Promise<grpc.ServiceError | null>;
} {
  const client = grpcClient(api.grpcUrl);
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  const call = client.makeServerStreamRequest(
    "/racing.v1.RaceLiveService/WatchRaceLive",
    (message: WatchRaceLiveRequest) => Buffer.from(toBinary(WatchRaceLiveRequestSchema, message)),
    (bytes: Buffer) => fromBinary(WatchRaceLiveResponseSchema, bytes),
    create(WatchRaceLiveRequestSchema, { raceId, ...request }),
    metadata,
  );
  const messages: WatchRaceLiveResponse[] = [];
  call.on("data", (message: WatchRaceLiveResponse) => messages.push(message));
  const done = new Promise<grpc.ServiceError | null>((resolve) => {
    call.on("error", (error: grpc.ServiceError) => resolve(error));
    call.on("end", () => resolve(null));
  });
  done.finally(() => client.close());
  return { messages, call, done };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("WatchRaceLive with from and speed over gRPC", () => {
  it("replays at 60x on the grid, each state the SSE replay's JSON, then goes live", async () => {
    const fromMs = cutoffMs() - 70_000;
    const { messages, call, done } = watch({ from: timestampFromMs(fromMs), speed: 60 });
    const liveStates = () => messages.filter((m) => m.event.case === "live" && !onGrid(Number(m.event.value.eventId)));
    for (let waited = 0; liveStates().length < 1 && waited < 200; waited++) await sleep(100);
    call.cancel();
    await done;
    const states = messages.flatMap((m) => (m.event.case === "live" ? [m.event.value] : []));
    const ids = states.map((state) => Number(state.eventId));
    const replayed = ids.slice(
      0,
      ids.findIndex((id) => !onGrid(id)),
    );
    expect(replayed[0]).toBe(Math.floor(fromMs / REPLAY_STEP_MS) * REPLAY_STEP_MS);
    expect(replayed.length).toBeGreaterThanOrEqual(35);
    for (let i = 1; i < replayed.length; i++) expect(replayed[i]! - replayed[i - 1]!).toBe(REPLAY_STEP_MS);
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!);
    // The same state as the polled endpoint's JSON for that moment.
    for (const state of states.slice(0, 5)) {
      const past = await fetch(`${api.url}/api/v1/races/${raceId}/live?at=${iso(Number(state.eventId))}`, { headers: bearer(token) });
      const json = toJson(RaceLiveSchema, state.raceLive!) as { dataAsOf: string; startGroups: Array<{ boats?: unknown[] }> };
      const body = (await past.json()) as { dataAsOf: string; startGroups: Array<{ boats: unknown[] }> };
      expect(Date.parse(json.dataAsOf)).toBe(Date.parse(body.dataAsOf));
      expect(json.startGroups.map((g) => g.boats?.length ?? 0)).toEqual(body.startGroups.map((g) => g.boats.length));
    }
  });

  it.each([
    ["speed 0", { speed: 0 }, "speed"],
    ["speed 61", { speed: 61 }, "speed"],
    ["speed NaN", { speed: Number.NaN }, "speed"],
    ["from in the future", { from: timestampFromMs(Date.now() + MINUTE) }, "from"],
    ["a from out of Timestamp's range", { from: { $typeName: "google.protobuf.Timestamp", seconds: 10n ** 15n, nanos: 0 } }, "from"],
    ["speed without from", { from: undefined, speed: 2 }, "speed"],
  ] as const)("refuses %s with INVALID_ARGUMENT naming it", async (_, request, name) => {
    const { done } = watch({ from: timestampFromMs(cutoffMs() - MINUTE), ...request } as MessageInitShape<
      typeof WatchRaceLiveRequestSchema
    >);
    const error = await done;
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    const details = error!.metadata.get("grpc-status-details-bin")[0] as Buffer;
    const info = fromBinary(StatusSchema, details).details.find((detail) => detail.typeUrl.endsWith("google.rpc.ErrorInfo"))!;
    expect(fromBinary(ErrorInfoSchema, info.value)).toMatchObject({ reason: "API_PARAM_INVALID", metadata: { name } });
  });
});
