// The Watch streams over SSE and gRPC: each message is what the polled endpoint answers
// at that moment, new ones at most every 2 s (live) or per generation (insights),
// never newer than dataAsOf; event ids and Last-Event-ID resume; heartbeats; opening
// counts against the tracking bucket; the open-stream cap; a revoked client's streams
// end with the guard's code; shutdown ends streams cleanly.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { WatchRaceLiveRequestSchema, WatchRaceLiveResponseSchema, type WatchRaceLiveResponse } from "../../gen/racing/v1/race_live_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import { simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { setDisabled } from "../../src/store/clients.js";
import { ALL_SCOPES, bearer, CLUB, identityScenario, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { grpcClient } from "../support/grpc.js";
import { MINUTE } from "../support/race-scenarios.js";
import { openSse, type SseStream } from "../support/sse.js";

const DELAY_SECONDS = 30;
const HEARTBEAT_MS = 400;
const STREAMS_PER_CLIENT = 3;

const db = useFreshDatabase();
let api: Api;
let token: string;
let raceId: string;
const open: SseStream[] = [];

beforeAll(async () => {
  const scenario = identityScenario();
  scenario.clients.push(
    { clientId: "capped", clientSecret: "capped-secret", clubId: CLUB, scopes: ALL_SCOPES },
    { clientId: "willBeDisabled", clientSecret: "willBeDisabled-secret", clubId: CLUB, scopes: ALL_SCOPES },
    { clientId: "grpcWillBeDisabled", clientSecret: "grpcWillBeDisabled-secret", clubId: CLUB, scopes: ALL_SCOPES },
  );
  const now = Date.now();
  const race = sliceScenario(
    simulateScenario({
      seed: "streams",
      gunMs: now - 20 * MINUTE,
      startGroups: 1,
      boatsPerGroup: 6,
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
  api = await startApi(db, { streamHeartbeatMs: HEARTBEAT_MS, streamsPerClient: STREAMS_PER_CLIENT });
  token = await tokenFor(api.url, "overlay");
});
afterAll(async () => {
  for (const stream of open) stream.close();
  await api?.close();
});

async function sse(path: string, headers: Record<string, string> = bearer(token)): Promise<SseStream> {
  const stream = await openSse(`${api.url}/api/v1${path}`, headers);
  open.push(stream);
  return stream;
}

type Json = { dataAsOf: string; startGroups: Array<{ boats: Array<{ fixTimeUtc: string }> }>; generatedAtUtc?: string | null };

describe("GET /races/{raceId}/live/stream", () => {
  it("opens as text/event-stream with the call's rate-limit standing, and sends what the polled endpoint answers", async () => {
    const stream = await sse(`/races/${raceId}/live/stream`);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(stream.response.headers.get("cache-control")).toBe("no-store");
    expect(stream.response.headers.get("ratelimit")).toMatch(/^"tracking";r=\d+;t=\d+$/);
    const event = await stream.nextEvent();
    expect(event.event).toBe("live");
    const polled = await fetch(`${api.url}/api/v1/races/${raceId}/live`, { headers: bearer(token) });
    // The poll and the stream share the 2-second read: within it they are the same bytes.
    const body = await polled.text();
    if (polled.headers.get("x-data-as-of") === new Date(Number(event.id)).toISOString()) expect(event.data).toBe(body);
    expect(Object.keys(JSON.parse(event.data!) as object)).toEqual(Object.keys(JSON.parse(body) as object));
    stream.close();
  });

  it("sends a new state at most every 2 s, its id its dataAsOf, never anything newer than now minus the delay", async () => {
    const stream = await sse(`/races/${raceId}/live/stream`);
    const events = [await stream.nextEvent(), await stream.nextEvent(5000), await stream.nextEvent(5000)];
    for (const [i, event] of events.entries()) {
      const live = JSON.parse(event.data!) as Json;
      const asOf = Date.parse(live.dataAsOf);
      expect(event.id).toBe(String(asOf));
      expect(asOf).toBeLessThanOrEqual(event.receivedAt - DELAY_SECONDS * 1000);
      expect(asOf).toBeGreaterThan(event.receivedAt - DELAY_SECONDS * 1000 - 5000);
      for (const boat of live.startGroups.flatMap((group) => group.boats)) expect(Date.parse(boat.fixTimeUtc)).toBeLessThanOrEqual(asOf);
      if (i > 0) expect(asOf - Number(events[i - 1]!.id)).toBeGreaterThanOrEqual(1900);
    }
    // Every state the shared read makes, not every other one.
    expect(Number(events[2]!.id) - Number(events[1]!.id)).toBeLessThan(3000);
    stream.close();
  });

  it("sends heartbeat comments while nothing changes", async () => {
    const stream = await sse(`/races/${raceId}/live/stream`);
    await stream.nextEvent();
    const next = await stream.next(HEARTBEAT_MS * 3);
    expect(next).toMatchObject({ comment: "heartbeat" });
    expect(next.event).toBeUndefined();
    stream.close();
  });

  it("resumes after Last-Event-ID: the state already seen is not sent again, a newer one at once", async () => {
    const first = await sse(`/races/${raceId}/live/stream`);
    const seen = await first.nextEvent();
    first.close();
    const resumed = await sse(`/races/${raceId}/live/stream`, { ...bearer(token), "last-event-id": seen.id! });
    const event = await resumed.nextEvent(5000);
    expect(Number(event.id)).toBeGreaterThan(Number(seen.id));
    resumed.close();
    const stale = await sse(`/races/${raceId}/live/stream`, { ...bearer(token), "last-event-id": "1" });
    const opened = Date.now();
    expect((await stale.nextEvent(1500)).receivedAt - opened).toBeLessThan(1000);
    stale.close();
  });

  it("answers errors before the stream opens as problem+json", async () => {
    const unknown = await fetch(`${api.url}/api/v1/races/not-a-race/live/stream`, { headers: bearer(token) });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toBe("application/problem+json");
    expect(await unknown.json()).toMatchObject({ code: "RACE_NOT_FOUND" });
    const anonymous = await fetch(`${api.url}/api/v1/races/${raceId}/live/stream`);
    expect(await anonymous.json()).toMatchObject({ status: 401, code: "API_TOKEN_MISSING" });
  });

  it("lets a client hold a bounded number of open streams, over it 429 RATE_LIMIT_EXCEEDED; a closed one frees its place", async () => {
    const capped = await tokenFor(api.url, "capped");
    const streams = [];
    for (let i = 0; i < STREAMS_PER_CLIENT; i++) {
      const stream = await sse(`/races/${raceId}/live/stream`, bearer(capped));
      expect(stream.response.status).toBe(200);
      streams.push(stream);
    }
    const refused = await fetch(`${api.url}/api/v1/races/${raceId}/live/stream`, { headers: bearer(capped) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toMatchObject({ code: "RATE_LIMIT_EXCEEDED" });
    // Another client is not affected.
    expect((await sse(`/races/${raceId}/live/stream`)).response.status).toBe(200);

    streams[0]!.close();
    const deadline = Date.now() + 3000;
    let again: SseStream | null = null;
    while (!again && Date.now() < deadline) {
      const attempt = await sse(`/races/${raceId}/live/stream`, bearer(capped));
      if (attempt.response.status === 200) again = attempt;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(again?.response.status).toBe(200);
  });

  it("ends the stream of a client disabled meanwhile within 5 s, with an error event holding the guard's problem", async () => {
    const doomed = await tokenFor(api.url, "willBeDisabled");
    const stream = await sse(`/races/${raceId}/live/stream`, bearer(doomed));
    await stream.nextEvent();
    const disabledAt = Date.now();
    await setDisabled(db.pool, "willBeDisabled", true);
    let message = await stream.next(7000);
    while (message.event !== "error") message = await stream.next(7000);
    expect(message.receivedAt - disabledAt).toBeLessThan(6500);
    expect(JSON.parse(message.data!)).toMatchObject({ status: 401, code: "API_CLIENT_DISABLED" });
    await stream.ended;
  });
});

describe("GET /races/{raceId}/live/insights/stream", () => {
  it("sends the insights answer the polled endpoint gives, in the asked language, with the generation as id", async () => {
    const stream = await sse(`/races/${raceId}/live/insights/stream?lang=de`);
    expect(stream.response.status).toBe(200);
    const event = await stream.nextEvent();
    expect(event.event).toBe("insights");
    const polled = await (await fetch(`${api.url}/api/v1/races/${raceId}/live/insights?lang=de`, { headers: bearer(token) })).text();
    expect(event.data).toBe(polled);
    const answer = JSON.parse(event.data!) as Json & { lang: string };
    expect(answer.lang).toBe("de");
    expect(event.id).toBe(String(Date.parse(answer.generatedAtUtc!)));
    // Nothing new until the next generation, a minute on: heartbeats meanwhile.
    expect(await stream.next(HEARTBEAT_MS * 3)).toMatchObject({ comment: "heartbeat" });
    stream.close();
  });
});

describe("RaceLiveService.WatchRaceLive over gRPC", () => {
  function watch(bearerToken: string, request: { raceId: string; resumeAfter?: string }) {
    const client = grpcClient(api.grpcUrl);
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${bearerToken}`);
    const call = client.makeServerStreamRequest(
      "/racing.v1.RaceLiveService/WatchRaceLive",
      (message: ReturnType<typeof create<typeof WatchRaceLiveRequestSchema>>) => Buffer.from(toBinary(WatchRaceLiveRequestSchema, message)),
      (bytes: Buffer) => fromBinary(WatchRaceLiveResponseSchema, bytes),
      create(WatchRaceLiveRequestSchema, request),
      metadata,
    );
    const messages: WatchRaceLiveResponse[] = [];
    const finished = new Promise<grpc.StatusObject>((resolve) => {
      call.on("data", (message: WatchRaceLiveResponse) => messages.push(message));
      call.on("error", () => {});
      call.on("status", resolve);
    });
    return { call, messages, finished, close: () => client.close() };
  }

  const lives = (messages: WatchRaceLiveResponse[]) => messages.flatMap((m) => (m.event.case === "live" ? [m.event.value] : []));

  it("streams live states with their ids, and heartbeats", async () => {
    const stream = watch(token, { raceId });
    await waitFor(() => lives(stream.messages).length >= 2 && stream.messages.some((m) => m.event.case === "heartbeat"), 8000);
    const [first, second] = lives(stream.messages);
    expect(Number(second!.eventId) - Number(first!.eventId)).toBeGreaterThanOrEqual(1900);
    expect(first!.raceLive?.raceId).toBe(raceId);
    stream.call.cancel();
    stream.close();
  });

  it("refuses an unknown race with NOT_FOUND RACE_NOT_FOUND", async () => {
    const stream = watch(token, { raceId: "not-a-race" });
    const status = await stream.finished;
    expect(status.code).toBe(grpc.status.NOT_FOUND);
    expect(reasonOf(status)).toBe("RACE_NOT_FOUND");
    stream.close();
  });

  it("ends the stream of a client disabled meanwhile within 5 s with UNAUTHENTICATED API_CLIENT_DISABLED", async () => {
    const doomed = await tokenFor(api.url, "grpcWillBeDisabled");
    const stream = watch(doomed, { raceId });
    await waitFor(() => lives(stream.messages).length >= 1, 5000);
    const disabledAt = Date.now();
    await setDisabled(db.pool, "grpcWillBeDisabled", true);
    const status = await stream.finished;
    expect(Date.now() - disabledAt).toBeLessThan(6500);
    expect(status.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(reasonOf(status)).toBe("API_CLIENT_DISABLED");
    stream.close();
  });
});

describe("WatchRaceLive over the Connect protocol (HTTP/1.1, JSON)", () => {
  it("streams enveloped race live messages", async () => {
    const json = Buffer.from(JSON.stringify({ raceId }));
    const envelope = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), json]);
    envelope.writeUInt32BE(json.length, 1);
    const controller = new AbortController();
    const response = await fetch(`${api.url}/racing.v1.RaceLiveService/WatchRaceLive`, {
      method: "POST",
      headers: { "content-type": "application/connect+json", ...bearer(token) },
      body: envelope,
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    let received = Buffer.alloc(0);
    const messages: Array<{ live?: { eventId: string; raceLive: { raceId: string } }; heartbeat?: object }> = [];
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      received = Buffer.concat([received, chunk]);
      while (received.length >= 5 && received.length >= 5 + received.readUInt32BE(1)) {
        const length = received.readUInt32BE(1);
        messages.push(JSON.parse(received.subarray(5, 5 + length).toString()) as (typeof messages)[number]);
        received = received.subarray(5 + length);
      }
      if (messages.some((message) => message.live)) break;
    }
    controller.abort();
    const live = messages.find((message) => message.live)!.live!;
    expect(live.raceLive.raceId).toBe(raceId);
    expect(live.eventId).toMatch(/^\d+$/);
  });
});

describe("shutdown", () => {
  it("ends open streams cleanly, so the server closes promptly and clients reconnect elsewhere", async () => {
    const second = await startApi(db);
    const stream = await openSse(`${second.url}/api/v1/races/${raceId}/live/stream`, bearer(token));
    await stream.nextEvent();
    const started = Date.now();
    await second.close();
    await stream.ended;
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

function reasonOf(status: grpc.StatusObject): string | undefined {
  const details = status.metadata.get("grpc-status-details-bin")[0];
  if (!(details instanceof Buffer)) return undefined;
  const info = fromBinary(StatusSchema, details).details.find((detail) => detail.typeUrl.endsWith("google.rpc.ErrorInfo"));
  return info ? fromBinary(ErrorInfoSchema, info.value).reason : undefined;
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
