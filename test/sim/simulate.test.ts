import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { angleDifferenceDegrees, haversineDistanceM } from "../../src/domain/geo.js";
import { validateScenario } from "../../src/scenario/validate.js";
import type { CourseVersion, Entry, StartGroup, Track } from "../../src/domain/scenario.js";
import { PRESTART_MS, simulateScenario } from "../../src/sim/index.js";

const UUID_V4ISH = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const GUN = Date.UTC(2026, 10, 21, 11, 0, 0);

const scenario = simulateScenario({ seed: "simulate-test", gunMs: GUN });
const event = scenario.events[0]!;
const groups = event.races[0]!.startGroups;
const entriesById = new Map<string, Entry>(event.entries.map((e) => [e.id, e]));

const digest = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex");
const gunOf = (g: StartGroup) => Date.parse(g.startTimeUtc!);
const courseAt = (g: StartGroup, ms: number): CourseVersion => {
  let applied = g.courses![0]!;
  for (const c of g.courses!) if (Date.parse(c.appliedFromUtc) <= ms) applied = c;
  return applied;
};

describe("determinism", () => {
  it("gives the same scenario for the same seed", () => {
    expect(digest(simulateScenario({ seed: "simulate-test", gunMs: GUN }))).toBe(digest(scenario));
  });

  it("gives another scenario, with other ids, for another seed", () => {
    const other = simulateScenario({ seed: "simulate-test-2", gunMs: GUN });
    expect(digest(other)).not.toBe(digest(scenario));
    expect(other.clubs[0]!.id).not.toBe(scenario.clubs[0]!.id);
    expect(other.events[0]!.entries[0]!.id).not.toBe(event.entries[0]!.id);
  });
});

describe("validity", () => {
  it("passes the race-scenario/v1 schema and cross rules", () => {
    const result = validateScenario(JSON.parse(JSON.stringify(scenario)));
    expect(result.ok ? null : result.problem).toBeNull();
  });

  it("has one club, no clients, one event with one race of two start groups of twelve", () => {
    expect(scenario.clubs).toHaveLength(1);
    expect(scenario.clients).toEqual([]);
    expect(scenario.events).toHaveLength(1);
    expect(event.clubId).toBe(scenario.clubs[0]!.id);
    expect(event.races).toHaveLength(1);
    expect(groups).toHaveLength(2);
    for (const g of groups) expect(g.entryIds).toHaveLength(12);
    expect(event.entries).toHaveLength(24);
    expect(event.trackingShared).toBe(true);
    expect(event.delaySeconds).toBe(0);
    expect(event.races[0]!.isLive).toBe(true);
  });

  it("uses unique lowercase v4-looking UUIDs for every id", () => {
    const ids = [scenario.clubs[0]!.id, event.id, event.races[0]!.id, ...groups.map((g) => g.id), ...event.entries.map((e) => e.id)];
    for (const id of ids) expect(id).toMatch(UUID_V4ISH);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("follows the options it is given", () => {
    const s = simulateScenario({
      seed: 5,
      startGroups: 1,
      boatsPerGroup: 5,
      delaySeconds: 30,
      trackingShared: false,
      isLive: false,
      durationMinutes: 20,
    });
    const e = s.events[0]!;
    expect(e.delaySeconds).toBe(30);
    expect(e.trackingShared).toBe(false);
    expect(e.races[0]!.isLive).toBe(false);
    expect(e.races[0]!.startGroups).toHaveLength(1);
    expect(e.entries).toHaveLength(5);
    const g = e.races[0]!.startGroups[0]!;
    const capEnd = gunOf(g) + 20 * 60_000;
    for (const track of g.tracks!) expect(track.t[track.t.length - 1]!).toBeLessThan(capEnd);
    // Nobody sails a 50-minute course in 20 minutes.
    expect(g.finishes).toEqual([]);
    expect(g.results!.rows.every((r) => r.status === "DNF")).toBe(true);
  });
});

describe("entries", () => {
  it("have unique sail numbers of mixed digit lengths and plausible names", () => {
    const sails = event.entries.map((e) => e.sailNumber);
    expect(new Set(sails).size).toBe(sails.length);
    for (const s of sails) expect(s).toMatch(/^[A-Z]{3} \d{1,5}$/);
    const digitLengths = new Set(sails.map((s) => s.split(" ")[1]!.length));
    expect(digitLengths.size).toBeGreaterThanOrEqual(3);
    for (const e of event.entries) expect(e.boatName.length).toBeGreaterThan(2);
  });

  it("are mostly approved with phones, with a few that are not, and carry private fields", () => {
    const unapproved = event.entries.filter((e) => e.approved === false);
    const noPhone = event.entries.filter((e) => e.hasPhone === false);
    expect(unapproved.length).toBeGreaterThanOrEqual(1);
    expect(noPhone.length).toBeGreaterThanOrEqual(1);
    expect(unapproved.length + noPhone.length).toBeLessThanOrEqual(4);
    for (const e of event.entries) {
      expect(e.userId).toMatch(/^usr_[0-9a-f]{12}$/);
      if (e.hasPhone !== false) {
        expect(e.deviceId).toBeTruthy();
        expect(e.phoneModel).toBeTruthy();
      }
    }
  });
});

describe("start groups and courses", () => {
  it("start at the gun, the second group some minutes later", () => {
    expect(gunOf(groups[0]!)).toBe(GUN);
    expect(gunOf(groups[1]!)).toBe(GUN + 5 * 60_000);
    for (const g of groups) {
      expect(g.state).toBe("Started");
      expect(g.finishTimeUtc).toBeNull();
    }
  });

  it("lay a windward-leeward course before the gun, and move only the windward mark later", () => {
    for (const g of groups) {
      const [v1, v2] = g.courses!;
      expect(v1!.version).toBe(1);
      expect(Date.parse(v1!.appliedFromUtc)).toBeLessThan(gunOf(g));
      const kinds = v1!.steps.map((s) => s.kind);
      expect(kinds).toEqual(["start", "mark", "gate", "mark", "gate", "finish"]);
      expect(v1!.steps[0]!.marks.map((m) => m.key)).toEqual(["pin", "committee"]);
      expect(v1!.steps[1]!.label).toBe("Windward");
      expect(v1!.steps[1]!.marks.map((m) => m.key)).toEqual(["windward"]);
      expect(v1!.steps[2]!.marks.map((m) => m.key)).toEqual(["gate-port", "gate-stbd"]);
      expect(v1!.steps[5]!.marks).toHaveLength(2);

      expect(v2!.version).toBe(2);
      expect(Date.parse(v2!.appliedFromUtc)).toBeGreaterThan(gunOf(g));
      v1!.steps.forEach((step, k) => {
        const moved = haversineDistanceM(step.marks[0]!, v2!.steps[k]!.marks[0]!);
        if (step.kind === "mark") expect(moved).toBeGreaterThan(200);
        else expect(moved).toBe(0);
      });
    }
  });
});

describe("tracks", () => {
  const allTracks = groups.flatMap((g) => g.tracks!.map((track) => ({ g, track })));

  it("exist for phones only, unapproved entries included", () => {
    for (const g of groups) {
      const tracked = new Set(g.tracks!.map((t) => t.entryId));
      for (const id of g.entryIds) expect(tracked.has(id)).toBe(entriesById.get(id)!.hasPhone !== false);
    }
  });

  it("start 5 minutes before the gun and stay inside the capture window", () => {
    for (const { g, track } of allTracks) {
      expect(track.t[0]!).toBeGreaterThanOrEqual(gunOf(g) - PRESTART_MS);
      expect(track.t[0]!).toBeLessThan(gunOf(g) - PRESTART_MS + 1000);
      expect(track.t[track.t.length - 1]!).toBeLessThan(gunOf(g) + 3 * 3600_000);
    }
  });

  it("are 1 Hz with strictly ascending t, missing seconds now and then, and some null speeds and courses", () => {
    let gaps = 0;
    let nullSog = 0;
    let nullCog = 0;
    for (const { track } of allTracks) {
      let shortestStep = Infinity;
      for (let i = 1; i < track.t.length; i++) {
        const step = track.t[i]! - track.t[i - 1]!;
        shortestStep = Math.min(shortestStep, step);
        if (step > 1500) gaps++;
      }
      expect(shortestStep).toBeGreaterThan(800);
      nullSog += track.sogKn!.filter((v) => v === null).length;
      nullCog += track.cogDeg!.filter((v) => v === null).length;
      expect(track.accuracyM).toHaveLength(track.t.length);
      expect(track.accuracyM!.every((a) => typeof a === "number" && a > 0 && a < 20)).toBe(true);
    }
    expect(gaps).toBeGreaterThan(0);
    expect(nullSog).toBeGreaterThan(0);
    expect(nullCog).toBeGreaterThan(0);
  });

  it("sail at believable speeds", () => {
    for (const { g, track } of allTracks) {
      const racing = track.sogKn!.filter((v, i): v is number => v !== null && track.t[i]! > gunOf(g) + 60_000);
      const sorted = racing.slice().sort((a, b) => a - b);
      const median = sorted[sorted.length >> 1]!;
      expect(median).toBeGreaterThan(4);
      expect(median).toBeLessThan(10);
      expect(sorted[sorted.length - 1]!).toBeLessThan(14);
    }
  });

  it("pass within 50 m of every rounding mark, in course order, for every boat that finishes", () => {
    let checked = 0;
    for (const g of groups) {
      const finishers = new Set(g.finishes!.map((f) => f.entryId));
      for (const track of g.tracks!) {
        if (!finishers.has(track.entryId)) continue;
        const closest = closestApproaches(g, track);
        expect(closest).toHaveLength(4);
        for (const d of closest) expect(d).toBeLessThan(50);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(15);
  });
});

describe("finishes and results", () => {
  it("record phone finishes in time order, each at the end of the boat's track", () => {
    for (const g of groups) {
      const times = g.finishes!.map((f) => Date.parse(f.finishTimeUtc));
      expect(times).toEqual(times.slice().sort((a, b) => a - b));
      for (const f of g.finishes!) {
        const track = g.tracks!.find((t) => t.entryId === f.entryId)!;
        const last = track.t[track.t.length - 1]!;
        const finishMs = Date.parse(f.finishTimeUtc);
        expect(last - finishMs).toBeGreaterThan(20_000);
        expect(last - finishMs).toBeLessThanOrEqual(31_000);
      }
    }
  });

  it("publish provisional results of approved entries: OK ranked by corrected time, points = rank, DNF unranked", () => {
    for (const g of groups) {
      const results = g.results!;
      expect(results.status).toBe("provisional");
      const approved = g.entryIds.filter((id) => entriesById.get(id)!.approved !== false);
      expect(results.rows.map((r) => r.entryId).sort()).toEqual(approved.sort());
      const ok = results.rows.filter((r) => r.status === "OK");
      ok.forEach((row, i) => {
        expect(row.rank).toBe(i + 1);
        expect(row.points).toBe(i + 1);
        if (i > 0) expect(row.correctedSeconds!).toBeGreaterThanOrEqual(ok[i - 1]!.correctedSeconds!);
      });
      for (const row of results.rows.filter((r) => r.status !== "OK")) {
        expect(row.status).toBe("DNF");
        expect(row.rank).toBeNull();
      }
      const lastFinish = Math.max(...g.finishes!.map((f) => Date.parse(f.finishTimeUtc)));
      expect(Date.parse(results.publishedAtUtc)).toBeGreaterThan(lastFinish);
    }
    // The first group has a boat that retires.
    expect(groups[0]!.results!.rows.some((r) => r.status === "DNF")).toBe(true);
  });
});

describe("wind", () => {
  it("is read every 60-120 s from before the gun, as integer directions, some direction-only", () => {
    for (const g of groups) {
      const times = g.wind!.map((w) => Date.parse(w.measuredAtUtc));
      expect(times[0]!).toBeLessThan(gunOf(groups[0]!));
      for (let i = 1; i < times.length; i++) {
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(60_000);
        expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(120_000);
      }
      for (const w of g.wind!) {
        expect(Number.isInteger(w.twd)).toBe(true);
        expect(w.twd).toBeGreaterThanOrEqual(0);
        expect(w.twd).toBeLessThanOrEqual(359);
      }
      expect(g.wind!.some((w) => w.tws === null)).toBe(true);
      expect(g.wind!.some((w) => typeof w.tws === "number" && w.tws > 0)).toBe(true);
    }
  });

  it.each(["simulate-test", 1, 2, 3, "regatta"])("turns >= 10 degrees between two readings in a default race (seed %s)", (seed) => {
    const wind = simulateScenario({ seed, startGroups: 1, boatsPerGroup: 2 }).events[0]!.races[0]!.startGroups[0]!.wind!;
    const turns = wind.slice(1).map((w, i) => Math.abs(angleDifferenceDegrees(wind[i]!.twd, w.twd)));
    expect(Math.max(...turns)).toBeGreaterThanOrEqual(10);
  });
});

describe("live order", () => {
  it("is read every 10-30 s from the gun on", () => {
    for (const g of groups) {
      const times = g.liveOrder!.map((o) => Date.parse(o.asOfUtc));
      expect(times[0]!).toBeGreaterThanOrEqual(gunOf(g) + 10_000);
      expect(times[0]!).toBeLessThanOrEqual(gunOf(g) + 30_000);
      for (let i = 1; i < times.length; i++) {
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(10_000);
        expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(30_000);
      }
      // It runs until the last boat has finished.
      const lastFinish = Math.max(...g.finishes!.map((f) => Date.parse(f.finishTimeUtc)));
      expect(times[times.length - 1]!).toBeGreaterThanOrEqual(lastFinish);
    }
  });

  it("ranks approved entries 1..n, phones only, with deltas growing down the order", () => {
    for (const g of groups) {
      const approved = g.entryIds.filter((id) => entriesById.get(id)!.approved !== false);
      for (const reading of g.liveOrder!) {
        expect(reading.rows.map((r) => r.entryId).sort()).toEqual(approved.slice().sort());
        const ranked = reading.rows.filter((r) => r.rank !== null);
        expect(ranked.map((r) => r.rank)).toEqual(ranked.map((_, i) => i + 1));
        expect(ranked[0]!.deltaSeconds).toBe(0);
        for (let i = 1; i < ranked.length; i++) expect(ranked[i]!.deltaSeconds!).toBeGreaterThanOrEqual(ranked[i - 1]!.deltaSeconds!);
        for (const row of reading.rows) {
          if (entriesById.get(row.entryId)!.hasPhone === false) expect(row.rank).toBeNull();
          if (row.rank !== null) expect(row.correctedSeconds).not.toBeNull();
        }
      }
    }
  });

  it("puts finished boats first by finish time, and they keep their place", () => {
    for (const g of groups) {
      const finishMs = new Map(g.finishes!.map((f) => [f.entryId, Date.parse(f.finishTimeUtc)]));
      const placeKept = new Map<string, number>();
      for (const reading of g.liveOrder!) {
        const asOf = Date.parse(reading.asOfUtc);
        const finished = reading.rows.filter((r) => (finishMs.get(r.entryId) ?? Infinity) <= asOf);
        const byFinish = finished.slice().sort((a, b) => finishMs.get(a.entryId)! - finishMs.get(b.entryId)!);
        expect(finished.map((r) => r.rank)).toEqual(byFinish.map((_, i) => i + 1));
        expect(byFinish.map((r) => r.entryId)).toEqual(
          finished
            .slice()
            .sort((a, b) => a.rank! - b.rank!)
            .map((r) => r.entryId),
        );
        for (const row of finished) {
          const earlier = placeKept.get(row.entryId);
          if (earlier !== undefined) expect(row.rank).toBe(earlier);
          placeKept.set(row.entryId, row.rank!);
          expect(row.elapsedSeconds).toBeCloseTo((finishMs.get(row.entryId)! - gunOf(g)) / 1000, 1);
        }
      }
      expect(placeKept.size).toBeGreaterThan(5);
    }
  });
});

/**
 * For each rounding step (mark or gate) in course order, the closest this track came to
 * one of that step's marks, measured against the course version applied at each fix.
 */
function closestApproaches(g: StartGroup, track: Track): number[] {
  const steps = g.courses![0]!.steps;
  const out: number[] = [];
  let from = track.t.findIndex((t) => t >= gunOf(g));
  for (let k = 0; k < steps.length; k++) {
    if (steps[k]!.kind !== "mark" && steps[k]!.kind !== "gate") continue;
    let best = Infinity;
    let bestAt = from;
    for (let i = from; i < track.t.length; i++) {
      const marks = courseAt(g, track.t[i]!).steps[k]!.marks;
      const d = Math.min(...marks.map((m) => haversineDistanceM(m, { lat: track.lat[i]!, lon: track.lon[i]! })));
      if (d < best) {
        best = d;
        bestAt = i;
      }
      // Past the rounding: well clear again after having been close.
      if (best < 50 && d > 150) break;
    }
    out.push(best);
    from = bestAt;
  }
  return out;
}
