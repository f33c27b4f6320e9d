// The insights generator as the runtime wires it (the analytics engine's passings handed
// in, reads/analytics/insight-passings.ts), run a generation a minute through a race in
// this file's own database: its mark roundings are the analytics' passings of marks and
// gates, and a passing confirmed only minutes after its time, once its window was
// covered, still becomes a fact at its own time.

import { randomUUID } from "node:crypto";
import pino from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { destinationPoint, type LatLon } from "../../src/domain/geo.js";
import type { Fact } from "../../src/domain/facts.js";
import { factId } from "../../src/insights/fact-id.js";
import { InsightsGenerator } from "../../src/insights/generator.js";
import { insightPassings } from "../../src/reads/analytics/insight-passings.js";
import { AnalyticsEngine, itemsIn } from "../../src/reads/analytics/race-analytics.js";
import { importScenario } from "../../src/scenario/import.js";
import { simulateRace } from "../../src/sim/index.js";
import { factsBetween, generationState } from "../../src/store/insights.js";
import { primaryReads } from "../../src/store/read-replica.js";
import { findRace, type RaceRecord } from "../../src/store/races.js";
import { useFreshDatabase } from "../support/database.js";
import { CLUB, identityScenario } from "../support/api.js";
import { entry, iso, MINUTE, sharedEvent, track, uuid } from "../support/race-scenarios.js";

const db = useFreshDatabase();
const GUN = Date.parse("2026-06-01T10:00:00Z");
const SIMULATED = simulateRace({
  seed: "insights-agree",
  gunMs: GUN,
  startGroups: 1,
  boatsPerGroup: 3,
  laps: 2,
  legLengthM: 1200,
  overEarlyReturn: true,
});

// A boat that reaches the windward mark and stays inside its 50 m for 8 minutes before sailing on.
const [EVENT, RACE, GROUP, PARKER] = [uuid("e4000000", 1), uuid("a4000000", 1), uuid("b4000000", 1), uuid("d4000000", 1)];
const MARK: LatLon = { lat: 50.8, lon: -1.3 };
const north = (distanceM: number) => destinationPoint(MARK, 0, distanceM);
const south = (distanceM: number) => destinationPoint(MARK, 180, distanceM);
const FIRST_INSIDE = GUN + 15 * MINUTE;
const SAILS_ON = FIRST_INSIDE + 8 * MINUTE;

beforeAll(async () => {
  await importScenario(db.pool, SIMULATED.scenario);
  const scenario = identityScenario();
  const parked = Array.from({ length: 47 }, (_, k) => ({ t: FIRST_INSIDE + (k + 1) * 10_000, ...north(20 + (k % 3)) }));
  scenario.events = [
    sharedEvent(EVENT, CLUB, {
      entries: [entry(PARKER, "GBR 7", "Parker")],
      races: [
        {
          id: RACE,
          raceNo: 1,
          name: "Race 1",
          isLive: true,
          startGroups: [
            {
              id: GROUP,
              name: "Fleet",
              state: "Started",
              startTimeUtc: iso(GUN),
              entryIds: [PARKER],
              courses: [
                {
                  version: 1,
                  appliedFromUtc: iso(GUN - 10 * MINUTE),
                  steps: [
                    {
                      kind: "start",
                      label: "Start",
                      marks: [
                        { key: "pin", ...south(2000) },
                        { key: "rc", ...destinationPoint(MARK, 175, 2000) },
                      ],
                    },
                    { kind: "mark", label: "Windward", marks: [{ key: "windward", ...MARK }] },
                    { kind: "mark", label: "Leeward", marks: [{ key: "leeward", ...south(1500) }] },
                  ],
                },
              ],
              tracks: [
                track(PARKER, [
                  { t: GUN + 10_000, ...destinationPoint(MARK, 178, 2050) },
                  { t: GUN + 70_000, ...destinationPoint(MARK, 178, 1900) },
                  { t: FIRST_INSIDE - 2000, ...north(70) },
                  { t: FIRST_INSIDE - 1000, ...north(60) },
                  { t: FIRST_INSIDE, ...north(20) },
                  ...parked,
                  { t: SAILS_ON, ...south(30) },
                  { t: SAILS_ON + 10_000, ...south(80) },
                ]),
              ],
            },
          ],
        },
      ],
    }),
  ];
  await importScenario(db.pool, scenario);
});

/** A generator wired as the runtime wires it, over this file's database. */
function generator(): InsightsGenerator {
  const reads = primaryReads(db.pool);
  return new InsightsGenerator({
    pool: db.pool,
    reads,
    stepPassings: insightPassings(new AnalyticsEngine(), reads),
    logger: pino({ level: "silent" }),
    phraser: null,
    instanceId: randomUUID(),
  });
}

async function roundings(race: RaceRecord): Promise<Fact[]> {
  const facts = await factsBetween(db.pool, race.id, 0, Date.parse("2100-01-01T00:00:00Z"), 10_000);
  return facts.filter((fact) => fact.kind === "markRounding");
}

describe("the generator's mark roundings", () => {
  it("are the analytics' passings of marks and gates, each within 3 s of the truth, from a generation a minute", async () => {
    const raceId = SIMULATED.scenario.events[0]!.races[0]!.id;
    const race = (await findRace(db.pool, raceId))!;
    const group = SIMULATED.scenario.events[0]!.races[0]!.startGroups[0]!;
    expect(group.courses!.length).toBeGreaterThan(1);
    const lastFix = Math.max(...group.tracks!.map((tr) => tr.t.at(-1)!));
    const insights = generator();
    let nowMs = GUN - 5 * MINUTE;
    for (; nowMs <= lastFix + 2 * MINUTE; nowMs += MINUTE) await insights.insights(race, "en", nowMs);

    // What the analytics, rebuilt afresh at the end, say was passed.
    const analytics = await new AnalyticsEngine().refresh(race, nowMs, { pool: db.pool, behindMs: 0 });
    const passed = itemsIn(analytics.groups[0]!.items, (boat) => boat.passings).filter(
      ({ item }) => item.stepKind === "mark" || item.stepKind === "gate",
    );
    const byBoatAndTime = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0])) || Number(a[2]) - Number(b[2]);
    // Three boats: the cap of 3 per mark never binds, so every passing is a fact.
    expect(passed.length).toBeGreaterThanOrEqual(3 * 4 - 1);
    expect((await roundings(race)).map((f) => [f.boats[0]!.entryId, f.markLabel, f.atMs]).sort(byBoatAndTime)).toEqual(
      passed.map(({ boat, item }) => [boat.uuid, item.label, Math.trunc(item.atMs)]).sort(byBoatAndTime),
    );
    // And the rule is right: each is within 3 s of the simulator's own passing of that step.
    const truthOf = new Map(SIMULATED.truth.groups[0]!.boats.map((b) => [b.entryId, b.passings]));
    for (const { boat, item } of passed) {
      const truth = truthOf.get(boat.uuid)!.find((p) => p.stepIndex === item.stepIndex)!;
      expect(Math.abs(truth.atMs - item.atMs)).toBeLessThanOrEqual(3000);
    }
  });

  it("include a passing confirmed minutes after its time, when its window was covered already, at its own time", async () => {
    const race = (await findRace(db.pool, RACE))!;
    const insights = generator();
    let nowMs = GUN;
    for (; nowMs < SAILS_ON; nowMs += MINUTE) await insights.insights(race, "en", nowMs);
    // Every window holding the passing's time was generated while the boat sat at the mark: nothing yet.
    expect(await roundings(race)).toEqual([]);
    expect((await generationState(db.pool, race.id)).coveredToMs).toBeGreaterThan(FIRST_INSIDE + 5 * MINUTE);

    for (; nowMs < SAILS_ON + 2 * MINUTE; nowMs += MINUTE) await insights.insights(race, "en", nowMs);
    const found = await roundings(race);
    expect(found.map((f) => [f.boats[0]!.entryId, f.markLabel, f.atMs])).toEqual([[PARKER, "Windward", FIRST_INSIDE]]);
    expect(found[0]!.id).toBe(factId({ raceId: RACE, startGroupId: GROUP, kind: "markRounding", entryIds: [PARKER], atMs: FIRST_INSIDE }));
  });
});
