import { describe, expect, it } from "vitest";
import { BoatAnalytics } from "../../../src/domain/analytics/boat-analytics.js";
import type { Fix } from "../../../src/domain/analytics/kinematics.js";
import { rankByProgress } from "../../../src/domain/analytics/progress.js";
import type { CourseStep } from "../../../src/domain/scenario.js";
import { at, mark, trackThrough } from "./tracks.js";

// A northerly (TWD 0): start line at the bottom, a windward mark 620 m up, finish line
// 100 m above the start, crossed coming down.
const steps: CourseStep[] = [
  { kind: "start", marks: [mark("pin", -100, 0), mark("boat", 100, 0)] },
  { kind: "mark", label: "W", marks: [mark("w", 0, 620)] },
  { kind: "finish", marks: [mark("f1", -100, 100), mark("f2", 100, 100)] },
];
const GUN_MS = 60_000;
const TWD = 0;
// Starts at 80 s, beats at 3 m/s on port (COG 045), tacks at 241 s onto starboard (COG 315),
// rounds the mark and runs down to finish at about 676 s.
const path: [number, number, number][] = [
  [0, 0, -20],
  [100, 0, 5],
  [241, 300, 305],
  [382, 0, 605],
  [400, 0, 640],
  [420, 20, 640],
  [700, 0, 50],
];
const shifted = (seconds: number): [number, number, number][] => path.map(([t, e, n]) => [t + seconds, e, n]);

function feed(boat: BoatAnalytics, fixes: readonly Fix[], untilMs: number): void {
  for (const fix of fixes) if (fix.tMs <= untilMs) boat.push(fix, TWD);
}

describe("BoatAnalytics", () => {
  it("shows a boat on the beat after its tack: leg, kind, speed, course, VMG, TWA and the tack", () => {
    const boat = new BoatAnalytics({ steps, gunMs: GUN_MS });
    feed(boat, trackThrough(path), 300_000);
    const shown = boat.snapshot(300_000, TWD);
    expect(shown.legIndex).toBe(1);
    expect(shown.legKind).toBe("upwind");
    expect(shown.startedAtMs).toBeCloseTo(80_000, -2);
    expect(shown.sogKn!).toBeCloseTo(3 / (1852 / 3600), 1);
    expect(shown.cogDeg!).toBeCloseTo(315, 0);
    expect(shown.twaDeg!).toBeCloseTo(45, 0);
    expect(shown.vmgKn!).toBeCloseTo((3 * Math.SQRT1_2) / (1852 / 3600), 1);
    expect(shown.lastManoeuvre?.kind).toBe("tack");
    expect(Math.abs(shown.lastManoeuvre!.atMs - 241_000)).toBeLessThanOrEqual(5_000);
    const perAxis = (300 / 141) * 59;
    expect(shown.distanceToNextMarkM!).toBeCloseTo(Math.hypot(300 - perAxis, 620 - 305 - perAxis), -1);
    expect(shown.stale).toBe(false);
    // A beat measures along the wind: 305 m up at the tack, then 59 s more up on starboard.
    expect(shown.progressM!).toBeCloseTo(305 + perAxis, -1);
  });

  it("orders two boats and gives the one 30 s behind its distance and time behind", () => {
    const leader = new BoatAnalytics({ steps, gunMs: GUN_MS });
    const chaser = new BoatAnalytics({ steps, gunMs: GUN_MS });
    feed(leader, trackThrough(path), 300_000);
    const chaserFixes = trackThrough(shifted(30));
    chaserFixes.splice(150, 0, { ...at(4000, 4000), tMs: chaserFixes[149]!.tMs + 500 });
    feed(chaser, chaserFixes, 300_000);
    const ranked = rankByProgress([
      { entryId: "chaser", ...chaser.snapshot(300_000, TWD) },
      { entryId: "leader", ...leader.snapshot(300_000, TWD) },
    ]);
    expect(ranked.map((b) => b.entryId)).toEqual(["leader", "chaser"]);
    const behind = ranked[1]!;
    expect(behind.distanceBehindLeaderM!).toBeCloseTo(30 * 3 * Math.SQRT1_2, -1);
    expect(behind.timeBehindLeaderSeconds!).toBeCloseTo(30, -1);
    expect(chaser.snapshot(300_000, TWD).ignoredFixes).toBe(1);
  });

  it("passes the mark, finishes, and is then never stale", () => {
    const boat = new BoatAnalytics({ steps, gunMs: GUN_MS });
    feed(boat, trackThrough(path), 1_000_000);
    expect(boat.passings.map((p) => p.stepKind)).toEqual(["start", "mark", "finish"]);
    const shown = boat.snapshot(2_000_000, TWD);
    expect(shown.legIndex).toBeNull();
    expect(shown.finishedAtMs!).toBeCloseTo(676_300, -3);
    expect(shown.stale).toBe(false);
    expect(shown.distanceToNextMarkM).toBeNull();
  });

  it("marks a racing boat stale 30 s after its newest fix, and takes the phone's finish", () => {
    const boat = new BoatAnalytics({ steps, gunMs: GUN_MS });
    feed(boat, trackThrough(path), 300_000);
    expect(boat.snapshot(330_000, TWD).stale).toBe(false);
    expect(boat.snapshot(330_001, TWD).stale).toBe(true);
    boat.recordFinish(320_000);
    expect(boat.snapshot(400_000, TWD)).toMatchObject({ stale: false, legIndex: null, finishedAtMs: 320_000 });
  });

  it("shows a boat with no fix yet as not started, without progress or speed, and stale", () => {
    const shown = new BoatAnalytics({ steps, gunMs: GUN_MS }).snapshot(100_000, TWD);
    expect(shown).toMatchObject({ legIndex: 0, progressM: null, sogKn: null, vmgKn: null, fixTimeMs: null, stale: true });
  });

  it("gives the same answer fed fix by fix with snapshots between as fed at once", () => {
    const fixes = trackThrough(path);
    const once = new BoatAnalytics({ steps, gunMs: GUN_MS });
    feed(once, fixes, 500_000);
    const stepwise = new BoatAnalytics({ steps, gunMs: GUN_MS });
    for (const fix of fixes.filter((f) => f.tMs <= 500_000)) {
      stepwise.push(fix, TWD);
      stepwise.snapshot(fix.tMs, TWD);
    }
    expect(stepwise.snapshot(500_000, TWD)).toEqual(once.snapshot(500_000, TWD));
    expect(stepwise.manoeuvres).toEqual(once.manoeuvres);
  });
});
