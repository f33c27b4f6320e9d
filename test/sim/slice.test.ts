import { describe, expect, it } from "vitest";
import type { Scenario, StartGroup, Track } from "../../src/domain/scenario.js";
import { groupFinishedAtMs, simulateScenario, sliceScenario } from "../../src/sim/index.js";

const GUN = Date.UTC(2026, 10, 21, 11, 0, 0);
const full = simulateScenario({ seed: "slice-test", gunMs: GUN });
const fullJson = JSON.stringify(full);
const groupsOf = (s: Scenario): StartGroup[] => s.events[0]!.races[0]!.startGroups;
const [first, second] = groupsOf(full) as [StartGroup, StartGroup];
const lastFinishOf = (g: StartGroup) => Math.max(...g.finishes!.map((f) => Date.parse(f.finishTimeUtc)));
const endMs = Math.max(...groupsOf(full).map((g) => Date.parse(g.results!.publishedAtUtc))) + 3600_000;

describe("sliceScenario", () => {
  const a = GUN + 7 * 60_000 + 500;
  const b = GUN + 31 * 60_000;
  const parts = [sliceScenario(full, null, a), sliceScenario(full, a, b), sliceScenario(full, b, endMs)];

  it("splits every track into pieces that join back into the full track", () => {
    groupsOf(full).forEach((group, g) => {
      for (const track of group.tracks!) {
        const pieces = parts.map((p) => groupsOf(p)[g]!.tracks!.find((t) => t.entryId === track.entryId));
        const joined: Track = { entryId: track.entryId, t: [], lat: [], lon: [], sogKn: [], cogDeg: [], accuracyM: [] };
        for (const piece of pieces) {
          if (!piece) continue;
          for (const key of ["t", "lat", "lon", "sogKn", "cogDeg", "accuracyM"] as const) (joined[key] as unknown[]).push(...piece[key]!);
        }
        expect(joined).toEqual(track);
      }
    });
  });

  it("splits readings and finishes the same way", () => {
    groupsOf(full).forEach((group, g) => {
      const pieces = parts.map((p) => groupsOf(p)[g]!);
      expect(pieces.flatMap((p) => p.wind!)).toEqual(group.wind);
      expect(pieces.flatMap((p) => p.liveOrder!)).toEqual(group.liveOrder);
      expect(pieces.flatMap((p) => p.finishes!)).toEqual(group.finishes);
    });
  });

  it("keeps only points in (from, to], and drops tracks with none", () => {
    const piece = sliceScenario(full, a, a + 1000);
    for (const track of groupsOf(piece)[0]!.tracks!) {
      expect(track.t.length).toBeGreaterThan(0);
      for (const t of track.t) {
        expect(t).toBeGreaterThan(a);
        expect(t).toBeLessThanOrEqual(a + 1000);
      }
    }
    const before = sliceScenario(full, null, GUN - 10 * 60_000);
    expect(groupsOf(before)[0]!.tracks).toEqual([]);
  });

  it("puts a point sitting exactly on a boundary in the window it ends, not the next", () => {
    const track = first.tracks![0]!;
    const edge = track.t[100]!;
    const upTo = groupsOf(sliceScenario(full, null, edge))[0]!.tracks!.find((t) => t.entryId === track.entryId)!;
    const after = groupsOf(sliceScenario(full, edge, edge + 5000))[0]!.tracks!.find((t) => t.entryId === track.entryId)!;
    expect(upTo.t[upTo.t.length - 1]).toBe(edge);
    expect(after.t[0]).toBe(track.t[101]);
    const reading = first.liveOrder![3]!;
    const readingMs = Date.parse(reading.asOfUtc);
    expect(groupsOf(sliceScenario(full, null, readingMs))[0]!.liveOrder!.at(-1)).toEqual(reading);
    expect(groupsOf(sliceScenario(full, readingMs, readingMs + 1))[0]!.liveOrder).toEqual([]);
  });

  it("passes club, event, race, entries and start-group metadata through, and leaves the input alone", () => {
    const piece = sliceScenario(full, a, b);
    expect(piece.clubs).toEqual(full.clubs);
    expect(piece.events[0]!.entries).toEqual(full.events[0]!.entries);
    expect(piece.events[0]!.name).toBe(full.events[0]!.name);
    groupsOf(piece).forEach((g, i) => {
      const original = groupsOf(full)[i]!;
      expect([g.id, g.name, g.startTimeUtc, g.entryIds]).toEqual([original.id, original.name, original.startTimeUtc, original.entryIds]);
    });
    expect(JSON.stringify(full)).toBe(fullJson);
  });

  it("shows course versions once applied: all so far from the beginning, new ones after that", () => {
    const v1At = Date.parse(first.courses![0]!.appliedFromUtc);
    const v2At = Date.parse(first.courses![1]!.appliedFromUtc);
    const versions = (s: Scenario) => groupsOf(s)[0]!.courses!.map((c) => c.version);
    expect(versions(sliceScenario(full, null, v1At - 1))).toEqual([]);
    expect(versions(sliceScenario(full, null, v1At))).toEqual([1]);
    expect(versions(sliceScenario(full, null, v2At))).toEqual([1, 2]);
    expect(versions(sliceScenario(full, v1At, v2At))).toEqual([2]);
    expect(versions(sliceScenario(full, v2At, endMs))).toEqual([]);
  });

  it("is Scheduled before the gun, with its start time and without results", () => {
    const g = groupsOf(sliceScenario(full, null, GUN - 1))[0]!;
    expect(g.state).toBe("Scheduled");
    expect(g.startTimeUtc).toBe(first.startTimeUtc);
    expect(g.finishTimeUtc).toBeNull();
    expect(g.results).toBeUndefined();
    expect(g.liveOrder).toEqual([]);
    expect(g.tracks!.length).toBeGreaterThan(0);
  });

  it("is Started from the gun on, each group at its own gun", () => {
    const atFirstGun = groupsOf(sliceScenario(full, null, GUN));
    expect(atFirstGun[0]!.state).toBe("Started");
    expect(atFirstGun[1]!.state).toBe("Scheduled");
    const later = groupsOf(sliceScenario(full, null, Date.parse(second.startTimeUtc!)));
    expect(later.map((g) => g.state)).toEqual(["Started", "Started"]);
    expect(later[0]!.finishTimeUtc).toBeNull();
  });

  it("is Finished from the last finish on, with that finish time, and has results once published", () => {
    const lastFinish = groupFinishedAtMs(first)!;
    expect(lastFinish).toBeGreaterThanOrEqual(lastFinishOf(first));
    expect(groupsOf(sliceScenario(full, null, lastFinish - 1))[0]!.state).toBe("Started");

    const done = groupsOf(sliceScenario(full, null, lastFinish))[0]!;
    expect(done.state).toBe("Finished");
    expect(done.finishTimeUtc).toBe(new Date(lastFinish).toISOString());
    expect(done.results).toBeUndefined();

    const published = Date.parse(first.results!.publishedAtUtc);
    expect(groupsOf(sliceScenario(full, null, published))[0]!.results).toEqual(first.results);
    expect(groupsOf(sliceScenario(full, lastFinish, published))[0]!.results).toEqual(first.results);
    // Results are time-keyed like the rest: a later window does not repeat them.
    expect(groupsOf(sliceScenario(full, published, endMs))[0]!.results).toBeUndefined();
    expect(groupsOf(sliceScenario(full, published, endMs))[0]!.state).toBe("Finished");
  });
});
