// GET /api/v1/events/{eventId}/results, GET /api/v1/races/{raceId}/results and
// ResultsService: official results only (never the live order), row order, nulls,
// visibility (EVENT_NOT_FOUND / RACE_NOT_FOUND without the sharing check), scope.

import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { GetRaceResultsRequestSchema, GetRaceResultsResponseSchema, ResultStatus } from "../../gen/racing/v1/results_pb.js";
import { bearer, connectCall, connectError, tokenFor, useApi } from "../support/api.js";
import {
  E,
  EMPTY_EVENT,
  EVENT,
  eventScenario,
  GROUP_1A,
  GROUP_2A,
  HIDDEN_EVENTS,
  HIDDEN_RACES,
  RACE_1,
  RACE_1_RESAIL,
  RACE_2,
  RACE_3,
} from "../support/event-scenarios.js";
import { grpcClient, unary } from "../support/grpc.js";
import { uuid } from "../support/race-scenarios.js";
import { TEST_BASE_URL } from "../support/runtime.js";

const api = useApi({ scenario: eventScenario, client: "overlay" });

function get(path: string, bearerToken = api.token, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${api.url}/api/v1${path}`, { headers: { ...bearer(bearerToken), ...headers } });
}

// Rank first, unranked last; equal ranks and the unranked by sail number in natural order.
const RACE_1_RESULTS = {
  raceId: RACE_1,
  eventId: EVENT,
  raceNo: 1,
  name: "Race 1",
  startGroups: [
    {
      startGroupId: GROUP_1A,
      name: "Fleet A",
      status: "final",
      publishedAtUtc: "2026-04-01T15:00:00.000Z",
      rows: [
        {
          entryId: E[2],
          sailNumber: "GBR 9",
          boatName: "Ninefold",
          rank: 1,
          status: "OK",
          elapsedSeconds: 3500,
          correctedSeconds: 3400,
          points: 1,
        },
        {
          entryId: E[1],
          sailNumber: "GBR 10",
          boatName: "Tenacious",
          rank: 2,
          status: "OK",
          elapsedSeconds: 3600.5,
          correctedSeconds: 3500.25,
          points: 2,
        },
        {
          entryId: E[4],
          sailNumber: "GBR 11",
          boatName: "Eleven",
          rank: null,
          status: "DNS",
          elapsedSeconds: null,
          correctedSeconds: null,
          points: null,
        },
        {
          entryId: E[3],
          sailNumber: "GBR 100",
          boatName: "Centurion",
          rank: null,
          status: "DNF",
          elapsedSeconds: null,
          correctedSeconds: null,
          points: 5,
        },
      ],
    },
    // Fleet B (abandoned, nothing published) is absent.
  ],
};

// The live order of this group ranks E3 first, E1 second, E2 third with other times: none of it shows.
const RACE_2_RESULTS = {
  raceId: RACE_2,
  eventId: EVENT,
  raceNo: 2,
  name: "Race 2",
  startGroups: [
    {
      startGroupId: GROUP_2A,
      name: "Fleet A",
      status: "provisional",
      publishedAtUtc: "2026-04-02T12:00:00.000Z",
      rows: [
        {
          entryId: E[1],
          sailNumber: "GBR 10",
          boatName: "Tenacious",
          rank: 1,
          status: "OK",
          elapsedSeconds: 1800,
          correctedSeconds: 1750.5,
          points: 1,
        },
        {
          entryId: E[2],
          sailNumber: "GBR 9",
          boatName: "Ninefold",
          rank: 2,
          status: "OK",
          elapsedSeconds: 2000,
          correctedSeconds: 1900,
          points: 2,
        },
        {
          entryId: E[3],
          sailNumber: "GBR 100",
          boatName: "Centurion",
          rank: 2,
          status: "OK",
          elapsedSeconds: 2000,
          correctedSeconds: 1900,
          points: 2,
        },
      ],
    },
  ],
};

describe("race results", () => {
  it("gives the official rows of each group with published results, in rank and sail-number order, nulls present", async () => {
    const response = await get(`/races/${RACE_1}/results`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("cache-control")).toBe("private, max-age=30");
    expect(await response.json()).toEqual(RACE_1_RESULTS);
  });

  it("comes from the official results, never from the live order", async () => {
    expect(await (await get(`/races/${RACE_2}/results`)).json()).toEqual(RACE_2_RESULTS);
  });

  it("is served although the event does not share tracking (the live feed is not)", async () => {
    expect((await get(`/races/${RACE_2}/live`)).status).toBe(404);
    expect((await get(`/races/${RACE_2}/results`)).status).toBe(200);
  });

  it("gives an empty list for a race without published results", async () => {
    expect(await (await get(`/races/${RACE_3}/results`)).json()).toEqual({
      raceId: RACE_3,
      eventId: EVENT,
      raceNo: 3,
      name: "Race 3",
      startGroups: [],
    });
  });

  it("serves the co-hosting club, and a 304 for a matching ETag", async () => {
    const response = await get(`/races/${RACE_1}/results`, await tokenFor(api.url, "coHost"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(RACE_1_RESULTS);
    const again = await get(`/races/${RACE_1}/results`, api.token, { "if-none-match": response.headers.get("etag")! });
    expect(again.status).toBe(304);
  });

  it("answers a gRPC call with the same results", async () => {
    const client = grpcClient(api.grpcUrl);
    try {
      const metadata = new grpc.Metadata();
      metadata.set("authorization", `Bearer ${api.token}`);
      const message = await unary(
        client,
        "/racing.v1.ResultsService/GetRaceResults",
        GetRaceResultsRequestSchema,
        GetRaceResultsResponseSchema,
        { raceId: RACE_1 },
        metadata,
      );
      const group = message.raceResults?.startGroups[0];
      expect(group?.status).toBe(ResultStatus.FINAL);
      expect(group?.rows.map((row) => row.entryId)).toEqual([E[2], E[1], E[4], E[3]]);
      expect(group?.rows[3]?.rank).toBeUndefined();
      expect(group?.rows[3]?.points).toBe(5);
    } finally {
      client.close();
    }
  });
});

describe("event results", () => {
  it("gives every race of the event in race order, with only the groups that have published results", async () => {
    const response = await get(`/events/${EVENT}/results`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("private, max-age=30");
    expect(await response.json()).toEqual({
      eventId: EVENT,
      name: "Spring Series",
      races: [
        RACE_1_RESULTS,
        { raceId: RACE_1_RESAIL, eventId: EVENT, raceNo: 1, name: "Race 1 resail", startGroups: [] },
        RACE_2_RESULTS,
        { raceId: RACE_3, eventId: EVENT, raceNo: 3, name: "Race 3", startGroups: [] },
      ],
    });
  });

  it("gives an event without races an empty list", async () => {
    expect(await (await get(`/events/${EMPTY_EVENT}/results`)).json()).toEqual({ eventId: EMPTY_EVENT, name: "Empty", races: [] });
  });

  it("answers the same over Connect", async () => {
    const response = await connectCall(api.url, "racing.v1.ResultsService/GetEventResults", { eventId: EVENT }, bearer(api.token));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { eventResults: { races: Array<{ raceId: string; startGroups: Array<{ status: string }> }> } };
    expect(body.eventResults.races.map((race) => race.raceId)).toEqual([RACE_1, RACE_1_RESAIL, RACE_2, RACE_3]);
    expect(body.eventResults.races[2]!.startGroups[0]!.status).toBe("RESULT_STATUS_PROVISIONAL");
  });
});

describe("visibility and scope", () => {
  async function expectRefused(
    path: string,
    rpc: string,
    body: object,
    clientId: string,
    refusal: { status: number; code: string; connect: string; params?: Record<string, string> },
  ) {
    const clientToken = await tokenFor(api.url, clientId);
    const rest = await get(path, clientToken);
    expect(rest.status).toBe(refusal.status);
    expect(rest.headers.get("content-type")).toBe("application/problem+json");
    expect(await rest.json()).toEqual({
      type: `${TEST_BASE_URL}/docs/errors#${refusal.code}`,
      status: refusal.status,
      code: refusal.code,
      ...(refusal.params ? { params: refusal.params } : {}),
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const error = await connectError(await connectCall(api.url, rpc, body, bearer(clientToken)));
    expect(error).toMatchObject({ code: refusal.connect, reason: refusal.code, metadata: refusal.params ?? {} });
  }
  const eventResults = (eventId: string) =>
    [`/events/${eventId}/results`, "racing.v1.ResultsService/GetEventResults", { eventId }] as const;
  const raceResults = (raceId: string) => [`/races/${raceId}/results`, "racing.v1.ResultsService/GetRaceResults", { raceId }] as const;
  const EVENT_NOT_FOUND = { status: 404, code: "EVENT_NOT_FOUND", connect: "not_found" };
  const RACE_NOT_FOUND = { status: 404, code: "RACE_NOT_FOUND", connect: "not_found" };

  it.each([
    ["an unknown id", uuid("e9999999", 9)],
    ["a malformed id", "not-a-uuid"],
    ["an unpublished event", HIDDEN_EVENTS.unpublished],
    ["a legacy event", HIDDEN_EVENTS.legacy],
    ["another club's event", HIDDEN_EVENTS.otherClub],
  ])("answers event results of %s with EVENT_NOT_FOUND", async (_, eventId) => {
    await expectRefused(...eventResults(eventId), "overlay", EVENT_NOT_FOUND);
  });

  it.each([
    ["an unknown id", uuid("a9999999", 9)],
    ["a malformed id", "not-a-uuid"],
    ["a race of an unpublished event", HIDDEN_RACES.unpublished],
    ["a race of a legacy event", HIDDEN_RACES.legacy],
    ["another club's race", HIDDEN_RACES.otherClub],
  ])("answers race results of %s with RACE_NOT_FOUND", async (_, raceId) => {
    await expectRefused(...raceResults(raceId), "overlay", RACE_NOT_FOUND);
  });

  it("answers a club that neither owns nor co-hosts the event with not found", async () => {
    await expectRefused(...eventResults(EVENT), "other", EVENT_NOT_FOUND);
    await expectRefused(...raceResults(RACE_1), "other", RACE_NOT_FOUND);
  });

  it("answers a token without results:read with API_SCOPE_MISSING", async () => {
    const missing = { status: 403, code: "API_SCOPE_MISSING", connect: "permission_denied", params: { scope: "results:read" } };
    await expectRefused(...eventResults(EVENT), "trackingOnly", missing);
    await expectRefused(...raceResults(RACE_1), "eventsOnly", missing);
  });

  it("serves a token holding only results:read", async () => {
    expect((await get(`/races/${RACE_1}/results`, await tokenFor(api.url, "resultsOnly"))).status).toBe(200);
  });
});
