// Paging a finished simulated race with nextSince, from gun - 5 min until nextSince is
// null: every stored fix inside a boat's capture window comes back exactly once, and
// nothing else. Over REST, and one group over real gRPC.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as grpc from "@grpc/grpc-js";
import { CAPTURE_AFTER_GUN_MS, CAPTURE_BEFORE_GUN_MS } from "../../src/domain/race-time.js";
import { importScenario } from "../../src/scenario/import.js";
import type { Scenario, StartGroup, Track } from "../../src/domain/scenario.js";
import { simulateScenario } from "../../src/sim/index.js";
import { useFreshDatabase } from "../support/database.js";
import { grpcClient } from "../support/grpc.js";
import { bearer, startApi, tokenFor, type Api } from "../support/api.js";
import { grpcTrackPage, iso, MINUTE, NOW, trackQuery, type TrackBoatJson, type TrackPageJson } from "../support/track-scenarios.js";

const db = useFreshDatabase();
const GUN = NOW - 4 * 60 * MINUTE;
const CLOSE = GUN + CAPTURE_AFTER_GUN_MS;

/**
 * A short race, long over, with its two groups five minutes apart. Two additions to the
 * simulator's tracks: a boat with fixes from gun - 8 min (only gun - 5 min itself is in
 * its window), and the retired boat, which has no finish, reporting again around
 * gun + 3 h (served up to, not including, gun + 3 h).
 */
function finishedRace(): Scenario {
  const scenario = simulateScenario({ seed: "track-paging", gunMs: GUN, startGroups: 2, boatsPerGroup: 6, laps: 1, legLengthM: 600 });
  scenario.clubs[0]!.trackingRateLimitPerMinute = 100_000;
  scenario.clients = [{ clientId: "paging", clientSecret: "paging-secret", clubId: scenario.clubs[0]!.id, scopes: ["tracking:read"] }];
  const [first] = scenario.events[0]!.races[0]!.startGroups;
  const servedBoats = tracksOfServedBoats(scenario, first!);
  const early = servedBoats.find((t) => (first!.finishes ?? []).some((f) => f.entryId === t.entryId))!;
  const retired = servedBoats.find((t) => !(first!.finishes ?? []).some((f) => f.entryId === t.entryId))!;
  prepend(early, GUN - 8 * MINUTE, GUN - CAPTURE_BEFORE_GUN_MS);
  append(retired, CLOSE - 5 * MINUTE, CLOSE + 5 * MINUTE);
  return scenario;
}

function tracksOfServedBoats(scenario: Scenario, group: StartGroup): Track[] {
  const entries = new Map(scenario.events[0]!.entries.map((e) => [e.id, e]));
  return (group.tracks ?? []).filter((t) => entries.get(t.entryId)?.approved !== false && entries.get(t.entryId)?.hasPhone !== false);
}

/** Adds 1 Hz fixes from `fromMs` to `toMs` inclusive before the track's first. */
function prepend(track: Track, fromMs: number, toMs: number): void {
  const t: number[] = [];
  for (let ms = fromMs; ms <= toMs; ms += 1000) t.push(ms);
  expect(t.at(-1)!).toBeLessThan(track.t[0]!);
  track.t.unshift(...t);
  track.lat.unshift(...t.map(() => 50.8));
  track.lon.unshift(...t.map(() => -1.2));
  track.sogKn?.unshift(...t.map(() => 1.5));
  track.cogDeg?.unshift(...t.map(() => null));
  track.accuracyM?.unshift(...t.map(() => 3));
}

/** Adds 1 Hz fixes from `fromMs` to `toMs` inclusive after the track's last. */
function append(track: Track, fromMs: number, toMs: number): void {
  const t: number[] = [];
  for (let ms = fromMs; ms <= toMs; ms += 1000) t.push(ms);
  expect(t[0]!).toBeGreaterThan(track.t.at(-1)!);
  track.t.push(...t);
  track.lat.push(...t.map((ms) => 50.7 + (ms - fromMs) / 1e9));
  track.lon.push(...t.map(() => -1.25));
  track.sogKn?.push(...t.map((ms) => (ms % 7000 === 0 ? null : 0.5)));
  track.cogDeg?.push(...t.map(() => 180));
  track.accuracyM?.push(...t.map(() => 3));
}

/** What the track must serve of a group: each approved boat with a phone, its fixes inside its capture window. */
function expectedBoats(scenario: Scenario, group: StartGroup): Map<string, Omit<TrackBoatJson, "sailNumber" | "boatName">> {
  const gun = Date.parse(group.startTimeUtc!);
  const boats = new Map<string, Omit<TrackBoatJson, "sailNumber" | "boatName">>();
  for (const track of tracksOfServedBoats(scenario, group)) {
    const finishes = (group.finishes ?? []).filter((f) => f.entryId === track.entryId).map((f) => Date.parse(f.finishTimeUtc));
    const last = finishes.length > 0 ? Math.min(...finishes) : Infinity;
    const idx = track.t.flatMap((t, i) => (t >= gun - CAPTURE_BEFORE_GUN_MS && t <= last && t < gun + CAPTURE_AFTER_GUN_MS ? [i] : []));
    if (idx.length === 0) continue;
    boats.set(track.entryId, {
      entryId: track.entryId,
      t: idx.map((i) => track.t[i]!),
      lat: idx.map((i) => track.lat[i]!),
      lon: idx.map((i) => track.lon[i]!),
      sogKn: idx.map((i) => track.sogKn?.[i] ?? null),
      cogDeg: idx.map((i) => track.cogDeg?.[i] ?? null),
    });
  }
  return boats;
}

const scenario = finishedRace();
const race = scenario.events[0]!.races[0]!;
let api: Api;
let token: string;

beforeAll(async () => {
  await importScenario(db.pool, scenario);
  api = await startApi(db);
  token = await tokenFor(api.url, "paging");
});
afterAll(() => api?.close());

async function trackPage(groupId: string, since: string | number, until?: number): Promise<{ body: TrackPageJson; response: Response }> {
  const response = await fetch(`${api.url}/api/v1/races/${race.id}/track${trackQuery({ startGroupId: groupId, since, until })}`, {
    headers: bearer(token),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return { body: (await response.json()) as TrackPageJson, response };
}

describe("paging a finished race with nextSince", () => {
  it.each([0, 1])("serves every fix of group %i inside the capture window exactly once, page by page", async (g) => {
    const group = race.startGroups[g]!;
    const gun = Date.parse(group.startTimeUtc!);
    const served = new Map<string, Omit<TrackBoatJson, "sailNumber" | "boatName">>();
    const sailNumbers = new Map(scenario.events[0]!.entries.map((e) => [e.id, e.sailNumber]));
    let since: string | null = iso(gun - CAPTURE_BEFORE_GUN_MS);
    let pages = 0;
    while (since !== null) {
      const { body, response }: { body: TrackPageJson; response: Response } = await trackPage(group.id, since);
      pages++;
      expect(body.since).toBe(since);
      expect(Date.parse(body.until) - Date.parse(body.since)).toBe(10 * MINUTE);
      // Long over: every page is settled.
      expect(response.headers.get("cache-control")).toBe("private, max-age=3600, immutable");
      expect(body.boats.map((b) => b.sailNumber)).toEqual(
        body.boats.map((b) => b.sailNumber).sort((a, b) => a.localeCompare(b, "en", { numeric: true, sensitivity: "base" })),
      );
      for (const boat of body.boats) {
        expect(boat.sailNumber).toBe(sailNumbers.get(boat.entryId));
        const all = served.get(boat.entryId) ?? { entryId: boat.entryId, t: [], lat: [], lon: [], sogKn: [], cogDeg: [] };
        for (const t of boat.t) expect(t >= Date.parse(body.since) && t < Date.parse(body.until)).toBe(true);
        all.t.push(...boat.t);
        all.lat.push(...boat.lat);
        all.lon.push(...boat.lon);
        all.sogKn.push(...boat.sogKn);
        all.cogDeg.push(...boat.cogDeg);
        served.set(boat.entryId, all);
      }
      if (body.nextSince === null) expect(Date.parse(body.until)).toBeGreaterThanOrEqual(gun + CAPTURE_AFTER_GUN_MS);
      else expect(body.nextSince).toBe(body.until);
      since = body.nextSince;
    }
    // gun - 5 min to gun + 3 h in 10-minute pages; the last one reaches past gun + 3 h.
    expect(pages).toBe(19);
    const expected = expectedBoats(scenario, group);
    expect(served).toEqual(expected);
    // Each served boat's t is strictly ascending across pages: no fix twice.
    for (const boat of served.values()) for (let i = 1; i < boat.t.length; i++) expect(boat.t[i]!).toBeGreaterThan(boat.t[i - 1]!);
    // The data holds what must not be served: fixes after phone finishes (phones keep recording), and for group 0
    // fixes before gun - 5 min and from gun + 3 h on.
    const stored = new Map((group.tracks ?? []).map((t) => [t.entryId, t.t.length]));
    const storedServable = tracksOfServedBoats(scenario, group).reduce((n, t) => n + t.t.length, 0);
    const servedCount = [...served.values()].reduce((n, b) => n + b.t.length, 0);
    expect(servedCount).toBeLessThan(storedServable);
    expect(stored.size).toBeGreaterThan(served.size);
  });

  it("serves a boat's fix at exactly gun - 5 min and none before", async () => {
    const group = race.startGroups[0]!;
    const { body } = await trackPage(group.id, GUN - 10 * MINUTE);
    const starts = body.boats.map((boat) => boat.t[0]!);
    expect(Math.min(...starts)).toBe(GUN - CAPTURE_BEFORE_GUN_MS);
    for (const boat of body.boats) expect(boat.t[0]!).toBeGreaterThanOrEqual(GUN - CAPTURE_BEFORE_GUN_MS);
  });

  it("ends with nextSince null once until reaches gun + 3 h, serving fixes only before it", async () => {
    const group = race.startGroups[0]!;
    const last = await trackPage(group.id, CLOSE - 10 * MINUTE);
    expect(last.body).toMatchObject({ until: iso(CLOSE), nextSince: null });
    const retired = last.body.boats;
    expect(retired).toHaveLength(1);
    expect(retired[0]!.t.at(-1)).toBe(CLOSE - 1000);
    expect(retired[0]!.t[0]).toBe(CLOSE - 5 * MINUTE);
    // The live answer shows the same last position: gun + 3 h, stored, is outside the window for both.
    const live = await fetch(`${api.url}/api/v1/races/${race.id}/live`, { headers: bearer(token) });
    const boats = (
      (await live.json()) as { startGroups: { startGroupId: string; boats: { entryId: string; fixTimeUtc: string }[] }[] }
    ).startGroups.find((g) => g.startGroupId === group.id)!.boats;
    expect(boats.find((b) => b.entryId === retired[0]!.entryId)?.fixTimeUtc).toBe(iso(CLOSE - 1000));

    const before = await trackPage(group.id, CLOSE - 10 * MINUTE, CLOSE - 1);
    expect(before.body).toMatchObject({ until: iso(CLOSE - 1), nextSince: iso(CLOSE - 1) });

    const after = await trackPage(group.id, CLOSE);
    expect(after.body).toMatchObject({ since: iso(CLOSE), until: iso(CLOSE + 10 * MINUTE), nextSince: null, boats: [] });
    const later = await trackPage(group.id, CLOSE + 30 * MINUTE);
    expect(later.body).toMatchObject({ nextSince: null, boats: [] });
  });

  it("pages the same over real gRPC", async () => {
    const client: grpc.Client = grpcClient(api.grpcUrl);
    try {
      const group = race.startGroups[1]!;
      const gun = Date.parse(group.startTimeUtc!);
      let since: bigint | null = BigInt((gun - CAPTURE_BEFORE_GUN_MS) / 1000);
      let fixes = 0;
      let pages = 0;
      while (since !== null) {
        const answer = await grpcTrackPage(client, token, { raceId: race.id, startGroupId: group.id, since: { seconds: since, nanos: 0 } });
        expect(answer.code).toBe(0);
        pages++;
        fixes += answer.page!.boats.reduce((n, boat) => n + boat.t.length, 0);
        since = answer.page!.nextSince ? answer.page!.nextSince.seconds : null;
      }
      expect(pages).toBe(19);
      expect(fixes).toBe([...expectedBoats(scenario, group).values()].reduce((n, b) => n + b.t.length, 0));
    } finally {
      client.close();
    }
  });
});
