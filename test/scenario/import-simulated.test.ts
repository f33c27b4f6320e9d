// Round trips with simulator output: what goes in comes back out, and a race replayed
// second by second (the demo's live mode) ends as the same data as a one-shot import.

import type { RowDataPacket } from "mysql2/promise";
import { describe, expect, it } from "vitest";
import { importScenario } from "../../src/scenario/import.js";
import { simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { useFreshDatabase } from "../support/database.js";
import { snapshot } from "../support/snapshot.js";

const db = useFreshDatabase();
const GUN = Date.parse("2026-06-01T12:00:00Z");

describe("a simulated race", () => {
  const race = simulateScenario({ seed: "round-trip", gunMs: GUN, startGroups: 2, boatsPerGroup: 6, laps: 1, legLengthM: 800 });
  const groups = race.events[0]!.races[0]!.startGroups;
  const lastTime = Math.max(
    ...groups.flatMap((g) => [...(g.tracks ?? []).map((t) => t.t.at(-1)!), Date.parse(g.results?.publishedAtUtc ?? "1970-01-01")]),
  );

  it("imports replayed slice by slice, then whole, with nothing left to change", async () => {
    const cuts = [GUN - 60_000, GUN + 5 * 60_000, GUN + 11 * 60_000 + 1, lastTime];
    let from: number | null = null;
    for (const to of cuts) {
      await importScenario(db.pool, sliceScenario(race, from, to));
      from = to;
    }
    const replayed = await snapshot(db.pool);
    // The full scenario shows the groups as "Started" (its state at no moment in particular); everything else must be equal.
    const { start_groups: _replayedGroups, ...replayedData } = replayed;
    await importScenario(db.pool, race);
    const { start_groups: _fullGroups, ...fullData } = await snapshot(db.pool);
    expect(fullData).toEqual(replayedData);
    expect(replayed.fixes!.rows).toBeGreaterThan(1000);
  });

  it("comes back out fix for fix", async () => {
    for (const group of groups) {
      for (const track of group.tracks ?? []) {
        const [rows] = await db.pool.query<RowDataPacket[]>(
          `SELECT f.t, f.lat, f.lon, f.sog_kn, f.cog_deg, f.accuracy_m FROM fixes f
           JOIN entries e ON e.id = f.entry_id JOIN start_groups g ON g.id = f.start_group_id
           WHERE e.uuid = ? AND g.uuid = ? ORDER BY f.t`,
          [track.entryId, group.id],
        );
        expect(rows.map((r) => Number(r.t))).toEqual(track.t);
        expect(rows.map((r) => r.lat)).toEqual(track.lat);
        expect(rows.map((r) => r.lon)).toEqual(track.lon);
        expect(rows.map((r) => r.sog_kn)).toEqual(track.sogKn);
        expect(rows.map((r) => r.cog_deg)).toEqual(track.cogDeg);
        expect(rows.map((r) => r.accuracy_m)).toEqual(track.accuracyM);
      }
    }
  });

  it("is idempotent", async () => {
    const before = await snapshot(db.pool);
    await importScenario(db.pool, race);
    expect(await snapshot(db.pool)).toEqual(before);
  });
});
