// GET /api/v1/races/{raceId}/live and RaceLiveService.GetRaceLive over a hand-written
// race whose every value is known: the exact JSON, visibility, the capture window,
// natural sail-number order, the live order, wind, course versions, start group states,
// and the same answer over REST, Connect and gRPC.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { grpcClient } from "../support/grpc.js";
import { connectError, tokenFor, useApi } from "../support/api.js";
import { restJson } from "../support/rest-json.js";
import { TEST_BASE_URL } from "../support/runtime.js";
import {
  connectLive,
  connectLiveMessage,
  COURSE_V2,
  E,
  EVENT,
  FINISH_E2,
  GROUP_A,
  GROUP_B,
  GROUP_C,
  grpcLiveMessage,
  GUN_A,
  GUN_C,
  HIDDEN_RACES,
  HOUR,
  iso,
  liveScenario,
  MINUTE,
  NOW,
  RACE,
  RACE_NO_READING,
  RACE_NOT_LIVE,
  restLive,
  uuid,
} from "../support/race-scenarios.js";

const api = useApi({ scenario: liveScenario, client: "overlay" });

type Json = Record<string, unknown>;

async function live(raceId: string, headers: Record<string, string> = {}): Promise<{ response: Response; body: Json }> {
  const response = await restLive(api.url, api.token, raceId, headers);
  return { response, body: (await response.json()) as Json };
}

const groupOf = (body: Json, index: number) => (body.startGroups as Json[])[index]!;

describe("the race live object", () => {
  it("is the spec's exact JSON: every field in the spec's order, nulls present", async () => {
    const before = Date.now();
    const { response, body } = await live(RACE);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(body).toEqual({
      raceId: RACE,
      eventId: EVENT,
      raceNo: 1,
      name: "Race 1",
      isLive: true,
      delaySeconds: 0,
      dataAsOf: expect.any(String),
      startGroups: [
        {
          startGroupId: GROUP_A,
          name: "Fleet A",
          state: "Started",
          startTimeUtc: iso(GUN_A),
          finishTimeUtc: null,
          courseVersion: 2,
          wind: { twd: 5, tws: null, measuredAtUtc: iso(NOW - 5 * MINUTE) },
          boats: [
            {
              entryId: E[6],
              sailNumber: "GBR 8",
              boatName: "Boundary",
              lat: 50.6,
              lon: -1.6,
              sogKn: 4,
              cogDeg: null,
              fixTimeUtc: iso(GUN_A - 5 * MINUTE),
            },
            {
              entryId: E[2],
              sailNumber: "GBR 9",
              boatName: "Ninefold",
              lat: 50.79,
              lon: -1.28,
              sogKn: 6.25,
              cogDeg: 270,
              fixTimeUtc: iso(FINISH_E2),
            },
            {
              entryId: E[1],
              sailNumber: "GBR 10",
              boatName: "Tenacious",
              lat: 50.8001,
              lon: -1.2999,
              sogKn: null,
              cogDeg: 45.5,
              fixTimeUtc: iso(NOW - MINUTE),
            },
          ],
          liveOrder: [
            { entryId: E[2], rank: 1, elapsedSeconds: 1200, correctedSeconds: 1300, deltaSeconds: 0, finishTimeUtc: iso(FINISH_E2) },
            { entryId: E[1], rank: 2, elapsedSeconds: 1620.5, correctedSeconds: 1700.25, deltaSeconds: 12.5, finishTimeUtc: null },
            { entryId: E[3], rank: 3, elapsedSeconds: null, correctedSeconds: null, deltaSeconds: null, finishTimeUtc: null },
            { entryId: E[7], rank: null, elapsedSeconds: null, correctedSeconds: null, deltaSeconds: null, finishTimeUtc: null },
            { entryId: E[6], rank: null, elapsedSeconds: null, correctedSeconds: null, deltaSeconds: null, finishTimeUtc: null },
            { entryId: E[4], rank: null, elapsedSeconds: null, correctedSeconds: null, deltaSeconds: null, finishTimeUtc: null },
          ],
          liveOrderAsOf: iso(NOW - 3 * MINUTE),
          // The version applied at dataAsOf, not the one before nor the one after.
          course: COURSE_V2.map((step) => ({ label: null, ...step })),
        },
        {
          startGroupId: GROUP_B,
          name: "Fleet B",
          state: "Scheduled",
          startTimeUtc: null,
          finishTimeUtc: null,
          courseVersion: 0,
          wind: null,
          boats: [],
          liveOrder: [],
          liveOrderAsOf: iso(NOW - MINUTE),
          course: [],
        },
      ],
    });
    // Key order, level by level, as the spec's tables list the fields.
    expect(Object.keys(body)).toEqual(["raceId", "eventId", "raceNo", "name", "isLive", "delaySeconds", "dataAsOf", "startGroups"]);
    const group = groupOf(body, 0);
    expect(Object.keys(group)).toEqual([
      "startGroupId",
      "name",
      "state",
      "startTimeUtc",
      "finishTimeUtc",
      "courseVersion",
      "wind",
      "boats",
      "liveOrder",
      "liveOrderAsOf",
      "course",
    ]);
    expect(Object.keys(group.wind as Json)).toEqual(["twd", "tws", "measuredAtUtc"]);
    expect(Object.keys((group.boats as Json[])[0]!)).toEqual([
      "entryId",
      "sailNumber",
      "boatName",
      "lat",
      "lon",
      "sogKn",
      "cogDeg",
      "fixTimeUtc",
    ]);
    expect(Object.keys((group.liveOrder as Json[])[0]!)).toEqual([
      "entryId",
      "rank",
      "elapsedSeconds",
      "correctedSeconds",
      "deltaSeconds",
      "finishTimeUtc",
    ]);

    // dataAsOf is now (no delay), ISO 8601 UTC with milliseconds, and the header says the same.
    expect(body.dataAsOf).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(body.dataAsOf as string)).toBeGreaterThanOrEqual(before - 2000);
    expect(Date.parse(body.dataAsOf as string)).toBeLessThanOrEqual(Date.now());
    expect(response.headers.get("x-data-as-of")).toBe(body.dataAsOf);
    expect(response.headers.get("cache-control")).toBe("private, max-age=2");
    expect(response.headers.get("ratelimit-policy")).toBe('"tracking";q=120;w=60');
  });

  it("shows a finished race past gun + 3 h with each boat's newest fix inside its window, and no live order while not live", async () => {
    const { body } = await live(RACE_NOT_LIVE);
    expect(body.isLive).toBe(false);
    expect(body.startGroups).toEqual([
      {
        startGroupId: GROUP_C,
        name: "Fleet C",
        state: "Finished",
        startTimeUtc: iso(GUN_C),
        finishTimeUtc: iso(NOW - HOUR),
        courseVersion: 0,
        wind: null,
        boats: [
          // Its own finish (gun + 2 h) closed GBR 9's window; GBR 10 never finished, so gun + 3 h (excluded) closed it.
          {
            entryId: E[2],
            sailNumber: "GBR 9",
            boatName: "Ninefold",
            lat: 51.5,
            lon: -2.5,
            sogKn: null,
            cogDeg: null,
            fixTimeUtc: iso(GUN_C + HOUR),
          },
          {
            entryId: E[1],
            sailNumber: "GBR 10",
            boatName: "Tenacious",
            // Gun + 3 h itself is outside the window, as on the track's last page.
            lat: 51.1,
            lon: -2.1,
            sogKn: null,
            cogDeg: null,
            fixTimeUtc: iso(GUN_C + 3 * HOUR - 1000),
          },
        ],
        liveOrder: null,
        liveOrderAsOf: null,
        course: [],
      },
    ]);
  });

  it("has no live order and no wind while their only readings are later than dataAsOf", async () => {
    const { body } = await live(RACE_NO_READING);
    expect(body.isLive).toBe(true);
    expect(groupOf(body, 0)).toMatchObject({ wind: null, liveOrder: null, liveOrderAsOf: null, courseVersion: 0 });
    expect((groupOf(body, 0).boats as Json[]).map((b) => b.fixTimeUtc)).toEqual([iso(NOW - 2 * MINUTE)]);
  });

  it("never shows anything later than dataAsOf", async () => {
    for (const raceId of [RACE, RACE_NOT_LIVE, RACE_NO_READING]) {
      const { body } = await live(raceId);
      const cutoff = Date.parse(body.dataAsOf as string);
      for (const group of body.startGroups as Json[]) {
        const times = [
          group.finishTimeUtc,
          (group.wind as Json | null)?.measuredAtUtc,
          group.liveOrderAsOf,
          ...(group.boats as Json[]).map((b) => b.fixTimeUtc),
          ...((group.liveOrder as Json[] | null) ?? []).map((r) => r.finishTimeUtc),
        ].filter((t): t is string => typeof t === "string");
        for (const t of times) expect(Date.parse(t)).toBeLessThanOrEqual(cutoff);
      }
    }
  });
});

describe("visibility", () => {
  const RACE_NOT_FOUND = { status: 404, code: "RACE_NOT_FOUND", connect: "not_found" };

  async function expectRefused(
    raceId: string,
    clientId: string,
    refusal: { status: number; code: string; connect: string; params?: Record<string, string> },
  ) {
    const clientToken = await tokenFor(api.url, clientId);
    const rest = await restLive(api.url, clientToken, raceId);
    expect(rest.status).toBe(refusal.status);
    expect(rest.headers.get("content-type")).toBe("application/problem+json");
    expect(rest.headers.get("cache-control")).toBe("no-store");
    expect(await rest.json()).toEqual({
      type: `${TEST_BASE_URL}/docs/errors#${refusal.code}`,
      status: refusal.status,
      code: refusal.code,
      ...(refusal.params ? { params: refusal.params } : {}),
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const rpc = await connectError(await connectLive(api.url, clientToken, raceId));
    expect(rpc).toMatchObject({ code: refusal.connect, reason: refusal.code, metadata: refusal.params ?? {} });
  }

  it.each([
    ["an unknown id", uuid("a9999999", 9)],
    ["a malformed id", "not-a-uuid"],
    ["an id of 5000 characters", "a".repeat(5000)],
    ["a race of another club", HIDDEN_RACES.otherClub],
    ["a race of an unpublished event", HIDDEN_RACES.unpublished],
    ["a race of a legacy event", HIDDEN_RACES.legacy],
  ])("answers %s with RACE_NOT_FOUND over REST and Connect", async (_, raceId) => {
    await expectRefused(raceId, "overlay", RACE_NOT_FOUND);
  });

  it("answers a race whose event does not share tracking with TRACKING_NOT_SHARED", async () => {
    await expectRefused(HIDDEN_RACES.notShared, "overlay", { status: 404, code: "TRACKING_NOT_SHARED", connect: "not_found" });
  });

  it("answers a token without tracking:read with API_SCOPE_MISSING", async () => {
    await expectRefused(RACE, "eventsOnly", {
      status: 403,
      code: "API_SCOPE_MISSING",
      connect: "permission_denied",
      params: { scope: "tracking:read" },
    });
  });

  it("serves the co-hosting club", async () => {
    const response = await restLive(api.url, await tokenFor(api.url, "coHost"), RACE);
    expect(response.status).toBe(200);
    expect(((await response.json()) as Json).raceId).toBe(RACE);
  });

  it("decides per request, before the shared answer: another club gets RACE_NOT_FOUND while the race is cached", async () => {
    const otherToken = await tokenFor(api.url, "other");
    expect((await live(RACE)).response.status).toBe(200);
    const refused = await restLive(api.url, otherToken, RACE);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ code: "RACE_NOT_FOUND" });
    // Once more over Connect, right after the cached answer was served.
    await Promise.all([
      live(RACE),
      connectError(await connectLive(api.url, otherToken, RACE)).then((e) => expect(e.reason).toBe("RACE_NOT_FOUND")),
    ]);
  });
});

describe("the same answer on every surface", () => {
  let client: grpc.Client;
  beforeAll(() => {
    client = grpcClient(api.grpcUrl);
  });
  afterAll(() => client.close());

  it("over REST, Connect (JSON) and gRPC: field for field", async () => {
    // Asked together, the three land in one shared read; dataAsOf tells if one did not.
    for (let attempt = 1; ; attempt++) {
      const [rest, connect, overGrpc] = await Promise.all([
        live(RACE),
        connectLiveMessage(api.url, api.token, RACE),
        grpcLiveMessage(client, api.token, RACE),
      ]);
      const asJson = (await Promise.all(
        [connect, overGrpc].map((message) => restJson(RaceLiveService.method.getRaceLive, message)),
      )) as Json[];
      if (attempt < 5 && asJson.some((other) => other.dataAsOf !== rest.body.dataAsOf)) continue;
      expect(asJson[0]).toEqual(rest.body);
      expect(asJson[1]).toEqual(rest.body);
      // Over the RPCs, null is an unset field and the state its enum value.
      const groupB = connect.raceLive!.startGroups[1]!;
      expect(groupB.wind).toBeUndefined();
      expect(groupB.liveOrder).toBeDefined();
      expect(groupB.liveOrder!.rows).toEqual([]);
      expect(overGrpc.raceLive!.startGroups[0]!.boats[2]!.sogKn).toBeUndefined();
      return;
    }
  });

  it("refuses over gRPC as over REST", async () => {
    await expect(grpcLiveMessage(client, api.token, "not-a-uuid")).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    await expect(grpcLiveMessage(client, api.token, HIDDEN_RACES.notShared)).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });
});
