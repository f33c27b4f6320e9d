// GET /api/v1/races/{raceId}/track and TrackService.GetTrackPage: parameters and their
// errors, visibility, the window's cuts, which boats and fixes a page holds, and the
// same rules over Connect and real gRPC.

import { toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetTrackPageResponseSchema } from "../../gen/racing/v1/track_pb.js";
import type * as grpc from "@grpc/grpc-js";
import { importScenario } from "../../src/scenario/import.js";
import type { Track } from "../../src/domain/scenario.js";
import { useFreshDatabase } from "../support/database.js";
import { grpcClient } from "../support/grpc.js";
import { bearer, connectCall, connectError, startApi, tokenFor, type Api } from "../support/api.js";
import {
  ACCURACY_M,
  DELAY_SECONDS,
  FINISH,
  GUN,
  grpcTrackPage,
  iso,
  MINUTE,
  NOW,
  FUTURE_MS,
  SINGLE_GUN,
  TRACK_IDS as IDS,
  trackQuery,
  trackScenario,
  type TrackBoatJson,
  type TrackPageJson,
} from "../support/track-scenarios.js";

const db = useFreshDatabase();
const scenario = trackScenario();
let api: Api;
let token: string;

beforeAll(async () => {
  await importScenario(db.pool, scenario);
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
});
afterAll(() => api?.close());

type Params = Record<string, string | number | undefined>;

async function get(params: Params, raceId: string = IDS.race, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${api.url}/api/v1/races/${raceId}/track${trackQuery({ startGroupId: IDS.group, ...params })}`, {
    headers: { ...bearer(token), ...headers },
  });
}

async function page(params: Params, raceId: string = IDS.race): Promise<{ body: TrackPageJson; response: Response }> {
  const response = await get(params, raceId);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { body: JSON.parse(text) as TrackPageJson, response };
}

async function refusal(
  params: Params,
  raceId: string = IDS.race,
): Promise<{ status: number; code: string; params?: Record<string, string> }> {
  const response = await get(params, raceId);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const body = (await response.json()) as { status: number; code: string; params?: Record<string, string> };
  expect(body.status).toBe(response.status);
  return { status: response.status, code: body.code, ...(body.params ? { params: body.params } : {}) };
}

const paramInvalid = (name: string) => ({ status: 400, code: "API_PARAM_INVALID", params: { name } });

/** The scenario's stored track of an entry in the two-group race's first group. */
function stored(entryId: string): Track {
  const group = scenario.events[0]!.races[0]!.startGroups[0]!;
  return group.tracks!.find((t) => t.entryId === entryId)!;
}

/** A stored track's fixes in [fromMs, untilMs) as the page's arrays. */
function expected(entryId: string, fromMs: number, untilMs: number): Omit<TrackBoatJson, "entryId" | "sailNumber" | "boatName"> {
  const track = stored(entryId);
  const idx = track.t.flatMap((t, i) => (t >= fromMs && t < untilMs ? [i] : []));
  return {
    t: idx.map((i) => track.t[i]!),
    lat: idx.map((i) => track.lat[i]!),
    lon: idx.map((i) => track.lon[i]!),
    sogKn: idx.map((i) => track.sogKn?.[i] ?? null),
    cogDeg: idx.map((i) => track.cogDeg?.[i] ?? null),
  };
}

const sailNumbers = (body: TrackPageJson) => body.boats.map((boat) => boat.sailNumber);
const entryIds = (body: TrackPageJson) => body.boats.map((boat) => boat.entryId);

describe("since and until", () => {
  it.each([
    ["missing", undefined],
    ["an impossible month", "2026-13-01T00:00:00Z"],
    ["a word", "yesterday"],
    ["empty", ""],
    ["without a zone", "2026-11-21T10:00:00"],
    ["with another zone", "2026-11-21T10:00:00+01:00"],
    ["a date only", "2026-11-21"],
    ["without seconds", "2026-11-21T10:00Z"],
    ["an impossible day", "2026-02-30T10:00:00Z"],
    ["hour 24", "2026-11-21T24:00:00Z"],
    ["a leap second", "2026-12-31T23:59:60Z"],
    ["year 0", "0000-01-01T00:00:00Z"],
    ["ten fraction digits", "2026-11-21T05:00:00.0000000005Z"],
    ["a number", "1795000000000"],
  ])("refuses since %s with API_PARAM_INVALID naming since", async (_, since) => {
    expect(await refusal({ since })).toEqual(paramInvalid("since"));
  });

  it.each([
    ["an impossible month", "2026-13-01T00:00:00Z"],
    ["a word", "yesterday"],
    ["empty", ""],
  ])("refuses until %s with API_PARAM_INVALID naming until", async (_, until) => {
    expect(await refusal({ since: GUN, until })).toEqual(paramInvalid("until"));
  });

  it("refuses an until equal to since or before it", async () => {
    expect(await refusal({ since: GUN, until: GUN })).toEqual(paramInvalid("until"));
    expect(await refusal({ since: GUN, until: GUN - 1 })).toEqual(paramInvalid("until"));
    expect(await refusal({ since: GUN, until: GUN - 60 * MINUTE })).toEqual(paramInvalid("until"));
  });

  it("refuses a since at or after the delayed cut-off (now minus 120 s here)", async () => {
    expect(await refusal({ since: Date.now() - DELAY_SECONDS * 1000 + 10_000 })).toEqual(paramInvalid("since"));
    expect(await refusal({ since: Date.now() })).toEqual(paramInvalid("since"));
    expect(await refusal({ since: Date.now() + 24 * 60 * MINUTE })).toEqual(paramInvalid("since"));
    // Just before the cut-off is a (short) window.
    const { body, response } = await page({ since: Date.now() - DELAY_SECONDS * 1000 - 10_000 });
    expect(Date.parse(body.until)).toBe(Date.parse(response.headers.get("x-data-as-of")!));
  });

  it("refuses repeated parameters", async () => {
    const url = (query: string) => fetch(`${api.url}/api/v1/races/${IDS.race}/track?${query}`, { headers: bearer(token) });
    const since = encodeURIComponent(iso(GUN));
    expect((await (await url(`startGroupId=${IDS.group}&since=${since}&since=${since}`)).json()) as object).toMatchObject(
      paramInvalid("since"),
    );
    expect((await (await url(`startGroupId=${IDS.group}&since=${since}&until=${since}&until=${since}`)).json()) as object).toMatchObject(
      paramInvalid("until"),
    );
    expect((await (await url(`startGroupId=${IDS.group}&startGroupId=${IDS.group}&since=${since}`)).json()) as object).toMatchObject(
      paramInvalid("startGroupId"),
    );
  });

  it("accepts ISO 8601 UTC with 0-9 fraction digits, lower-case t and z, or a zero offset, and echoes since in the answer's own form", async () => {
    const at = iso(GUN).slice(0, 19);
    for (const [since, ms] of [
      [`${at}Z`, GUN],
      [`${at}.000Z`, GUN],
      [`${at}.250000Z`, GUN + 250],
      [`${at}.25Z`, GUN + 250],
      [`${at}.123456Z`, GUN + 124],
      [`${at}.123456789Z`, GUN + 124],
      [`${at}.000000001+00:00`, GUN + 1],
      [`${at.replace("T", "t")}z`, GUN],
      [`${at}.000+00:00`, GUN],
      [`${at}-00:00`, GUN],
    ] as const) {
      const { body } = await page({ since });
      expect(body.since).toBe(iso(ms));
      expect(body.nextSince).toBe(iso(ms + 10 * MINUTE));
    }
  });

  it("rounds a finer since and until up to the millisecond, which selects exactly the fixes the finer bounds select", async () => {
    const t = stored(IDS.steady).t;
    const at = t.findIndex((ms) => ms >= GUN + MINUTE);
    const [first, last] = [t[at]!, t[at + 60]!];
    // Half a millisecond before a fix takes it; a nanosecond after it does not. The same for until, exclusive.
    const fine = (ms: number, digits: string) => iso(ms).replace("Z", `${digits}Z`);
    const { body } = await page({ since: fine(first - 1, "5"), until: fine(last, "000001") });
    const steady = body.boats.find((boat) => boat.entryId === IDS.steady)!;
    expect([steady.t[0], steady.t.at(-1), body.since, body.until]).toEqual([first, last, iso(first), iso(last + 1)]);
    const after = (await page({ since: fine(first, "000001"), until: fine(last - 1, "9") })).body;
    const later = after.boats.find((boat) => boat.entryId === IDS.steady)!;
    expect([later.t[0], later.t.at(-1)]).toEqual([t[at + 1], t[at + 59]]);
    // Within one millisecond there is no whole millisecond to serve: until is not after since.
    expect(await refusal({ since: fine(first, "1"), until: fine(first, "9") })).toEqual(paramInvalid("until"));
  });

  it("defaults until to since + 10 minutes and cuts a longer one to it silently", async () => {
    const since = GUN + 30 * MINUTE;
    expect((await page({ since })).body).toMatchObject({
      since: iso(since),
      until: iso(since + 10 * MINUTE),
      nextSince: iso(since + 10 * MINUTE),
    });
    expect((await page({ since, until: since + 60 * MINUTE })).body).toMatchObject({ since: iso(since), until: iso(since + 10 * MINUTE) });
    expect((await page({ since, until: since + 3 * MINUTE })).body).toMatchObject({
      since: iso(since),
      until: iso(since + 3 * MINUTE),
      nextSince: iso(since + 3 * MINUTE),
    });
  });

  it("cuts until silently at now minus the delay, hiding newer fixes", async () => {
    const before = Date.now();
    const { body, response } = await page({ since: before - DELAY_SECONDS * 1000 - 4 * MINUTE });
    const after = Date.now();
    const cutoff = Date.parse(response.headers.get("x-data-as-of")!);
    expect(cutoff).toBeGreaterThanOrEqual(before - DELAY_SECONDS * 1000);
    expect(cutoff).toBeLessThanOrEqual(after - DELAY_SECONDS * 1000);
    expect(body.until).toBe(iso(cutoff));
    expect(body.nextSince).toBe(body.until);
    expect(response.headers.get("cache-control")).toBe("private, max-age=2");
    // The steady boat reports every second up to now + 5 min: its last fix served is the newest before the cut.
    const steady = body.boats.find((boat) => boat.entryId === IDS.steady)!;
    expect(steady.t.at(-1)).toBe(
      stored(IDS.steady)
        .t.filter((t) => t < cutoff)
        .at(-1),
    );
    expect(stored(IDS.steady).t.at(-1)).toBeGreaterThan(NOW + FUTURE_MS - 2000);
    for (const boat of body.boats) expect(Math.max(...boat.t)).toBeLessThan(cutoff);
  });
});

describe("startGroupId", () => {
  it.each([["not-a-uuid"], [""], ["76000000-0000-4000-8000-00000000000"], ["76000000-0000-4000-8000-0000000000011"]])(
    "refuses the malformed %j with API_PARAM_INVALID",
    async (startGroupId) => {
      expect(await refusal({ startGroupId, since: GUN })).toEqual(paramInvalid("startGroupId"));
    },
  );

  it("is required on a race with more than one start group", async () => {
    expect(await refusal({ startGroupId: undefined, since: GUN })).toEqual(paramInvalid("startGroupId"));
  });

  it("may be left out on a single-group race, and the answer names the group", async () => {
    const { body } = await page({ startGroupId: undefined, since: SINGLE_GUN }, IDS.singleGroupRace);
    expect(body).toMatchObject({ raceId: IDS.singleGroupRace, startGroupId: IDS.singleGroup });
    expect(entryIds(body)).toEqual([IDS.single]);
    expect((await page({ startGroupId: IDS.singleGroup, since: SINGLE_GUN }, IDS.singleGroupRace)).body).toEqual(body);
  });

  it("answers START_GROUP_NOT_FOUND for a well-formed id that is not a group of this race", async () => {
    const notFound = { status: 404, code: "START_GROUP_NOT_FOUND" };
    expect(await refusal({ startGroupId: IDS.singleGroup, since: GUN })).toEqual(notFound);
    expect(await refusal({ startGroupId: IDS.otherClubGroup, since: GUN })).toEqual(notFound);
    expect(await refusal({ startGroupId: "76000000-0000-4000-8000-0000000000ff", since: GUN })).toEqual(notFound);
    expect(await refusal({ startGroupId: IDS.group, since: GUN }, IDS.singleGroupRace)).toEqual(notFound);
  });

  it("matches ids case-insensitively and answers them in lower case", async () => {
    const { body } = await page({ startGroupId: IDS.group.toUpperCase(), since: GUN }, IDS.race.toUpperCase());
    expect(body).toMatchObject({ raceId: IDS.race, startGroupId: IDS.group });
  });
});

describe("races", () => {
  it("answers RACE_NOT_FOUND for an unknown, malformed or another club's race", async () => {
    const notFound = { status: 404, code: "RACE_NOT_FOUND" };
    expect(await refusal({ since: GUN }, "7a000000-0000-4000-8000-0000000000ff")).toEqual(notFound);
    expect(await refusal({ since: GUN }, "not-a-race")).toEqual(notFound);
    expect(await refusal({ startGroupId: IDS.otherClubGroup, since: GUN }, IDS.otherClubRace)).toEqual(notFound);
  });

  it("serves another club's race to that club", async () => {
    const other = await tokenFor(api.url, "other");
    const response = await fetch(`${api.url}/api/v1/races/${IDS.otherClubRace}/track${trackQuery({ since: GUN })}`, {
      headers: bearer(other),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as TrackPageJson).boats.map((b) => b.entryId)).toEqual([IDS.otherClubBoat]);
  });

  it("answers TRACKING_NOT_SHARED for an event that does not share tracking", async () => {
    expect(await refusal({ startGroupId: undefined, since: GUN }, IDS.unsharedRace)).toEqual({ status: 404, code: "TRACKING_NOT_SHARED" });
  });

  it("checks the parameters that need no race first, then the race, then the rest", async () => {
    expect(await refusal({ since: "yesterday" }, "7a000000-0000-4000-8000-0000000000ff")).toEqual(paramInvalid("since"));
    expect(await refusal({ since: undefined }, IDS.unsharedRace)).toEqual(paramInvalid("since"));
    expect(await refusal({ startGroupId: undefined, since: GUN }, "7a000000-0000-4000-8000-0000000000ff")).toEqual({
      status: 404,
      code: "RACE_NOT_FOUND",
    });
    expect(await refusal({ startGroupId: IDS.group, since: Date.now() }, IDS.unsharedRace)).toEqual({
      status: 404,
      code: "TRACKING_NOT_SHARED",
    });
    expect(await refusal({ startGroupId: IDS.singleGroup, since: Date.now() })).toEqual({ status: 404, code: "START_GROUP_NOT_FOUND" });
  });
});

describe("the page", () => {
  it("is exactly the spec's JSON: fields, natural sail-number order, aligned arrays, null for unreported speed and course", async () => {
    const since = GUN + 2000;
    const until = GUN + 7000;
    const response = await get({ since, until });
    const text = await response.text();
    const body = JSON.parse(text) as TrackPageJson;
    expect(body).toEqual({
      raceId: IDS.race,
      startGroupId: IDS.group,
      since: iso(since),
      until: iso(until),
      nextSince: iso(until),
      delaySeconds: DELAY_SECONDS,
      boats: [
        { entryId: IDS.finisher, sailNumber: "GBR 9", boatName: "Finisher", ...expected(IDS.finisher, since, until) },
        { entryId: IDS.steady, sailNumber: "GBR 10", boatName: "Steady", ...expected(IDS.steady, since, until) },
        { entryId: IDS.bare, sailNumber: "IRL 2", boatName: "Bare", ...expected(IDS.bare, since, until) },
      ],
    });
    const steady = body.boats[1]!;
    expect(steady.t).toEqual([2, 3, 4, 5, 6].map((s) => GUN + s * 1000));
    expect(steady.sogKn.map((v) => v === null)).toEqual([false, true, false, true, false]);
    expect(steady.cogDeg.map((v) => v === null)).toEqual([false, false, true, true, false]);
    expect(body.boats[2]).toMatchObject({ t: [GUN + 5000], sogKn: [null], cogDeg: [null] });
    // Epoch milliseconds are JSON numbers, never strings.
    expect(text).toContain(`"t":[${GUN + 2500},`);
    expect(text).not.toMatch(/"t":\["/);
  });

  it("orders boats by sail number naturally and keeps every boat's arrays aligned, t strictly ascending", async () => {
    const { body } = await page({ since: GUN + 10 * MINUTE });
    expect(sailNumbers(body)).toEqual(["GBR 9", "GBR 10", "gbr 11", "IRL 2"]);
    for (const boat of body.boats) {
      const n = boat.t.length;
      expect(n).toBeGreaterThan(0);
      for (const array of [boat.lat, boat.lon, boat.sogKn, boat.cogDeg]) expect(array).toHaveLength(n);
      for (let i = 1; i < n; i++) expect(boat.t[i]!).toBeGreaterThan(boat.t[i - 1]!);
    }
    expect(body.boats.find((b) => b.entryId === IDS.late)).toMatchObject({ ...expected(IDS.late, GUN + 10 * MINUTE, GUN + 20 * MINUTE) });
  });

  it("serves a boat's fixes up to and including its own finish, none after, though it kept reporting", async () => {
    const since = FINISH - 5 * MINUTE;
    const { body } = await page({ since });
    const finisher = body.boats.find((boat) => boat.entryId === IDS.finisher)!;
    expect(finisher.t.at(-1)).toBe(FINISH);
    expect(finisher).toMatchObject(expected(IDS.finisher, since, FINISH + 1));
    expect(stored(IDS.finisher).t.some((t) => t > FINISH && t < since + 10 * MINUTE)).toBe(true);
    // Others keep going.
    expect(body.boats.find((boat) => boat.entryId === IDS.steady)!.t.at(-1)).toBe(since + 10 * MINUTE - 500);
    // After its finish, the boat is absent altogether.
    expect(entryIds((await page({ since: FINISH + 1 })).body)).not.toContain(IDS.finisher);
    expect(entryIds((await page({ since: FINISH + 30 * MINUTE })).body)).toEqual([IDS.steady, IDS.late, IDS.bare]);
  });

  it("starts the capture window at gun - 5 min: earlier fixes are not served, a boat with only those is absent", async () => {
    const { body } = await page({ since: GUN - 20 * MINUTE });
    expect(body.boats).toEqual([]);
    const opening = (await page({ since: GUN - 10 * MINUTE })).body;
    expect(entryIds(opening)).toEqual([IDS.finisher, IDS.steady, IDS.bare]);
    const steady = opening.boats[1]!;
    expect(steady.t[0]).toBe(GUN - 5 * MINUTE);
    expect(steady).toMatchObject(expected(IDS.steady, GUN - 5 * MINUTE, GUN));
    expect(stored(IDS.steady).t[0]).toBe(GUN - 10 * MINUTE);
    expect(stored(IDS.early).t.length).toBeGreaterThan(0);
  });

  it("serves only approved entries with a phone", async () => {
    for (const since of [GUN - 5 * MINUTE, GUN, GUN + 30 * MINUTE]) {
      const ids = entryIds((await page({ since })).body);
      expect(ids).not.toContain(IDS.unapproved);
      expect(ids).not.toContain(IDS.noPhone);
    }
    expect(stored(IDS.unapproved).t.length).toBeGreaterThan(0);
    expect(stored(IDS.noPhone).t.length).toBeGreaterThan(0);
  });

  it("has no boats for a group without a gun, and pages on with nextSince = until", async () => {
    const since = NOW - 30 * MINUTE;
    const { body, response } = await page({ startGroupId: IDS.noGunGroup, since });
    expect(body).toEqual({
      raceId: IDS.race,
      startGroupId: IDS.noGunGroup,
      since: iso(since),
      until: iso(since + 10 * MINUTE),
      nextSince: iso(since + 10 * MINUTE),
      delaySeconds: DELAY_SECONDS,
      boats: [],
    });
    // Its gun may still be set: even a settled window is not immutable.
    expect(response.headers.get("cache-control")).toBe("private, max-age=2");
  });

  it("never serves private fields", async () => {
    const text = await (await get({ since: GUN })).text();
    for (const secret of ["accuracy", "user-of", "device-of", "Phone X", String(ACCURACY_M)]) expect(text).not.toContain(secret);
  });

  it("counts against the tracking bucket", async () => {
    const response = await get({ since: GUN });
    expect(response.headers.get("ratelimit-policy")).toBe('"tracking";q=100000;w=60');
  });
});

describe("over Connect", () => {
  const path = "racing.v1.TrackService/GetTrackPage";

  it("answers the same page, with Cache-Control and X-Data-As-Of", async () => {
    const since = GUN + 2000;
    const response = await connectCall(
      api.url,
      path,
      { raceId: IDS.race, startGroupId: IDS.group, since: iso(since), until: iso(since + 5000) },
      bearer(token),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("private, max-age=3600, immutable");
    expect(response.headers.get("x-data-as-of")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const body = (await response.json()) as {
      raceId: string;
      startGroupId: string;
      since: string;
      until: string;
      nextSince: string;
      delaySeconds: number;
      boats: Array<{ entryId: string; t: string[]; sogKn: Array<number | string> }>;
    };
    expect(body).toMatchObject({ raceId: IDS.race, startGroupId: IDS.group, delaySeconds: DELAY_SECONDS });
    expect(Date.parse(body.since)).toBe(since);
    expect(Date.parse(body.nextSince)).toBe(since + 5000);
    expect(body.boats.map((b) => b.entryId)).toEqual([IDS.finisher, IDS.steady, IDS.bare]);
    // proto3 JSON: int64 as strings, NaN as "NaN"; the REST gateway is what writes numbers and null.
    expect(body.boats[1]!.t).toEqual([2, 3, 4, 5, 6].map((s) => String(GUN + s * 1000)));
    expect(body.boats[1]!.sogKn[1]).toBe("NaN");
  });

  it.each([
    ["since missing", { startGroupId: IDS.group }, "since"],
    [
      "until within the millisecond of since",
      { startGroupId: IDS.group, since: "2026-11-21T05:00:00.000000100Z", until: "2026-11-21T05:00:00.000000900Z" },
      "until",
    ],
    ["since after the cut-off", { startGroupId: IDS.group, since: iso(Date.now() + MINUTE) }, "since"],
    ["until equal to since", { startGroupId: IDS.group, since: iso(GUN), until: iso(GUN) }, "until"],
    ["until before since", { startGroupId: IDS.group, since: iso(GUN), until: iso(GUN - 1000) }, "until"],
    ["startGroupId missing on a two-group race", { since: iso(GUN) }, "startGroupId"],
    ["startGroupId malformed", { startGroupId: "nope", since: iso(GUN) }, "startGroupId"],
  ])("refuses %s with invalid_argument API_PARAM_INVALID", async (_, request, name) => {
    const error = await connectError(await connectCall(api.url, path, { raceId: IDS.race, ...request }, bearer(token)));
    expect(error).toMatchObject({ code: "invalid_argument", reason: "API_PARAM_INVALID", metadata: { name } });
  });

  it("answers not_found with the spec's reasons", async () => {
    const call = async (request: object) => connectError(await connectCall(api.url, path, request, bearer(token)));
    expect(await call({ raceId: IDS.race, startGroupId: IDS.singleGroup, since: iso(GUN) })).toMatchObject({
      code: "not_found",
      reason: "START_GROUP_NOT_FOUND",
    });
    expect(await call({ raceId: IDS.otherClubRace, since: iso(GUN) })).toMatchObject({ code: "not_found", reason: "RACE_NOT_FOUND" });
    expect(await call({ raceId: IDS.unsharedRace, since: iso(GUN) })).toMatchObject({ code: "not_found", reason: "TRACKING_NOT_SHARED" });
  });
});

describe("over real gRPC (@grpc/grpc-js)", () => {
  let client: grpc.Client;
  beforeAll(() => {
    client = grpcClient(api.grpcUrl);
  });
  afterAll(() => client?.close());

  it("never carries private fields over Connect or gRPC either", async () => {
    const request = { raceId: IDS.race, startGroupId: IDS.group, since: iso(GUN), until: iso(GUN + 10 * MINUTE) };
    const connectText = await (await connectCall(api.url, "racing.v1.TrackService/GetTrackPage", request, bearer(token))).text();
    const answer = await grpcTrackPage(client, token, {
      ...request,
      since: { seconds: BigInt(GUN / 1000), nanos: 0 },
      until: { seconds: BigInt((GUN + 10 * MINUTE) / 1000), nanos: 0 },
    });
    expect(answer.page!.boats.length).toBeGreaterThan(0);
    // Re-encoding keeps unknown fields too, so these are the bytes the server sent.
    const grpcBytes = Buffer.from(toBinary(GetTrackPageResponseSchema, answer.page!));
    const accuracyBytes = Buffer.alloc(8);
    accuracyBytes.writeDoubleLE(ACCURACY_M);
    for (const secret of ["user-of", "device-of", "Phone X", String(ACCURACY_M)]) {
      expect(connectText).not.toContain(secret);
      expect(grpcBytes.includes(secret)).toBe(false);
    }
    expect(grpcBytes.includes(accuracyBytes)).toBe(false);
  });

  it("answers the same page as REST, NaN where REST has null, with the cache headers as metadata", async () => {
    const since = GUN + 10 * MINUTE;
    const rest = (await page({ since })).body;
    const answer = await grpcTrackPage(client, token, {
      raceId: IDS.race,
      startGroupId: IDS.group,
      since: { seconds: BigInt(since / 1000), nanos: 0 },
    });
    expect(answer.code).toBe(0);
    expect(answer.headers.get("cache-control")).toEqual(["private, max-age=3600, immutable"]);
    expect(answer.headers.get("x-data-as-of")).toHaveLength(1);
    const page_ = answer.page!;
    expect(page_.nextSince).toEqual(page_.until);
    expect(Number(page_.until!.seconds) * 1000).toBe(Date.parse(rest.until));
    expect(
      page_.boats.map((boat) => ({
        entryId: boat.entryId,
        sailNumber: boat.sailNumber,
        boatName: boat.boatName,
        t: boat.t.map(Number),
        lat: boat.lat,
        lon: boat.lon,
        sogKn: boat.sogKn.map((v) => (Number.isNaN(v) ? null : v)),
        cogDeg: boat.cogDeg.map((v) => (Number.isNaN(v) ? null : v)),
      })),
    ).toEqual(rest.boats);
    expect(page_.boats.some((boat) => boat.sogKn.some(Number.isNaN))).toBe(true);
  });

  it("refuses with INVALID_ARGUMENT and NOT_FOUND and the spec's reasons", async () => {
    const call = (request: Parameters<typeof grpcTrackPage>[2]) => grpcTrackPage(client, token, request);
    const at = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });
    expect(await call({ raceId: IDS.race, startGroupId: IDS.group })).toMatchObject({
      code: 3,
      reason: "API_PARAM_INVALID",
      params: { name: "since" },
    });
    expect(await call({ raceId: IDS.race, startGroupId: IDS.group, since: at(GUN), until: at(GUN - 1000) })).toMatchObject({
      code: 3,
      reason: "API_PARAM_INVALID",
      params: { name: "until" },
    });
    expect(await call({ raceId: IDS.race, startGroupId: IDS.group, since: { seconds: 1_800_000_000n, nanos: 1 } })).toMatchObject({
      code: 3,
      params: { name: "since" },
    });
    expect(await call({ raceId: IDS.race, startGroupId: IDS.group, since: { seconds: 300_000_000_000n, nanos: 0 } })).toMatchObject({
      code: 3,
      params: { name: "since" },
    });
    expect(await call({ raceId: IDS.race, since: at(GUN) })).toMatchObject({ code: 3, params: { name: "startGroupId" } });
    expect(await call({ raceId: IDS.race, startGroupId: IDS.singleGroup, since: at(GUN) })).toMatchObject({
      code: 5,
      reason: "START_GROUP_NOT_FOUND",
    });
    expect(await call({ raceId: IDS.otherClubRace, since: at(GUN) })).toMatchObject({ code: 5, reason: "RACE_NOT_FOUND" });
    expect(await call({ raceId: IDS.unsharedRace, since: at(GUN) })).toMatchObject({ code: 5, reason: "TRACKING_NOT_SHARED" });
    expect(await grpcTrackPage(client, undefined, { raceId: IDS.race, since: at(GUN) })).toMatchObject({
      code: 16,
      reason: "API_TOKEN_MISSING",
    });
  });
});
