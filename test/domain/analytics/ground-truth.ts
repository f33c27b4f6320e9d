// Replays a simulated start group through the analytics core as a service would, and
// measures what it found against the simulator's ground truth: passings, tacks and
// gybes, distance behind the leader and VMG.

import { BoatAnalytics, type BoatSnapshot } from "../../../src/domain/analytics/boat-analytics.js";
import type { Fix } from "../../../src/domain/analytics/kinematics.js";
import { type BoatStanding, type RankedBoat, rankByProgress } from "../../../src/domain/analytics/progress.js";
import type { StartGroup } from "../../../src/domain/scenario.js";
import { type BoatTruth, meanVmgKn, PASSING_RADIUS_M, type StartGroupTruth, type TruthManoeuvre } from "../../../src/sim/index.js";

/** A moment the fleet was looked at: every boat's snapshot and the start group's order. */
export interface Look {
  atMs: number;
  shown: Map<string, BoatSnapshot>;
  ranked: Map<string, RankedBoat>;
}

export interface Replay {
  boats: Map<string, BoatAnalytics>;
  looks: Look[];
}

/**
 * Feeds every tracked boat's fixes in time order, each with the committee reading in
 * force at it; a course version before its first fix; the phone's finish once its time
 * has come. Looks at the fleet at each of `moments` (ascending): snapshots of the boats
 * `inLook` admits, ranked together. `fixesOf` may replace a track's fixes (noise removed).
 */
export function replay(
  group: StartGroup,
  moments: readonly number[],
  inLook: (entryId: string, atMs: number) => boolean,
  fixesOf: (entryId: string, fixes: Fix[]) => Fix[] = (_, fixes) => fixes,
): Replay {
  const windAt = committeeWind(group);
  const courses = (group.courses ?? []).map((c) => ({ fromMs: Date.parse(c.appliedFromUtc), steps: c.steps }));
  const gunMs = Date.parse(group.startTimeUtc!);
  const finishes = new Map((group.finishes ?? []).map((f) => [f.entryId, Date.parse(f.finishTimeUtc)]));
  const feeds = (group.tracks ?? []).map((track) => {
    const fixes = fixesOf(
      track.entryId,
      track.t.map((tMs, i) => ({ tMs, lat: track.lat[i]!, lon: track.lon[i]! })),
    );
    return { entryId: track.entryId, fixes, next: 0, course: 0, finishMs: finishes.get(track.entryId) ?? null, finished: false };
  });
  const boats = new Map(feeds.map((f) => [f.entryId, new BoatAnalytics({ steps: courses[0]!.steps, gunMs })]));

  const feedUntil = (feed: (typeof feeds)[number], untilMs: number, boat: BoatAnalytics): void => {
    for (; feed.next < feed.fixes.length && feed.fixes[feed.next]!.tMs <= untilMs; feed.next++) {
      const fix = feed.fixes[feed.next]!;
      while (feed.course + 1 < courses.length && courses[feed.course + 1]!.fromMs <= fix.tMs) {
        feed.course++;
        boat.changeCourse(courses[feed.course]!.steps);
      }
      recordFinishBy(feed, fix.tMs, boat);
      boat.push(fix, windAt(fix.tMs));
    }
    recordFinishBy(feed, untilMs, boat);
  };
  const recordFinishBy = (feed: (typeof feeds)[number], atMs: number, boat: BoatAnalytics): void => {
    if (feed.finished || feed.finishMs === null || feed.finishMs > atMs) return;
    boat.recordFinish(feed.finishMs);
    feed.finished = true;
  };

  const looks: Look[] = [];
  for (const atMs of moments) {
    const shown = new Map<string, BoatSnapshot>();
    for (const feed of feeds) {
      const boat = boats.get(feed.entryId)!;
      feedUntil(feed, atMs, boat);
      if (inLook(feed.entryId, atMs)) shown.set(feed.entryId, boat.snapshot(atMs, windAt(atMs)));
    }
    const standings: BoatStanding[] = [...shown].map(([entryId, s]) => ({
      entryId,
      progressM: s.progressM,
      finishedAtMs: s.finishedAtMs,
      vmg60Kn: s.vmg60Kn,
    }));
    looks.push({ atMs, shown, ranked: new Map(rankByProgress(standings).map((r) => [r.entryId, r])) });
  }
  for (const feed of feeds) feedUntil(feed, Number.POSITIVE_INFINITY, boats.get(feed.entryId)!);
  return { boats, looks };
}

/** The newest committee reading at or before a moment (the first before any). */
export function committeeWind(group: StartGroup): (atMs: number) => number {
  const times = group.wind!.map((w) => Date.parse(w.measuredAtUtc));
  return (atMs) => {
    let i = 0;
    while (i + 1 < times.length && times[i + 1]! <= atMs) i++;
    return group.wind![i]!.twd;
  };
}

/** Index of the truth sample at a whole second, or -1 outside the boat's samples. */
export function sampleIndex(b: BoatTruth, atMs: number): number {
  const first = b.samples.tMs[0];
  if (first === undefined) return -1;
  const i = Math.floor((atMs - first) / 1000);
  return i >= 0 && i < b.samples.tMs.length ? i : -1;
}

/**
 * The track with its GPS noise taken out: each fix moved to where the boat truly was at
 * its (jittered) time, between the two truth samples around it; fixes outside the
 * samples (before the gun) stay as recorded.
 */
export function withoutNoise(b: BoatTruth, fixes: Fix[]): Fix[] {
  const s = b.samples;
  return fixes.map((fix) => {
    const i = sampleIndex(b, fix.tMs);
    if (i < 0 || i + 1 >= s.tMs.length) return fix;
    const f = (fix.tMs - s.tMs[i]!) / 1000;
    return { tMs: fix.tMs, lat: s.lat[i]! + (s.lat[i + 1]! - s.lat[i]!) * f, lon: s.lon[i]! + (s.lon[i + 1]! - s.lon[i]!) * f };
  });
}

export interface Event {
  kind: string;
  atMs: number;
}

export interface Matching {
  /** Found events matched to a true one, of those inside the window. */
  precision: number;
  /** True events matched to a found one, of those inside the window. */
  recall: number;
  found: number;
  truths: number;
  /** The largest time error of a match, seconds. */
  worstErrorS: number;
  unmatchedFound: Event[];
  unmatchedTruth: Event[];
}

/**
 * Matches found tacks and gybes to true ones one to one, nearest in time first, within
 * `toleranceMs`: by kind, or of either kind where `eitherKind` allows it (near a
 * passing). Precision and recall count the events inside [fromMs, untilMs); an event
 * just outside may still be matched, so the window's edges cost nothing.
 */
export function matchManoeuvres(
  found: readonly Event[],
  truths: readonly TruthManoeuvre[],
  window: { fromMs: number; untilMs: number },
  toleranceMs: number,
  eitherKind: (atMs: number) => boolean,
): Matching {
  const pairs: { f: number; t: number; d: number }[] = [];
  found.forEach((f, fi) => {
    truths.forEach((t, ti) => {
      const d = Math.abs(f.atMs - t.atMs);
      if (d <= toleranceMs && (f.kind === t.kind || eitherKind(t.atMs))) pairs.push({ f: fi, t: ti, d });
    });
  });
  pairs.sort((a, b) => a.d - b.d);
  const foundMatched = new Set<number>();
  const truthMatched = new Set<number>();
  let worstErrorS = 0;
  for (const p of pairs) {
    if (foundMatched.has(p.f) || truthMatched.has(p.t)) continue;
    foundMatched.add(p.f);
    truthMatched.add(p.t);
    worstErrorS = Math.max(worstErrorS, p.d / 1000);
  }
  const inside = (e: Event) => e.atMs >= window.fromMs && e.atMs < window.untilMs;
  const foundIn = found.map((e, i) => ({ e, i })).filter(({ e }) => inside(e));
  const truthIn = truths.map((e, i) => ({ e, i })).filter(({ e }) => inside(e));
  const unmatchedFound = foundIn.filter(({ i }) => !foundMatched.has(i)).map(({ e }) => e);
  const unmatchedTruth = truthIn.filter(({ i }) => !truthMatched.has(i)).map(({ e }) => ({ kind: e.kind, atMs: e.atMs }));
  return {
    precision: foundIn.length === 0 ? 1 : 1 - unmatchedFound.length / foundIn.length,
    recall: truthIn.length === 0 ? 1 : 1 - unmatchedTruth.length / truthIn.length,
    found: foundIn.length,
    truths: truthIn.length,
    worstErrorS,
    unmatchedFound,
    unmatchedTruth,
  };
}

/** The truth's course progress at a moment, between the two samples around it when they lie on one leg under one reading. */
export function trueProgressAt(b: BoatTruth, atMs: number): number | null {
  const s = b.samples;
  const i = sampleIndex(b, atMs);
  if (i < 0) return null;
  const f = (atMs - s.tMs[i]!) / 1000;
  const steady = i + 1 < s.tMs.length && s.legIndex[i + 1] === s.legIndex[i] && s.twdDeg[i + 1] === s.twdDeg[i];
  return steady ? s.progressM[i]! + (s.progressM[i + 1]! - s.progressM[i]!) * f : s.progressM[i]!;
}

/** What the analytics found against the truth, over one start group. */
export interface Measured {
  passings: {
    entryId: string;
    stepIndex: number;
    kind: string;
    trueMs: number;
    foundMs: number | null;
    errorS: number | null;
    excuse: Excuse;
  }[];
  /** Passings the analytics found that the truth has not (before a retirement). */
  extraPassings: number;
  manoeuvres: Matching[];
  distance: { errorM: number; allowedM: number; trueBehindM: number; entryId: string; atMs: number; leg: number | null; leader: string }[];
  distanceExcluded: number;
  vmg: { errorKn: number; kind: string }[];
  vmgExcluded: number;
}

/** Sampling moments from `everyMs` after the gun on, while any boat is sampled. */
export function momentsOf(truth: StartGroupTruth, everyMs: number): number[] {
  const endMs = Math.max(...truth.boats.map((b) => b.samples.tMs.at(-1) ?? 0));
  const moments: number[] = [];
  for (let t = truth.gunMs + everyMs; t <= endMs; t += everyMs) moments.push(t);
  return moments;
}

/**
 * Replays one start group (with the GPS noise taken out when `clean`) and measures it.
 * A boat is looked at from its true start until it finishes or retires.
 */
export function measureGroup(group: StartGroup, truth: StartGroupTruth, options: { clean: boolean; everyMs: number }): Measured {
  const byId = new Map(truth.boats.map((b) => [b.entryId, b]));
  const racing = (id: string, atMs: number) => {
    const b = byId.get(id)!;
    return b.startedAtMs !== null && b.startedAtMs < atMs && sampleIndex(b, atMs) >= 0;
  };
  const { boats, looks } = replay(group, momentsOf(truth, options.everyMs), racing, (id, fixes) =>
    options.clean ? withoutNoise(byId.get(id)!, fixes) : fixes,
  );
  const courseTimes = group.courses!.map((c) => Date.parse(c.appliedFromUtc));
  const measured: Measured = { passings: [], extraPassings: 0, manoeuvres: [], distance: [], distanceExcluded: 0, vmg: [], vmgExcluded: 0 };

  const gunMs = truth.gunMs;
  for (const [entryId, analytics] of boats) {
    const b = byId.get(entryId)!;
    if (b.startedAtMs === null) continue;
    const endMs = b.retiredAtMs ?? Number.POSITIVE_INFINITY;
    const found = analytics.passings.filter((p) => p.atMs < endMs);
    for (const p of b.passings) {
      const f = found.find((q) => q.stepIndex === p.stepIndex);
      measured.passings.push({
        entryId,
        stepIndex: p.stepIndex,
        kind: p.kind,
        trueMs: p.atMs,
        foundMs: f?.atMs ?? null,
        errorS: f ? Math.abs(f.atMs - p.atMs) / 1000 : null,
        excuse: passingExcuse(b, p.atMs, f?.atMs ?? null, p.stepIndex, gunMs, courseTimes),
      });
    }
    measured.extraPassings += found.filter((f) => !b.passings.some((p) => p.stepIndex === f.stepIndex)).length;
    const nearPassing = (atMs: number) => b.passings.some((p) => Math.abs(p.atMs - atMs) < NEAR_PASSING_MS);
    // A manoeuvre is reported 30 s after its end, and a track runs on 30 s past the finish.
    const untilMs = (b.finishedAtMs ?? b.retiredAtMs ?? (b.samples.tMs.at(-1) ?? 0) + 1000) - TRACK_END_MARGIN_MS;
    const tacksAndGybes = analytics.manoeuvres.filter((m) => m.kind !== "penaltyTurn");
    measured.manoeuvres.push(
      matchManoeuvres(tacksAndGybes, b.manoeuvres, { fromMs: b.startedAtMs, untilMs }, MANOEUVRE_TOLERANCE_MS, nearPassing),
    );
  }

  const windTimes = group.wind!.map((w) => Date.parse(w.measuredAtUtc));
  for (const look of looks) {
    const ids = [...look.ranked.keys()];
    if (ids.length === 0) continue;
    // A new reading or course version turns the legs between a boat's newest fix and the
    // moment: the truth at the fix was measured under the old ones.
    const turned = [...windTimes, ...courseTimes].some((t) => t > look.atMs - FRESH_CHANGE_MS && t <= look.atMs);
    // Each boat is judged where it truly was at its newest fix: no analytics can know more.
    const fixMs = (id: string) => look.shown.get(id)!.fixTimeMs!;
    const progress = (id: string) => trueProgressAt(byId.get(id)!, fixMs(id))!;
    const legAgrees = (id: string) => {
      const b = byId.get(id)!;
      return look.shown.get(id)!.legIndex === b.samples.legIndex[sampleIndex(b, fixMs(id))];
    };
    // Within the passing radius of the next step the analytics cap a leg's progress (an
    // overstanding boat is not ahead of one rounding) where the truth does not.
    const clearOfStep = (id: string) => (look.shown.get(id)!.distanceToNextMarkM ?? 0) > PASSING_RADIUS_M;
    const comparable = (id: string) => legAgrees(id) && clearOfStep(id);
    const trueLeader = ids.reduce((a, c) => (progress(c) > progress(a) ? c : a));
    const leader = [...look.ranked.values()].find((r) => r.progressRank === 1)!.entryId;
    for (const id of ids) {
      if (!turned && comparable(id) && comparable(trueLeader) && comparable(leader)) {
        const trueBehindM = progress(trueLeader) - progress(id);
        const errorM = Math.abs(look.ranked.get(id)!.distanceBehindLeaderM! - trueBehindM);
        measured.distance.push({
          errorM,
          allowedM: Math.max(20, 0.05 * trueBehindM),
          trueBehindM,
          entryId: id,
          atMs: look.atMs,
          leg: look.shown.get(id)!.legIndex,
          leader: `${trueLeader.slice(0, 6)}/${leader.slice(0, 6)}`,
        });
      } else measured.distanceExcluded++;

      const b = byId.get(id)!;
      const shown = look.shown.get(id)!;
      const i = sampleIndex(b, fixMs(id));
      const trueVmg = meanVmgKn(b.samples, fixMs(id));
      const s = b.samples;
      let steady = legAgrees(id) && shown.vmgKn !== null && trueVmg !== null && i >= VMG_STEADY_S;
      for (let k = i - VMG_STEADY_S; steady && k <= i; k++) steady = s.legIndex[k] === s.legIndex[i] && s.twdDeg[k] === s.twdDeg[i];
      if (courseTimes.some((c) => c > fixMs(id) - VMG_STEADY_S * 1000 && c <= fixMs(id))) steady = false;
      if (steady) measured.vmg.push({ errorKn: shown.vmgKn! - trueVmg!, kind: s.legKind[i]! });
      else measured.vmgExcluded++;
    }
  }
  return measured;
}

/**
 * Why a passing may miss the 3 s goal through no fault of the rule, or null:
 * - `overEarly`: the boat was over the start line (or beyond its end) after the gun and
 *   came back; GPS error can hide a return of a few metres, so its start may be found
 *   from the gun to its true start.
 * - `alongLine`: the boat was within GPS error of the start line (12 m) all the time
 *   between the true start and the one found: a shallow or slow crossing.
 * - `courseChange`: passed within 2 s of a new course version; the first fix inside may
 *   fall under the other version.
 * - `retiring`: within a minute of retiring; a boat sailing home makes no progress to
 *   the next step, so its last mark is not confirmed.
 */
export type Excuse = "overEarly" | "alongLine" | "courseChange" | "retiring" | null;

function passingExcuse(
  b: BoatTruth,
  trueMs: number,
  foundMs: number | null,
  stepIndex: number,
  gunMs: number,
  courseTimes: number[],
): Excuse {
  if (b.retiredAtMs !== null && b.retiredAtMs - trueMs < 60_000) return "retiring";
  if (courseTimes.some((c) => Math.abs(c - trueMs) <= 2_000)) return "courseChange";
  if (stepIndex !== 1 || foundMs === null) return null;
  const s = b.samples;
  const overEarly = s.tMs.some((t, i) => t >= gunMs && t < trueMs && s.progressM[i]! > 0);
  if (overEarly && foundMs >= gunMs && foundMs <= trueMs + 3_000) return "overEarly";
  const fromI = Math.max(0, sampleIndex(b, Math.min(trueMs, foundMs)));
  const toI = sampleIndex(b, Math.max(trueMs, foundMs));
  if (toI < 0) return null;
  for (let i = fromI; i <= toI; i++) if (Math.abs(s.progressM[i]!) > ALONG_LINE_M) return null;
  return "alongLine";
}

/** Within this of the start line a boat is within GPS error of it (the simulator's noise is about 2.5 m each way). */
const ALONG_LINE_M = 12;

/** Either kind of manoeuvre is allowed this near a passing (decisions.md, "Ground truth from the simulator"). */
export const NEAR_PASSING_MS = 90_000;
/** Tacks and gybes this close to the end of a boat's race are left out: their loss needs track the phone may not send. */
const TRACK_END_MARGIN_MS = 45_000;
/** A found tack or gybe matches a true one within this. */
export const MANOEUVRE_TOLERANCE_MS = 5_000;
/** Distances are not compared this soon after a new reading or course version. */
const FRESH_CHANGE_MS = 15_000;
/** VMG is compared where the leg, the committee reading and the course held for this long before the fix. */
const VMG_STEADY_S = 11;
