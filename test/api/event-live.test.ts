// GET /api/v1/events/{eventId}/live and EventService.GetEventLive: the exact shape
// with nulls, race and group order, visibility (EVENT_NOT_FOUND), scope, cache headers.

import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { GetEventLiveRequestSchema, GetEventLiveResponseSchema } from "../../gen/racing/v1/event_pb.js";
import { StartGroupState } from "../../gen/racing/v1/common_pb.js";
import { bearer, connectCall, connectError, tokenFor, useApi } from "../support/api.js";
import {
  EMPTY_EVENT,
  EVENT,
  eventScenario,
  GROUP_1A,
  GROUP_1B,
  GROUP_2A,
  GROUP_3A,
  GROUP_3B,
  HIDDEN_EVENTS,
  RACE_1,
  RACE_1_RESAIL,
  RACE_2,
  RACE_3,
} from "../support/event-scenarios.js";
import { grpcClient, unary } from "../support/grpc.js";
import { uuid } from "../support/race-scenarios.js";
import { TEST_BASE_URL } from "../support/runtime.js";

const GET_EVENT_LIVE = "racing.v1.EventService/GetEventLive";
const api = useApi({ scenario: eventScenario, client: "overlay" });

function live(eventId: string, bearerToken = api.token, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${api.url}/api/v1/events/${eventId}/live`, { headers: { ...bearer(bearerToken), ...headers } });
}

describe("the event live status", () => {
  it("gives the event and its races by race number, ties by id, each with its groups as stored, nulls present", async () => {
    const response = await live(EVENT);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      eventId: EVENT,
      name: "Spring Series",
      startDate: "2026-04-01T00:00:00.000Z",
      endDate: "2026-04-03T00:00:00.000Z",
      trackingShared: false,
      delaySeconds: 90,
      races: [
        {
          raceId: RACE_1,
          raceNo: 1,
          name: "Race 1",
          isLive: false,
          startGroups: [
            {
              startGroupId: GROUP_1A,
              name: "Fleet A",
              state: "Finished",
              startTimeUtc: "2026-04-01T10:00:00.000Z",
              finishTimeUtc: "2026-04-01T11:30:00.000Z",
            },
            { startGroupId: GROUP_1B, name: "Fleet B", state: "Abandoned", startTimeUtc: null, finishTimeUtc: null },
          ],
        },
        { raceId: RACE_1_RESAIL, raceNo: 1, name: "Race 1 resail", isLive: false, startGroups: [] },
        {
          raceId: RACE_2,
          raceNo: 2,
          name: "Race 2",
          isLive: true,
          startGroups: [
            { startGroupId: GROUP_2A, name: "Fleet A", state: "Started", startTimeUtc: "2026-04-02T10:00:00.000Z", finishTimeUtc: null },
          ],
        },
        {
          raceId: RACE_3,
          raceNo: 3,
          name: "Race 3",
          isLive: false,
          startGroups: [
            { startGroupId: GROUP_3A, name: "Fleet A", state: "Scheduled", startTimeUtc: "2026-04-03T10:00:00.000Z", finishTimeUtc: null },
            { startGroupId: GROUP_3B, name: "Fleet B", state: "Postponed", startTimeUtc: null, finishTimeUtc: null },
          ],
        },
      ],
    });
  });

  it("gives an event without dates or races with nulls and an empty list", async () => {
    expect(await (await live(EMPTY_EVENT)).json()).toEqual({
      eventId: EMPTY_EVENT,
      name: "Empty",
      startDate: null,
      endDate: null,
      trackingShared: true,
      delaySeconds: 0,
      races: [],
    });
  });

  it("accepts the id in upper case", async () => {
    const response = await live(EVENT.toUpperCase());
    expect(response.status).toBe(200);
    expect(((await response.json()) as { eventId: string }).eventId).toBe(EVENT);
  });

  it("serves the co-hosting club the same body", async () => {
    const own = await (await live(EVENT)).json();
    const response = await live(EVENT, await tokenFor(api.url, "coHost"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(own);
  });

  it("sends Cache-Control private, max-age=10 and an ETag that answers 304", async () => {
    const response = await live(EVENT);
    expect(response.headers.get("cache-control")).toBe("private, max-age=10");
    const etag = response.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await live(EVENT, api.token, { "if-none-match": etag! });
    expect(again.status).toBe(304);
    expect(again.headers.get("cache-control")).toBe("private, max-age=10");
  });

  it("answers the same message over Connect and gRPC", async () => {
    const response = await connectCall(api.url, GET_EVENT_LIVE, { eventId: EVENT }, bearer(api.token));
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      eventLive: { eventId: string; races: Array<{ raceId: string; startGroups: Array<{ state: string }> }> };
    };
    expect(body.eventLive.eventId).toBe(EVENT);
    expect(body.eventLive.races.map((race) => race.raceId)).toEqual([RACE_1, RACE_1_RESAIL, RACE_2, RACE_3]);
    expect(body.eventLive.races[0]!.startGroups[0]!.state).toBe("START_GROUP_STATE_FINISHED");

    const client = grpcClient(api.grpcUrl);
    try {
      const metadata = new grpc.Metadata();
      metadata.set("authorization", `Bearer ${api.token}`);
      const message = await unary(
        client,
        `/${GET_EVENT_LIVE}`,
        GetEventLiveRequestSchema,
        GetEventLiveResponseSchema,
        { eventId: EVENT },
        metadata,
      );
      expect(message.eventLive?.name).toBe("Spring Series");
      expect(message.eventLive?.races.map((race) => race.raceNo)).toEqual([1, 1, 2, 3]);
      expect(message.eventLive?.races[2]?.startGroups[0]?.state).toBe(StartGroupState.STARTED);
      expect(message.eventLive?.races[2]?.startGroups[0]?.finishTimeUtc).toBeUndefined();
      const refused = await unary(
        client,
        `/${GET_EVENT_LIVE}`,
        GetEventLiveRequestSchema,
        GetEventLiveResponseSchema,
        { eventId: "nope" },
        metadata,
      ).then(
        () => null,
        (error: grpc.ServiceError) => error,
      );
      expect(refused?.code).toBe(grpc.status.NOT_FOUND);
    } finally {
      client.close();
    }
  });
});

describe("visibility and scope", () => {
  async function expectRefused(
    eventId: string,
    clientId: string,
    refusal: { status: number; code: string; connect: string; params?: Record<string, string> },
  ) {
    const clientToken = await tokenFor(api.url, clientId);
    const rest = await live(eventId, clientToken);
    expect(rest.status).toBe(refusal.status);
    expect(rest.headers.get("content-type")).toBe("application/problem+json");
    expect(await rest.json()).toEqual({
      type: `${TEST_BASE_URL}/docs/errors#${refusal.code}`,
      status: refusal.status,
      code: refusal.code,
      ...(refusal.params ? { params: refusal.params } : {}),
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const rpc = await connectError(await connectCall(api.url, GET_EVENT_LIVE, { eventId }, bearer(clientToken)));
    expect(rpc).toMatchObject({ code: refusal.connect, reason: refusal.code, metadata: refusal.params ?? {} });
  }

  it.each([
    ["an unknown id", uuid("e9999999", 9)],
    ["a malformed id", "not-a-uuid"],
    ["an unpublished event", HIDDEN_EVENTS.unpublished],
    ["a legacy event", HIDDEN_EVENTS.legacy],
    ["another club's event", HIDDEN_EVENTS.otherClub],
  ])("answers %s with EVENT_NOT_FOUND over REST and Connect", async (_, eventId) => {
    await expectRefused(eventId, "overlay", { status: 404, code: "EVENT_NOT_FOUND", connect: "not_found" });
  });

  it("answers another club with EVENT_NOT_FOUND for an event it neither owns nor co-hosts", async () => {
    await expectRefused(EVENT, "other", { status: 404, code: "EVENT_NOT_FOUND", connect: "not_found" });
  });

  it("answers a token without events:read with API_SCOPE_MISSING", async () => {
    await expectRefused(EVENT, "trackingOnly", {
      status: 403,
      code: "API_SCOPE_MISSING",
      connect: "permission_denied",
      params: { scope: "events:read" },
    });
    await expectRefused(EVENT, "resultsOnly", {
      status: 403,
      code: "API_SCOPE_MISSING",
      connect: "permission_denied",
      params: { scope: "events:read" },
    });
  });

  it("answers a call without a token with API_TOKEN_MISSING", async () => {
    const response = await fetch(`${api.url}/api/v1/events/${EVENT}/live`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: "API_TOKEN_MISSING" });
  });
});
