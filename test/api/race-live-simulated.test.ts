// A smoke test on a realistic race: a simulated regatta (two fleets, unapproved and
// phoneless entries, boats finishing and still recording, a course change, wind and
// live-order readings) imported as it stands now, with a 30 s delay. The answer must be
// what the same race sliced at dataAsOf holds, item by item.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareSailNumbers } from "../../src/domain/sail-number.js";
import { importScenario } from "../../src/scenario/import.js";
import type { Entry, Scenario, StartGroup } from "../../src/domain/scenario.js";
import { simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { CLUB, identityScenario, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { iso, MINUTE, restLive } from "../support/race-scenarios.js";

const db = useFreshDatabase();
let api: Api;
let token: string;
let full: Scenario;
let importedAt = 0;

beforeAll(async () => {
  await seedIdentities(db);
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
  importedAt = Date.now();
  full = simulateScenario({
    seed: "live-smoke",
    gunMs: importedAt - 22 * MINUTE,
    startGroups: 2,
    boatsPerGroup: 8,
    laps: 1,
    legLengthM: 700,
    delaySeconds: 30,
  });
  const now = sliceScenario(full, null, importedAt);
  const scenario = identityScenario();
  scenario.events = now.events.map((event) => ({ ...event, clubId: CLUB }));
  await importScenario(db.pool, scenario);
});
afterAll(() => api?.close());

type Json = Record<string, unknown>;

/** The live answer as the race sliced at `asOf` says it must be. */
function expectedGroups(asOf: number): Json[] {
  const event = sliceScenario(full, null, asOf).events[0]!;
  const entries = new Map<string, Entry>(event.entries.map((e) => [e.id, e]));
  const race = event.races[0]!;
  return race.startGroups.map((group) => {
    const gun = Date.parse(group.startTimeUtc!);
    const finishOf = (entryId: string) => {
      const times = (group.finishes ?? []).filter((f) => f.entryId === entryId).map((f) => Date.parse(f.finishTimeUtc));
      return times.length > 0 ? Math.min(...times) : null;
    };
    const boats = group.entryIds
      .map((id) => entries.get(id)!)
      .filter((e) => e.approved !== false && e.hasPhone !== false)
      .flatMap((e) => {
        const track = group.tracks?.find((t) => t.entryId === e.id);
        // gun - 5 min up to its finish (inclusive), or gun + 3 h (exclusive).
        const finish = finishOf(e.id) ?? Infinity;
        const i = track ? track.t.findLastIndex((t) => t >= gun - 5 * MINUTE && t <= finish && t < gun + 3 * 60 * MINUTE) : -1;
        if (!track || i < 0) return [];
        return [
          {
            entryId: e.id,
            sailNumber: e.sailNumber,
            boatName: e.boatName,
            lat: track.lat[i],
            lon: track.lon[i],
            sogKn: track.sogKn?.[i] ?? null,
            cogDeg: track.cogDeg?.[i] ?? null,
            fixTimeUtc: iso(track.t[i]!),
          },
        ];
      })
      .sort((a, b) => compareSailNumbers(a.sailNumber, b.sailNumber));
    const reading = group.liveOrder?.at(-1);
    const wind = group.wind?.at(-1);
    return {
      startGroupId: group.id,
      name: group.name,
      state: group.state,
      startTimeUtc: iso(gun),
      finishTimeUtc: group.finishTimeUtc ? iso(Date.parse(group.finishTimeUtc)) : null,
      courseVersion: group.courses?.at(-1)?.version ?? 0,
      wind: wind ? { twd: wind.twd, tws: wind.tws ?? null, measuredAtUtc: iso(Date.parse(wind.measuredAtUtc)) } : null,
      boats,
      liveOrder: reading
        ? [...reading.rows]
            .sort(
              (a, b) =>
                (a.rank ?? Infinity) - (b.rank ?? Infinity) ||
                compareSailNumbers(entries.get(a.entryId)!.sailNumber, entries.get(b.entryId)!.sailNumber),
            )
            .map((row) => {
              const finish = finishOf(row.entryId);
              return {
                entryId: row.entryId,
                rank: row.rank,
                elapsedSeconds: row.elapsedSeconds ?? null,
                correctedSeconds: row.correctedSeconds ?? null,
                deltaSeconds: row.deltaSeconds ?? null,
                finishTimeUtc: finish === null ? null : iso(finish),
              };
            })
        : null,
      liveOrderAsOf: reading ? iso(Date.parse(reading.asOfUtc)) : null,
      course: (group.courses?.at(-1)?.steps ?? []).map((step) => ({ kind: step.kind, label: step.label ?? null, marks: step.marks })),
    };
  });
}

describe("a simulated race, live with a 30 s delay", () => {
  it("answers what the race held at dataAsOf: newest fixes in each boat's window, wind, course, live order", async () => {
    const response = await restLive(api.url, token, full.events[0]!.races[0]!.id);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    const asOf = Date.parse(body.dataAsOf as string);
    expect(asOf).toBeLessThan(importedAt); // everything up to dataAsOf was imported
    expect(body.delaySeconds).toBe(30);
    expect(body.startGroups).toEqual(expectedGroups(asOf));

    // Not vacuous: the race has what the rules are about.
    const groups = body.startGroups as Json[];
    const boats = groups.flatMap((g) => g.boats as Json[]);
    const entries = full.events[0]!.entries;
    expect(boats.length).toBeGreaterThanOrEqual(10);
    expect(groups.every((g) => Array.isArray(g.liveOrder) && (g.liveOrder as Json[]).length > 0)).toBe(true);
    expect(entries.some((e) => e.approved === false) && entries.some((e) => e.hasPhone === false)).toBe(true);
    const simulated: StartGroup[] = full.events[0]!.races[0]!.startGroups;
    const recordedPastFinish = simulated.some((g) =>
      (g.finishes ?? []).some(
        (f) =>
          Date.parse(f.finishTimeUtc) < asOf &&
          g.tracks!.find((t) => t.entryId === f.entryId)!.t.some((t) => t > Date.parse(f.finishTimeUtc) && t <= asOf),
      ),
    );
    expect(recordedPastFinish).toBe(true);
  });
});
