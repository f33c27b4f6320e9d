// The analytics of a simulated race in progress, over real listeners: REST, the SSE
// stream and real gRPC (@grpc/grpc-js) for the polled RPC and the Watch stream. The
// race is imported up to 5 minutes past now with a 30 s delay, so an answer showing
// anything newer than dataAsOf would be caught; one boat's phone stops 90 s before
// now. Values are held to the simulator's own record of what the boats did.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import {
  GetRaceAnalyticsRequestSchema,
  GetRaceAnalyticsResponseSchema,
  type GetRaceAnalyticsResponse,
  WatchRaceAnalyticsRequestSchema,
  WatchRaceAnalyticsResponseSchema,
  type WatchRaceAnalyticsResponse,
} from "../../gen/racing/v1/race_analytics_pb.js";
import type { Scenario } from "../../src/domain/scenario.js";
import { type RaceTruth, simulateRace, sliceScenario } from "../../src/sim/index.js";
import { bearer, CLUB, identityScenario, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { grpcClient } from "../support/grpc.js";
import { iso, MINUTE } from "../support/race-scenarios.js";
import { openSse, type SseStream } from "../support/sse.js";

const DELAY_SECONDS = 30;
const db = useFreshDatabase();
let api: Api;
let token: string;
let client: grpc.Client;
let truth: RaceTruth;
let raceId: string;
let gunMs: number;
/** The boat whose phone stops reporting 90 s before now. */
let silent: string;
/** The entries the analytics may show: approved, with a phone. */
let shown: Set<string>;
const streams: SseStream[] = [];

beforeAll(async () => {
  const now = Date.now();
  gunMs = now - 14 * MINUTE;
  const simulated = simulateRace({
    seed: "analytics-surface",
    gunMs,
    startGroups: 1,
    boatsPerGroup: 6,
    laps: 1,
    // Long enough that the fleet is still racing 14 minutes in.
    legLengthM: 1600,
    delaySeconds: DELAY_SECONDS,
    overEarlyReturn: true,
    courseChange: false,
  });
  truth = simulated.truth;
  const scenario: Scenario = identityScenario();
  scenario.clubs = scenario.clubs.map((club) => ({ ...club, trackingRateLimitPerMinute: 100_000 }));
  scenario.clients.push({ clientId: "eventsOnly", clientSecret: "eventsOnly-secret", clubId: CLUB, scopes: ["events:read"] });
  const event = sliceScenario(simulated.scenario, null, now + 5 * MINUTE).events[0]!;
  const group = event.races[0]!.startGroups[0]!;
  // The silent boat: one with a phone still racing at now, whose fixes stop 90 s before it.
  shown = new Set(event.entries.filter((entry) => entry.approved !== false && entry.hasPhone !== false).map((entry) => entry.id));
  const racing = truth.groups[0]!.boats.filter(
    (boat) => shown.has(boat.entryId) && (boat.finishedAtMs ?? Infinity) > now && boat.retiredAtMs === null,
  );
  silent = racing.at(-1)!.entryId;
  group.tracks = group.tracks!.map((track) => {
    if (track.entryId !== silent) return track;
    const keep = track.t.map((t) => t <= now - 90_000);
    const cut = <T>(values: T[] | undefined) => values?.filter((_, i) => keep[i]);
    return {
      ...track,
      t: cut(track.t)!,
      lat: cut(track.lat)!,
      lon: cut(track.lon)!,
      sogKn: cut(track.sogKn),
      cogDeg: cut(track.cogDeg),
      accuracyM: cut(track.accuracyM),
    };
  });
  scenario.events = [{ ...event, clubId: CLUB }];
  raceId = event.races[0]!.id;
  await seedIdentities(db, scenario);
  api = await startApi(db, { streamsPerClient: 50 });
  token = await tokenFor(api.url, "overlay");
  client = grpcClient(api.grpcUrl);
}, 120_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  client?.close();
  await api?.close();
});

type Json = Record<string, unknown>;
interface Boat {
  entryId: string;
  progressRank: number;
  fixTimeUtc: string | null;
  finishedAtUtc: string | null;
  stale: boolean;
  distanceBehindLeaderM: number | null;
}

async function rest(path: string, headers: Record<string, string> = bearer(token)): Promise<{ response: Response; body: Json }> {
  const response = await fetch(`${api.url}/api/v1/races/${raceId}/${path}`, { headers });
  return { response, body: (await response.json()) as Json };
}

/** The truth's leader at `atMs` among `shown`: finished boats by finish time, then by true course progress; and the gap to the next. */
function truthOrder(atMs: number, shown: readonly string[]): Array<{ entryId: string; key: number }> {
  return truth.groups[0]!.boats.filter((boat) => shown.includes(boat.entryId))
    .map((boat) => {
      if (boat.finishedAtMs !== null && boat.finishedAtMs <= atMs) return { entryId: boat.entryId, key: 1e9 - boat.finishedAtMs / 1000 };
      const i = boat.samples.tMs.findLastIndex((t) => t <= atMs);
      return { entryId: boat.entryId, key: i < 0 ? -1e9 : (boat.samples.progressM[i] as number) };
    })
    .sort((a, b) => b.key - a.key);
}

describe("the analytics of a simulated race", () => {
  it("leads with the boat the simulator says leads, and flags the boat whose phone went quiet as stale", async () => {
    const { response, body } = await rest("analytics");
    expect(response.status).toBe(200);
    const asOf = Date.parse(body.dataAsOf as string);
    const boats = body.boats as Boat[];
    expect(boats.length).toBeGreaterThanOrEqual(4);
    const order = truthOrder(
      asOf,
      boats.map((boat) => boat.entryId).filter((id) => id !== silent),
    );
    const leader = boats.find((boat) => boat.entryId !== silent)!;
    // A near tie may go either way within the analytics' error; a clear lead may not.
    if (order[0]!.key - order[1]!.key > 30) expect(leader.entryId).toBe(order[0]!.entryId);
    else expect([order[0]!.entryId, order[1]!.entryId]).toContain(leader.entryId);
    expect(boats[0]!.distanceBehindLeaderM).toBe(0);

    const quiet = boats.find((boat) => boat.entryId === silent)!;
    expect(quiet.stale).toBe(true);
    expect(asOf - Date.parse(quiet.fixTimeUtc!)).toBeGreaterThan(30_000);
    // A boat that retired stopped reporting too; every other racing boat reports.
    const retired = new Map(truth.groups[0]!.boats.map((boat) => [boat.entryId, boat.retiredAtMs]));
    for (const boat of boats.filter((b) => b.entryId !== silent && b.finishedAtUtc === null)) {
      const retiredAtMs = retired.get(boat.entryId) ?? null;
      expect(boat.stale, boat.entryId).toBe(retiredAtMs !== null && retiredAtMs < asOf - 31_000);
    }
  });

  it("shows nothing newer than dataAsOf though the database holds 5 minutes more", async () => {
    const { response, body } = await rest("analytics");
    const asOf = Date.parse(body.dataAsOf as string);
    expect(response.headers.get("x-data-as-of")).toBe(body.dataAsOf);
    expect(body.delaySeconds).toBe(DELAY_SECONDS);
    expect(asOf).toBeLessThanOrEqual(Date.now() - DELAY_SECONDS * 1000);
    for (const boat of body.boats as Boat[]) {
      if (boat.fixTimeUtc !== null) expect(Date.parse(boat.fixTimeUtc)).toBeLessThanOrEqual(asOf);
      if (boat.finishedAtUtc !== null) expect(Date.parse(boat.finishedAtUtc)).toBeLessThanOrEqual(asOf);
    }
    // The racing boats' newest kept fixes are close behind dataAsOf: the cut is there, not earlier.
    const racing = (body.boats as Boat[]).filter((boat) => !boat.stale && boat.finishedAtUtc === null);
    expect(racing.length).toBeGreaterThan(0);
    for (const boat of racing) expect(asOf - Date.parse(boat.fixTimeUtc!)).toBeLessThan(30_000);
  });
});

describe("the figures", () => {
  /** Every number of a JSON answer with the name of the field that holds it. */
  function numbers(value: unknown, name = ""): Array<{ name: string; value: number }> {
    if (typeof value === "number") return [{ name, value }];
    if (Array.isArray(value)) return value.flatMap((item) => numbers(item, name));
    if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([key, item]) => numbers(item, key));
    return [];
  }
  const decimals = (value: number) => (String(value).split(".")[1] ?? "").length;
  /** The most decimals a field may show: a tenth of a metre, second or degree, a hundredth of a knot, a millisecond, ~1 cm of position. */
  const MOST: Record<string, number> = { M: 1, Seconds: 1, Deg: 1, Kn: 2, durationSeconds: 3, behindLegLeaderSeconds: 3, lat: 7, lon: 7 };
  const most = (name: string) => MOST[name] ?? MOST[Object.keys(MOST).find((suffix) => name.endsWith(suffix)) ?? ""] ?? 0;

  it("are shown to the step they can mean, not to a double's seventeen digits", async () => {
    const since = new Date(gunMs + 5 * MINUTE).toISOString();
    const answers = await Promise.all(["analytics", "analytics/legs", `analytics/manoeuvres?since=${since}`].map((path) => rest(path)));
    const found = answers.flatMap(({ body }) => numbers(body)).filter(({ name }) => !["twd", "tws"].includes(name));
    // Not vacuous: fractional figures of every kind are there.
    for (const name of ["distanceBehindLeaderM", "vmgKn", "twaDeg", "distanceSailedM", "lossM", "lat"]) {
      expect(
        found.some((n) => n.name === name && !Number.isInteger(n.value)),
        name,
      ).toBe(true);
    }
    for (const { name, value } of found) expect(decimals(value), `${name} ${value}`).toBeLessThanOrEqual(most(name));
  });
});

describe("the manoeuvres pages", () => {
  interface Page {
    since: string;
    until: string;
    nextSince: string | null;
    manoeuvres: Array<{ entryId: string; kind: string; atUtc: string }>;
    passings: Array<{ entryId: string; stepIndex: number; atUtc: string }>;
  }

  it("page forward from the window's start to dataAsOf, each item in its [since, until), the passings the simulator recorded", async () => {
    const pages: Page[] = [];
    let since = gunMs - 5 * MINUTE;
    let asOf = 0;
    for (;;) {
      const { response, body } = await rest(`analytics/manoeuvres?since=${iso(since)}`);
      expect(response.status).toBe(200);
      const page = body as unknown as Page;
      pages.push(page);
      for (const item of [...page.manoeuvres, ...page.passings]) {
        expect(Date.parse(item.atUtc)).toBeGreaterThanOrEqual(Date.parse(page.since));
        expect(Date.parse(item.atUtc)).toBeLessThan(Date.parse(page.until));
      }
      expect(page.nextSince).toBe(page.until);
      if (page.until === response.headers.get("x-data-as-of")) {
        asOf = Date.parse(page.until);
        break;
      }
      since = Date.parse(page.nextSince!);
    }
    expect(pages.length).toBe(Math.ceil((asOf - (gunMs - 5 * MINUTE)) / (10 * MINUTE)));
    const manoeuvres = pages.flatMap((page) => page.manoeuvres);
    const passings = pages.flatMap((page) => page.passings);
    expect(manoeuvres.filter((m) => m.kind === "tack").length).toBeGreaterThan(5);
    // Every passing the simulator recorded before the last minute is there, within 3 s; none after dataAsOf.
    // The silent boat's track was cut short of where the simulator's record goes on.
    const recorded = truth.groups[0]!.boats.filter((boat) => shown.has(boat.entryId) && boat.entryId !== silent).flatMap((boat) =>
      boat.passings.filter((p) => p.atMs < asOf - MINUTE).map((p) => ({ entryId: boat.entryId, ...p })),
    );
    expect(recorded.length).toBeGreaterThan(4);
    for (const passing of recorded) {
      const found = passings.find((p) => p.entryId === passing.entryId && p.stepIndex === passing.stepIndex);
      expect(found, `${passing.entryId} step ${passing.stepIndex}`).toBeDefined();
      expect(Math.abs(Date.parse(found!.atUtc) - passing.atMs)).toBeLessThanOrEqual(3000);
    }
  });

  it("a settled page is immutable, kept and the same on repeat; the page reaching dataAsOf is max-age=2", async () => {
    const path = `analytics/manoeuvres?since=${iso(gunMs - 5 * MINUTE)}`;
    const first = await fetch(`${api.url}/api/v1/races/${raceId}/${path}`, { headers: bearer(token) });
    expect(first.headers.get("cache-control")).toBe("private, max-age=3600, immutable");
    const firstText = await first.text();
    const again = await fetch(`${api.url}/api/v1/races/${raceId}/${path}`, { headers: bearer(token) });
    expect(await again.text()).toBe(firstText);
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    const notModified = await fetch(`${api.url}/api/v1/races/${raceId}/${path}`, {
      headers: { ...bearer(token), "if-none-match": first.headers.get("etag")! },
    });
    expect(notModified.status).toBe(304);
    const near = await rest(`analytics/manoeuvres?since=${iso(Date.now() - 3 * MINUTE)}`);
    expect(near.response.headers.get("cache-control")).toBe("private, max-age=2");
  });

  it("agree with the legs: each leg starts at the boat's passing of its first step", async () => {
    const legs = (await rest("analytics/legs")).body as {
      boats: Array<{ entryId: string; legs: Array<{ legIndex: number; startedAtUtc: string; endedAtUtc: string | null; tacks: number }> }>;
    };
    const page = (await rest(`analytics/manoeuvres?since=${iso(gunMs - 5 * MINUTE)}&until=${iso(gunMs + 10 * MINUTE)}`))
      .body as unknown as Page;
    const page2 = (await rest(`analytics/manoeuvres?since=${iso(gunMs + 10 * MINUTE)}`)).body as unknown as Page;
    const passings = [...page.passings, ...page2.passings];
    let compared = 0;
    for (const boat of legs.boats) {
      for (const leg of boat.legs) {
        const start = passings.find((p) => p.entryId === boat.entryId && p.stepIndex === leg.legIndex);
        if (start === undefined) continue;
        expect(leg.startedAtUtc).toBe(start.atUtc);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(4);
  });
});

/** One GetRaceAnalytics over @grpc/grpc-js: the answer with its headers, or the error's code and reason. */
function grpcAnalytics(
  request: { raceId: string; startGroupId?: string },
  bearerToken: string | null = token,
): Promise<{ answer?: GetRaceAnalyticsResponse; headers: grpc.Metadata; code: grpc.status; reason?: string | undefined }> {
  const metadata = new grpc.Metadata();
  if (bearerToken !== null) metadata.set("authorization", `Bearer ${bearerToken}`);
  return new Promise((resolve) => {
    let headers = new grpc.Metadata();
    const call = client.makeUnaryRequest(
      "/racing.v1.RaceAnalyticsService/GetRaceAnalytics",
      (message: typeof request) => Buffer.from(toBinary(GetRaceAnalyticsRequestSchema, create(GetRaceAnalyticsRequestSchema, message))),
      (bytes: Buffer) => fromBinary(GetRaceAnalyticsResponseSchema, bytes),
      request,
      metadata,
      (error, answer) => {
        if (!error) return resolve({ answer: answer!, headers, code: grpc.status.OK });
        const [details] = error.metadata.get("grpc-status-details-bin") as Buffer[];
        const info = details
          ? fromBinary(StatusSchema, details)
              .details.map((any) => anyUnpack(any, ErrorInfoSchema))
              .find((x) => x !== undefined)
          : undefined;
        resolve({ code: error.code, reason: info?.reason, headers: error.metadata });
      },
    );
    call.on("metadata", (received) => (headers = received));
  });
}

describe("over real gRPC", () => {
  it("answers what REST answers, with the cache headers as metadata", async () => {
    for (let attempt = 1; ; attempt++) {
      const [{ body }, answer] = await Promise.all([rest("analytics"), grpcAnalytics({ raceId })]);
      const analytics = answer.answer!.raceAnalytics!;
      // Both within one shared computation, or try again.
      if (
        Number(analytics.dataAsOf!.seconds) * 1000 + analytics.dataAsOf!.nanos / 1e6 !== Date.parse(body.dataAsOf as string) &&
        attempt < 5
      )
        continue;
      expect(answer.headers.get("cache-control")).toEqual(["private, max-age=2"]);
      expect(answer.headers.get("x-data-as-of")).toEqual([body.dataAsOf]);
      const boats = body.boats as Array<Boat & { sogKn: number | null; legIndex: number | null }>;
      expect(
        analytics.boats.map((boat) => [boat.entryId, boat.progressRank, boat.stale, boat.sogKn ?? null, boat.legIndex ?? null]),
      ).toEqual(boats.map((boat) => [boat.entryId, boat.progressRank, boat.stale, boat.sogKn, boat.legIndex]));
      return;
    }
  });

  it("refuses with the spec's codes: UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, INVALID_ARGUMENT", async () => {
    expect(await grpcAnalytics({ raceId }, null)).toMatchObject({ code: grpc.status.UNAUTHENTICATED, reason: "API_TOKEN_MISSING" });
    expect(await grpcAnalytics({ raceId }, "not-a-token")).toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
      reason: "API_TOKEN_INVALID",
    });
    expect(await grpcAnalytics({ raceId }, await tokenFor(api.url, "eventsOnly"))).toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
      reason: "API_SCOPE_MISSING",
    });
    expect(await grpcAnalytics({ raceId: "not-a-uuid" })).toMatchObject({ code: grpc.status.NOT_FOUND, reason: "RACE_NOT_FOUND" });
    expect(await grpcAnalytics({ raceId, startGroupId: "nope" })).toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      reason: "API_PARAM_INVALID",
    });
    expect(await grpcAnalytics({ raceId, startGroupId: truth.raceId })).toMatchObject({
      code: grpc.status.NOT_FOUND,
      reason: "START_GROUP_NOT_FOUND",
    });
  });

  it("WatchRaceAnalytics sends the state now, and after resume_after only a newer one", async () => {
    const watch = (resumeAfter: string) => {
      const metadata = new grpc.Metadata();
      metadata.set("authorization", `Bearer ${token}`);
      return client.makeServerStreamRequest(
        "/racing.v1.RaceAnalyticsService/WatchRaceAnalytics",
        (message: { raceId: string; resumeAfter: string }) =>
          Buffer.from(toBinary(WatchRaceAnalyticsRequestSchema, create(WatchRaceAnalyticsRequestSchema, message))),
        (bytes: Buffer) => fromBinary(WatchRaceAnalyticsResponseSchema, bytes),
        { raceId, resumeAfter },
        metadata,
      );
    };
    const firstState = (call: grpc.ClientReadableStream<WatchRaceAnalyticsResponse>) =>
      new Promise<{ eventId: string; dataAsOfMs: number; boats: number }>((resolve, reject) => {
        call.on("error", (error: grpc.ServiceError) => {
          if (error.code !== grpc.status.CANCELLED) reject(error);
        });
        call.on("data", (message: WatchRaceAnalyticsResponse) => {
          if (message.event.case !== "analytics") return;
          const state = message.event.value.raceAnalytics!;
          resolve({
            eventId: message.event.value.eventId,
            dataAsOfMs: Number(state.dataAsOf!.seconds) * 1000 + state.dataAsOf!.nanos / 1e6,
            boats: state.boats.length,
          });
        });
      });
    const first = watch("");
    const seen = await firstState(first);
    first.cancel();
    expect(seen.eventId).toBe(String(seen.dataAsOfMs));
    expect(seen.boats).toBeGreaterThanOrEqual(4);
    const resumed = watch(seen.eventId);
    const next = await firstState(resumed);
    resumed.cancel();
    expect(next.dataAsOfMs).toBeGreaterThan(seen.dataAsOfMs);
  });
});

describe("the SSE stream", () => {
  async function sse(query = "", headers: Record<string, string> = bearer(token)): Promise<SseStream> {
    const stream = await openSse(`${api.url}/api/v1/races/${raceId}/analytics/stream${query}`, headers);
    streams.push(stream);
    return stream;
  }

  it("sends the polled answer as its first event, its id its dataAsOf; Last-Event-ID resumes with a newer one", async () => {
    const stream = await sse();
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const event = await stream.nextEvent();
    stream.close();
    expect(event.event).toBe("analytics");
    const state = JSON.parse(event.data!) as Json;
    expect(event.id).toBe(String(Date.parse(state.dataAsOf as string)));
    const polled = await rest("analytics");
    expect(Object.keys(state)).toEqual(Object.keys(polled.body));
    if (polled.body.dataAsOf === state.dataAsOf) expect(state).toEqual(polled.body);

    const resumed = await sse("", { ...bearer(token), "last-event-id": event.id! });
    const next = await resumed.nextEvent(6000);
    resumed.close();
    expect(Number(next.id)).toBeGreaterThan(Number(event.id));
  });

  it("refuses before opening as the polled endpoint does", async () => {
    const malformed = await fetch(`${api.url}/api/v1/races/${raceId}/analytics/stream?startGroupId=nope`, { headers: bearer(token) });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: "API_PARAM_INVALID", params: { name: "startGroupId" } });
    const unknown = await fetch(`${api.url}/api/v1/races/not-a-race/analytics/stream`, { headers: bearer(token) });
    expect(unknown.status).toBe(404);
    const anonymous = await fetch(`${api.url}/api/v1/races/${raceId}/analytics/stream`);
    expect(anonymous.status).toBe(401);
  });
});
