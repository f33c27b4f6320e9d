// GET /api/v1/races/{raceId}/analytics, /analytics/legs and /analytics/manoeuvres, and
// RaceAnalyticsService over Connect: who may read which race, the start group and
// window parameters, what the answers may hold (the delay, the capture window, the
// privacy floor), and the cache headers. On the hand-written race of the live tests,
// whose values are all named (race-scenarios.ts); the simulated race is
// analytics-simulated.test.ts.

import { Code, ConnectError } from "@connectrpc/connect";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { RaceAnalyticsService } from "../../gen/racing/v1/race_analytics_pb.js";
import { bearer } from "../support/api.js";
import { useInProcessApi } from "../support/in-process.js";
import {
  E,
  FINISH_E2,
  GROUP_A,
  GROUP_B,
  GROUP_C,
  GROUP_D,
  GUN_A,
  HIDDEN_RACES,
  iso,
  liveScenario,
  MINUTE,
  NOW,
  PRIVATE,
  RACE,
  RACE_NO_READING,
  RACE_NOT_LIVE,
  uuid,
} from "../support/race-scenarios.js";

const api = useInProcessApi({
  scenario: () => {
    const scenario = liveScenario();
    // This file calls far more often than the tracking bucket's default 120 a minute.
    for (const club of scenario.clubs) club.trackingRateLimitPerMinute = 100_000;
    return scenario;
  },
  client: "overlay",
});

type Json = Record<string, unknown>;
const ENDPOINTS = ["analytics", "analytics/legs", "analytics/manoeuvres"] as const;
type Endpoint = (typeof ENDPOINTS)[number];

/** The query each endpoint needs besides the group: the manoeuvres a window. */
function path(endpoint: Endpoint, raceId: string, query: Record<string, string> = {}): string {
  const params = new URLSearchParams(endpoint === "analytics/manoeuvres" ? { since: iso(GUN_A), ...query } : query);
  return `/api/v1/races/${raceId}/${endpoint}?${params}`;
}

async function get(url: string, headers: Record<string, string> = bearer(api.token)): Promise<Response> {
  return api.fetch(url, { headers });
}

async function problem(response: Response): Promise<Json> {
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(response.headers.get("cache-control")).toBe("no-store");
  return (await response.json()) as Json;
}

/** What a Connect call of `method` refuses with: its code, reason and metadata. */
async function refusal(call: Promise<unknown>): Promise<{ code: Code; reason: string | undefined; metadata: Json }> {
  const error = ConnectError.from(await call.then(() => new Error("answered")).catch((thrown: unknown) => thrown));
  const info = error.findDetails(ErrorInfoSchema)[0];
  return { code: error.code, reason: info?.reason, metadata: { ...info?.metadata } };
}

function rpc(token = api.token) {
  const client = api.client(RaceAnalyticsService);
  const options = { headers: bearer(token) };
  return {
    analytics: (raceId: string, startGroupId?: string) => client.getRaceAnalytics({ raceId, startGroupId }, options),
    legs: (raceId: string, startGroupId?: string) => client.getLegs({ raceId, startGroupId }, options),
    manoeuvres: (raceId: string, startGroupId?: string, sinceMs: number | null = GUN_A, untilMs?: number) =>
      client.listManoeuvres(
        {
          raceId,
          startGroupId,
          since: sinceMs === null ? undefined : timestampFromMs(sinceMs),
          until: untilMs === undefined ? undefined : timestampFromMs(untilMs),
        },
        options,
      ),
  };
}
const RPCS = ["analytics", "legs", "manoeuvres"] as const;

describe("who may read a race's analytics", () => {
  it.each(ENDPOINTS)("%s: RACE_NOT_FOUND for an unknown, malformed, other club's, unpublished or legacy race", async (endpoint) => {
    for (const raceId of [uuid("a9000000", 1), "not-a-uuid", HIDDEN_RACES.otherClub, HIDDEN_RACES.unpublished, HIDDEN_RACES.legacy]) {
      const response = await get(path(endpoint, raceId));
      expect(response.status, raceId).toBe(404);
      expect(await problem(response)).toMatchObject({ status: 404, code: "RACE_NOT_FOUND" });
    }
  });

  it.each(ENDPOINTS)("%s: TRACKING_NOT_SHARED for a visible race of an event that does not share tracking", async (endpoint) => {
    const response = await get(path(endpoint, HIDDEN_RACES.notShared));
    expect(response.status).toBe(404);
    expect(await problem(response)).toMatchObject({ code: "TRACKING_NOT_SHARED" });
  });

  it.each(ENDPOINTS)("%s: a co-host's client may read it; 401 without or with a bad token; 403 without tracking:read", async (endpoint) => {
    const url = path(endpoint, RACE, { startGroupId: GROUP_A });
    expect((await get(url, bearer(await api.tokenFor("coHost")))).status).toBe(200);
    expect(await problem(await get(url, {}))).toMatchObject({ status: 401, code: "API_TOKEN_MISSING" });
    expect(await problem(await get(url, bearer("not-a-token")))).toMatchObject({ status: 401, code: "API_TOKEN_INVALID" });
    expect(await problem(await get(url, bearer(await api.tokenFor("eventsOnly"))))).toMatchObject({
      status: 403,
      code: "API_SCOPE_MISSING",
      params: { scope: "tracking:read" },
    });
  });

  it.each(ENDPOINTS)("%s: counts against the tracking bucket", async (endpoint) => {
    const response = await get(path(endpoint, RACE, { startGroupId: GROUP_A }));
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-policy")).toBe('"tracking";q=100000;w=60');
  });

  it.each(RPCS)("over Connect, %s: the same refusals with the RPC codes", async (name) => {
    const call = rpc()[name];
    for (const raceId of [uuid("a9000000", 1), "not-a-uuid", HIDDEN_RACES.otherClub, HIDDEN_RACES.unpublished]) {
      expect(await refusal(call(raceId, GROUP_A)), raceId).toMatchObject({ code: Code.NotFound, reason: "RACE_NOT_FOUND" });
    }
    expect(await refusal(call(HIDDEN_RACES.notShared, GROUP_A))).toMatchObject({ code: Code.NotFound, reason: "TRACKING_NOT_SHARED" });
    expect(await refusal(rpc("not-a-token")[name](RACE, GROUP_A))).toMatchObject({
      code: Code.Unauthenticated,
      reason: "API_TOKEN_INVALID",
    });
    expect(await refusal(rpc(await api.tokenFor("eventsOnly"))[name](RACE, GROUP_A))).toMatchObject({
      code: Code.PermissionDenied,
      reason: "API_SCOPE_MISSING",
    });
  });
});

describe("the start group", () => {
  it.each(ENDPOINTS)("%s: required on a two-group race, API_PARAM_INVALID when missing or malformed", async (endpoint) => {
    for (const query of [{} as Record<string, string>, { startGroupId: "nope" }, { startGroupId: `${GROUP_A}x` }]) {
      const response = await get(path(endpoint, RACE, query));
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(await problem(response)).toMatchObject({ code: "API_PARAM_INVALID", params: { name: "startGroupId" } });
    }
  });

  it.each(ENDPOINTS)("%s: START_GROUP_NOT_FOUND for a well-formed group of another race", async (endpoint) => {
    for (const startGroupId of [GROUP_C, uuid("b9000000", 1)]) {
      expect(await problem(await get(path(endpoint, RACE, { startGroupId })))).toMatchObject({
        status: 404,
        code: "START_GROUP_NOT_FOUND",
      });
    }
  });

  it.each(ENDPOINTS)(
    "%s: may be left out on a one-group race, and is named in the answer; upper case is the same group",
    async (endpoint) => {
      const left = (await (await get(path(endpoint, RACE_NO_READING))).json()) as Json;
      expect(left.startGroupId).toBe(GROUP_D);
      const upper = (await (await get(path(endpoint, RACE_NO_READING, { startGroupId: GROUP_D.toUpperCase() }))).json()) as Json;
      expect(upper.startGroupId).toBe(GROUP_D);
    },
  );

  it("a malformed group is refused before the race is looked up, as on the track", async () => {
    expect(await problem(await get(path("analytics", "not-a-uuid", { startGroupId: "nope" })))).toMatchObject({
      code: "API_PARAM_INVALID",
    });
  });

  it.each(RPCS)("over Connect, %s: the same rules", async (name) => {
    const call = rpc()[name];
    expect(await refusal(call(RACE))).toMatchObject({ code: Code.InvalidArgument, metadata: { name: "startGroupId" } });
    expect(await refusal(call(RACE, "nope"))).toMatchObject({ code: Code.InvalidArgument, reason: "API_PARAM_INVALID" });
    expect(await refusal(call(RACE, GROUP_C))).toMatchObject({ code: Code.NotFound, reason: "START_GROUP_NOT_FOUND" });
    await expect(call(RACE_NO_READING)).resolves.toBeDefined();
  });
});

describe("the manoeuvres window", () => {
  const manoeuvres = (query: Record<string, string>) =>
    get(`/api/v1/races/${RACE}/analytics/manoeuvres?${new URLSearchParams({ startGroupId: GROUP_A, ...query })}`);

  it.each([
    ["since missing", {}, "since"],
    ["since not a date-time", { since: "yesterday" }, "since"],
    ["since a calendar overflow", { since: "2026-02-30T10:00:00Z" }, "since"],
    ["since at the cut-off or later", { since: iso(Date.now() + MINUTE) }, "since"],
    ["until equal to since", { since: iso(GUN_A), until: iso(GUN_A) }, "until"],
    ["until before since", { since: iso(GUN_A), until: iso(GUN_A - 1000) }, "until"],
    [
      "until within the millisecond of since",
      { since: "2026-11-21T05:00:00.000000100Z", until: "2026-11-21T05:00:00.000000900Z" },
      "until",
    ],
  ])("refuses %s with API_PARAM_INVALID naming it", async (_, query, name) => {
    const response = await manoeuvres(query);
    expect(response.status).toBe(400);
    expect(await problem(response)).toMatchObject({ code: "API_PARAM_INVALID", params: { name } });
  });

  it("cuts until at since + 10 minutes and at dataAsOf, and pages on with nextSince = until", async () => {
    const long = (await (await manoeuvres({ since: iso(GUN_A), until: iso(GUN_A + 25 * MINUTE) })).json()) as Json;
    expect(long).toMatchObject({
      since: iso(GUN_A),
      until: iso(GUN_A + 10 * MINUTE),
      nextSince: iso(GUN_A + 10 * MINUTE),
      delaySeconds: 0,
    });
    const response = await manoeuvres({ since: iso(NOW - 2 * MINUTE) });
    const near = (await response.json()) as Json;
    expect(near.until).toBe(response.headers.get("x-data-as-of"));
    expect(near.nextSince).toBe(near.until);
  });

  it("over Connect: since required, until after since", async () => {
    expect(await refusal(rpc().manoeuvres(RACE, GROUP_A, null))).toMatchObject({ code: Code.InvalidArgument, metadata: { name: "since" } });
    expect(await refusal(rpc().manoeuvres(RACE, GROUP_A, GUN_A, GUN_A - 1))).toMatchObject({
      code: Code.InvalidArgument,
      metadata: { name: "until" },
    });
    expect(await refusal(rpc().manoeuvres(RACE, GROUP_A, Date.now() + MINUTE))).toMatchObject({ metadata: { name: "since" } });
  });
});

describe("what the analytics hold", () => {
  const analytics = async (raceId: string, startGroupId?: string) => {
    const response = await get(path("analytics", raceId, startGroupId === undefined ? {} : { startGroupId }));
    expect(response.status).toBe(200);
    return { response, body: (await response.json()) as Json };
  };

  it("boats with a fix in their capture window, approved and with a phone; the finisher by its phone finish first", async () => {
    const { body } = await analytics(RACE, GROUP_A);
    const boats = body.boats as Json[];
    // E3 reported only before gun - 5 min, E7 only after now; E4 is not approved, E5 has no phone.
    expect(boats.map((boat) => boat.entryId).sort()).toEqual([E[1], E[2], E[6]].sort());
    expect(boats.map((boat) => boat.progressRank)).toEqual([1, 2, 3]);
    expect(boats[0]).toMatchObject({
      entryId: E[2],
      finishedAtUtc: iso(FINISH_E2),
      legIndex: null,
      stale: false,
      distanceBehindLeaderM: 0,
    });
    // Its fix after its finish is outside its window: nothing later than the finish counts.
    expect(Date.parse(boats[0]!.fixTimeUtc as string)).toBeLessThanOrEqual(FINISH_E2);
  });

  it("nothing newer than dataAsOf: the wind before it, the course version applied by then, fixes up to it", async () => {
    const { response, body } = await analytics(RACE, GROUP_A);
    const asOf = Date.parse(body.dataAsOf as string);
    expect(response.headers.get("x-data-as-of")).toBe(body.dataAsOf);
    expect(asOf).toBeGreaterThanOrEqual(NOW);
    // The reading at NOW + 5 min (twd 90) is not shown; the one at NOW - 5 min is.
    expect(body.wind).toEqual({ twd: 5, tws: null, measuredAtUtc: iso(NOW - 5 * MINUTE) });
    // Version 2 (start, windward, gate, finish), not the future version 3: legs against TWD 5.
    const legs = body.legs as Array<{ legIndex: number; kind: string; bearingDeg: number; lengthM: number }>;
    expect(legs.map((leg) => [leg.legIndex, leg.kind])).toEqual([
      [1, "upwind"],
      [2, "downwind"],
      [3, "upwind"],
    ]);
    // Start line middle (50.79, -1.30) to W (50.81, -1.30): due north, 0.02 degrees of latitude.
    expect(legs[0]!.bearingDeg).toBeCloseTo(0, 3);
    expect(legs[1]!.bearingDeg).toBeCloseTo(180, 3);
    expect(legs[0]!.lengthM).toBeCloseTo(0.02 * 111_195, -1);
    expect(legs[1]!.lengthM).toBeCloseTo(0.025 * 111_195, -1);
    for (const boat of body.boats as Json[]) {
      if (boat.fixTimeUtc !== null) expect(Date.parse(boat.fixTimeUtc as string)).toBeLessThanOrEqual(asOf);
    }
  });

  it("a group with no gun has no capture window and no boats; a race whose only reading is in the future has no wind", async () => {
    expect((await analytics(RACE, GROUP_B)).body).toMatchObject({ startGroupId: GROUP_B, boats: [], wind: null, legs: [] });
    expect((await analytics(RACE_NO_READING)).body).toMatchObject({ startGroupId: GROUP_D, wind: null });
  });

  it("holds the contract's fields and nothing else: no accuracy, no device data, no internal ids", async () => {
    const fields = {
      analytics: ["raceId", "eventId", "startGroupId", "delaySeconds", "dataAsOf", "wind", "legs", "boats"],
      boat: [
        "entryId",
        "sailNumber",
        "boatName",
        "progressRank",
        "legIndex",
        "legKind",
        "distanceToNextMarkM",
        "distanceBehindLeaderM",
        "timeBehindLeaderSeconds",
        "sogKn",
        "cogDeg",
        "vmgKn",
        "twaDeg",
        "startedAtUtc",
        "finishedAtUtc",
        "fixTimeUtc",
        "stale",
        "ignoredFixes",
        "lastManoeuvre",
      ],
      legs: ["raceId", "startGroupId", "dataAsOf", "delaySeconds", "boats"],
      legsBoat: ["entryId", "sailNumber", "boatName", "legs"],
      page: ["raceId", "startGroupId", "since", "until", "nextSince", "delaySeconds", "manoeuvres", "passings"],
    };
    for (const raceId of [RACE, RACE_NOT_LIVE]) {
      const startGroupId = raceId === RACE ? GROUP_A : GROUP_C;
      const texts: string[] = [];
      for (const endpoint of ENDPOINTS) {
        const since = raceId === RACE ? GUN_A : NOW - 4 * 60 * MINUTE;
        const response = await get(
          path(endpoint, raceId, { startGroupId, ...(endpoint === "analytics/manoeuvres" ? { since: iso(since) } : {}) }),
        );
        texts.push(await response.text());
      }
      const [state, legs, page] = texts.map((text) => JSON.parse(text) as Json);
      expect(Object.keys(state!)).toEqual(fields.analytics);
      for (const boat of state!.boats as Json[]) expect(Object.keys(boat)).toEqual(fields.boat);
      expect(Object.keys(legs!)).toEqual(fields.legs);
      for (const boat of legs!.boats as Json[]) expect(Object.keys(boat)).toEqual(fields.legsBoat);
      expect(Object.keys(page!)).toEqual(fields.page);
      for (const text of texts) {
        for (const secret of [
          "accuracy",
          PRIVATE.userId,
          PRIVATE.deviceId,
          PRIVATE.phoneModel,
          String(PRIVATE.accuracyM),
          "userId",
          "deviceId",
        ]) {
          expect(text).not.toContain(secret);
        }
        // Every id is a UUID: the database's own ids never leave it.
        for (const [, id] of text.matchAll(/"(?:\w*Id)":("?[^",}]*"?)/g)) expect(id).toMatch(/^"[0-9a-f-]{36}"$/);
      }
    }
  });
});

describe("caching", () => {
  it.each(ENDPOINTS)("%s: ETag, 304 on If-None-Match within the shared 2 s, X-Data-As-Of and private, max-age=2", async (endpoint) => {
    // Near the cut-off: a manoeuvres page reaching to now is not settled.
    const url = path(endpoint, RACE, {
      startGroupId: GROUP_A,
      ...(endpoint === "analytics/manoeuvres" ? { since: iso(NOW - 3 * MINUTE) } : {}),
    });
    for (let attempt = 1; ; attempt++) {
      const first = await get(url);
      const again = await get(url, { ...bearer(api.token), "if-none-match": first.headers.get("etag")! });
      // The 2 s may run out between the two calls on a busy machine: then the next read differs.
      if (again.status === 200 && attempt < 5) continue;
      expect(first.headers.get("cache-control")).toBe("private, max-age=2");
      expect(first.headers.get("x-data-as-of")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
      return;
    }
  });

  it("a manoeuvres window of a group with a gun, long settled, is immutable and the same on repeat", async () => {
    const url = path("analytics/manoeuvres", RACE_NOT_LIVE, { since: iso(NOW - 4 * 60 * MINUTE) });
    const first = await get(url);
    expect(first.headers.get("cache-control")).toBe("private, max-age=3600, immutable");
    const again = await get(url);
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(await again.text()).toBe(await first.text());
  });

  it("a window of a group with no gun is never immutable: setting the gun could fill it", async () => {
    const response = await get(path("analytics/manoeuvres", RACE, { startGroupId: GROUP_B, since: iso(NOW - 3 * 60 * MINUTE) }));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("private, max-age=2");
  });

  it("over Connect the headers are the same", async () => {
    const headers: Array<Headers | undefined> = [];
    const client = api.client(RaceAnalyticsService);
    await client.getRaceAnalytics(
      { raceId: RACE, startGroupId: GROUP_A },
      { headers: bearer(api.token), onHeader: (header) => headers.push(header) },
    );
    expect(headers[0]?.get("cache-control")).toBe("private, max-age=2");
    expect(headers[0]?.get("x-data-as-of")).toMatch(/Z$/);
  });
});

describe("methods", () => {
  it.each(ENDPOINTS)("%s: HEAD answers GET's headers without a body", async (endpoint) => {
    const url = path(endpoint, RACE, {
      startGroupId: GROUP_A,
      ...(endpoint === "analytics/manoeuvres" ? { since: iso(NOW - 3 * MINUTE) } : {}),
    });
    const head = await api.fetch(url, { method: "HEAD", headers: bearer(api.token) });
    expect(head.status).toBe(200);
    expect(head.headers.get("cache-control")).toBe("private, max-age=2");
    expect(head.headers.get("x-data-as-of")).not.toBeNull();
    expect(await head.text()).toBe("");
  });

  it.each(ENDPOINTS)("%s: another method is answered as on the rest of the API: no endpoint at this path and method", async (endpoint) => {
    const url = path(endpoint, RACE, { startGroupId: GROUP_A });
    const post = await api.fetch(url, { method: "POST", headers: bearer(api.token), body: "" });
    const onLive = await api.fetch(`/api/v1/races/${RACE}/live`, { method: "POST", headers: bearer(api.token), body: "" });
    expect(post.status).toBe(onLive.status);
    expect(await problem(post)).toMatchObject({ status: 404, code: "API_ROUTE_NOT_FOUND" });
    // OPTIONS names the methods there are.
    const options = await api.fetch(url, { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe((await api.fetch(`/api/v1/races/${RACE}/live`, { method: "OPTIONS" })).headers.get("allow"));
  });
});
