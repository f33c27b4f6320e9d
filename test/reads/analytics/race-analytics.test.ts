// The analytics engine kept between refreshes gives exactly what a fresh engine, rebuilt
// from the database at the same moment, gives: after many small refreshes, after fixes
// that came late into the unsettled minutes, and after a wind reading recorded into the
// settled past. Run on a simulated race imported into this file's own database.

import type { RowDataPacket } from "mysql2/promise";
import { beforeAll, describe, expect, it } from "vitest";
import { AnalyticsEngine, chunkEnds, type RaceAnalytics, REBUILD_CHUNK_MS } from "../../../src/reads/analytics/race-analytics.js";
import { importScenario } from "../../../src/scenario/import.js";
import { simulateScenario } from "../../../src/sim/index.js";
import { findRace, type RaceRecord } from "../../../src/store/races.js";
import { useFreshDatabase } from "../../support/database.js";

const db = useFreshDatabase();
const GUN = Date.parse("2026-06-01T10:00:00Z");
const MINUTE = 60_000;
const SCENARIO = simulateScenario({
  seed: 30,
  gunMs: GUN,
  startGroups: 1,
  boatsPerGroup: 6,
  laps: 1,
  legLengthM: 900,
  durationMinutes: 30,
  overEarlyReturn: true,
});
const RACE_ID = SCENARIO.events[0]!.races[0]!.id;
let race: RaceRecord;

beforeAll(async () => {
  await importScenario(db.pool, SCENARIO);
  race = (await findRace(db.pool, RACE_ID))!;
});

const source = () => ({ pool: db.pool, behindMs: 0 });

/** Everything a client could be shown, as plain JSON. */
function shown(analytics: RaceAnalytics): unknown {
  return JSON.parse(
    JSON.stringify(
      analytics.groups.map((group) => ({
        wind: group.wind,
        legs: group.legs,
        boats: group.boats.map(({ boat, ...rest }) => ({ entry: boat.uuid, ...rest })),
        items: group.items.map(({ boat, ...lists }) => ({ entry: boat.uuid, ...lists })),
        finalBeforeMs: group.finalBeforeMs,
      })),
    ),
  );
}

async function fresh(nowMs: number): Promise<unknown> {
  return shown(await new AnalyticsEngine().refresh(race, nowMs, source()));
}

describe("the analytics engine", () => {
  it("refreshed every few seconds through a race, ends where a fresh engine rebuilt from the database begins", async () => {
    const engine = new AnalyticsEngine();
    const checkpoints = [GUN - 2 * MINUTE, GUN + 4 * MINUTE, GUN + 13 * MINUTE, GUN + 31 * MINUTE];
    let compared = 0;
    for (let now = GUN - 6 * MINUTE; now <= GUN + 31 * MINUTE; now += 7_000) {
      const kept = shown(await engine.refresh(race, now, source()));
      if (checkpoints.some((at) => now <= at && at < now + 7_000)) {
        expect(kept).toEqual(await fresh(now));
        compared++;
      }
    }
    expect(compared).toBe(checkpoints.length);
    // The race was really analysed: passings and manoeuvres found, a finisher leads.
    const end = (await engine.refresh(race, GUN + 31 * MINUTE, source())).groups[0]!;
    expect(end.items.flatMap((boat) => boat.passings).length).toBeGreaterThan(12);
    expect(end.items.flatMap((boat) => boat.manoeuvres).filter((m) => m.kind === "tack").length).toBeGreaterThan(5);
    expect(end.boats[0]!.snapshot.finishedAtMs).not.toBeNull();
    // The rebuild read the race in several chunks.
    expect(31 * MINUTE).toBeGreaterThan(2 * REBUILD_CHUNK_MS);
  });

  it("takes fixes that arrive late into the unsettled minutes as a rebuild would", async () => {
    const engine = new AnalyticsEngine();
    const group = race.startGroups[0]!;
    const now = GUN + 4 * MINUTE;
    const [[boat]] = await db.pool.query<RowDataPacket[]>("SELECT entry_id FROM fixes WHERE start_group_id = ? LIMIT 1", [group.id]);
    const range = [group.id, boat!.entry_id, now - 70_000, now - 20_000];
    const [held] = await db.pool.query<RowDataPacket[]>(
      "SELECT start_group_id, entry_id, t, lat, lon, sog_kn, cog_deg FROM fixes WHERE start_group_id = ? AND entry_id = ? AND t BETWEEN ? AND ?",
      range,
    );
    expect(held.length).toBeGreaterThan(20);
    await db.pool.query("DELETE FROM fixes WHERE start_group_id = ? AND entry_id = ? AND t BETWEEN ? AND ?", range);
    for (let at = now - 3 * MINUTE; at <= now; at += 5_000) await engine.refresh(race, at, source());
    await db.pool.query("INSERT INTO fixes (start_group_id, entry_id, t, lat, lon, sog_kn, cog_deg) VALUES ?", [
      held.map((row) => [row.start_group_id, row.entry_id, row.t, row.lat, row.lon, row.sog_kn, row.cog_deg]),
    ]);
    const late = shown(await engine.refresh(race, now + 2_000, source()));
    expect(late).toEqual(await fresh(now + 2_000));
  });

  it("asked for an earlier moment than the last, answers as a fresh engine does: nothing it held of later", async () => {
    const engine = new AnalyticsEngine();
    // Its checkpoint then holds fixes to GUN + 8 min; the earlier moment lies 6 s before
    // that, with no wind reading, course or finish between (the simulator's readings
    // come at 6.6 and 8.1 minutes), so nothing else would start the group again.
    await engine.refresh(race, GUN + 10 * MINUTE, source());
    const earlier = GUN + 8 * MINUTE - 6_000;
    expect(shown(await engine.refresh(race, earlier, source()))).toEqual(await fresh(earlier));
  });

  it("rebuilds a race long over from the chunks its window holds, then one step to the edge, answering as soon after it", async () => {
    const opens = GUN - 5 * MINUTE;
    const closes = GUN + 180 * MINUTE;
    const yearOn = GUN + 365 * 24 * 60 * MINUTE;
    const ends = [...chunkEnds(opens, yearOn, closes)];
    expect(ends.slice(0, -1)).toEqual(Array.from({ length: 37 }, (_, i) => opens + (i + 1) * REBUILD_CHUNK_MS));
    expect(ends.at(-2)).toBe(closes);
    expect(ends.at(-1)).toBe(yearOn);
    // Still under way: chunks to the edge, the last one short.
    expect([...chunkEnds(opens, GUN + 7 * MINUTE, closes)]).toEqual([
      opens + REBUILD_CHUNK_MS,
      opens + 2 * REBUILD_CHUNK_MS,
      GUN + 7 * MINUTE,
    ]);
    expect([...chunkEnds(yearOn, yearOn, closes)]).toEqual([]);

    // What the window fixed: every manoeuvre and passing, the order, each boat's progress and finish.
    const fixed = (analytics: RaceAnalytics) =>
      JSON.parse(
        JSON.stringify(
          analytics.groups.map((group) => ({
            items: group.items.map(({ boat, ...lists }) => ({ entry: boat.uuid, ...lists })),
            boats: group.boats.map(({ boat, progressRank, snapshot }) => [
              boat.uuid,
              progressRank,
              snapshot.progressM,
              snapshot.finishedAtMs,
            ]),
          })),
        ),
      );
    const later = await new AnalyticsEngine().refresh(race, yearOn, source());
    expect(fixed(later)).toEqual(fixed(await new AnalyticsEngine().refresh(race, closes + MINUTE, source())));
    expect(later.groups[0]!.boats[0]!.snapshot.finishedAtMs).not.toBeNull();
  });

  it("starts a group again when a wind reading is recorded into its settled past", async () => {
    const engine = new AnalyticsEngine();
    const group = race.startGroups[0]!;
    const now = GUN + 20 * MINUTE;
    const before = shown(await engine.refresh(race, now, source()));
    const reading = new Date(GUN + 5 * MINUTE + 500);
    await db.pool.query("INSERT INTO wind_readings (start_group_id, measured_at, twd, tws) VALUES (?, ?, ?, ?)", [
      group.id,
      reading,
      123,
      9,
    ]);
    try {
      const after = shown(await engine.refresh(race, now + 1_000, source()));
      expect(after).toEqual(await fresh(now + 1_000));
      expect(after).not.toEqual(before);
    } finally {
      await db.pool.query("DELETE FROM wind_readings WHERE start_group_id = ? AND measured_at = ?", [group.id, reading]);
    }
  });
});
