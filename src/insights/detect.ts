// Detection of the commentary feed's facts (the five kinds of the spec) for one start
// group over one detection window, from plain data the caller has read. Pure, no I/O.
//
// The window is (fromMs, toMs]: an event at exactly `fromMs` belongs to the previous
// window, one at `toMs` (= dataAsOf) to this one, and nothing after `toMs` is read. A mark
// rounding is the analytics' passing timed in the window, once they know it (a generation
// looks again at windows it covered before: generator.ts).
// Every fact's id comes from what happened (factId), never from the window, so the same
// event seen from overlapping windows keeps its id.

import type { DetectionInput, LiveOrderData, WindData } from "../domain/detection-input.js";
import { INSIGHT_KINDS, NO_DETAILS, type BoatRef, type Fact, type InsightKind } from "../domain/facts.js";
import { angleDifferenceDegrees, normalizeDegrees } from "../domain/geo.js";
import { factId } from "./fact-id.js";
import { compareStrings, detectRoundings } from "./roundings.js";

export { ROUNDINGS_PER_MARK } from "./roundings.js";

/** The spec's detection window: the 5 minutes before dataAsOf. */
export const DETECTION_WINDOW_MS = 5 * 60_000;
export const MIN_PLACES_GAINED = 2;
/** At most this many gains per detection: the largest. */
export const GAINS_PER_DETECTION = 3;
/** One gain per boat per bucket of this length (bucket = floor(atMs / GAIN_BUCKET_MS)). */
export const GAIN_BUCKET_MS = 5 * 60_000;
export const WIND_SHIFT_MIN_DEG = 10;
export const WIND_CHANGE_MIN_KN = 3;
/**
 * The group's facts with `fromMs < atMs <= toMs`: newest first, then by kind in the
 * spec's order (leadChange, markRounding, gain, finish, windShift), then by id; each id
 * once. The same input always gives the same facts.
 */
export function detectFacts(input: DetectionInput): Fact[] {
  const orders = input.liveOrders.slice(
    0,
    upperBoundBy(input.liveOrders, input.toMs, (o) => o.asOfMs),
  );
  const found = [
    ...leadChanges(input, orders),
    ...gains(input, orders),
    ...roundings(input),
    ...finishes(input, orders),
    ...windShifts(input),
  ];
  return [...new Map(found.map((f) => [f.id, f])).values()].sort(newestFirst);
}

const KIND_ORDER = new Map<InsightKind, number>(INSIGHT_KINDS.map((k, i) => [k, i]));

/** Newest first, then by kind in the spec's order, then by id. */
function newestFirst(a: Fact, b: Fact): number {
  return b.atMs - a.atMs || (KIND_ORDER.get(a.kind) as number) - (KIND_ORDER.get(b.kind) as number) || compareStrings(a.id, b.id);
}

/**
 * The lead changed hands: a reading in the window none of whose rank-1 boats held rank 1
 * in the previous reading that had a leader. A tie forming or resolving at the top is
 * not a change; of several boats sharing first place, the smallest entry id is named.
 */
function leadChanges(input: DetectionInput, orders: readonly LiveOrderData[]): Fact[] {
  const facts: Fact[] = [];
  let previous: { reading: LiveOrderData; leader: string } | null = null;
  for (const reading of orders) {
    const leader = leaderOf(reading);
    if (leader === null) continue;
    if (previous !== null && reading.asOfMs > input.fromMs && !holdsLead(reading, previous.reading)) {
      const fact = makeFact(input, "leadChange", reading.asOfMs, [leader, previous.leader]);
      if (fact) facts.push(fact);
    }
    previous = { reading, leader };
  }
  return facts;
}

function leaderOf(reading: LiveOrderData): string | null {
  let leader: string | null = null;
  for (const [entryId, rank] of reading.ranks) {
    if (rank === 1 && (leader === null || entryId < leader)) leader = entryId;
  }
  return leader;
}

/** Whether a rank-1 boat of `reading` held rank 1 in `before` too. */
function holdsLead(reading: LiveOrderData, before: LiveOrderData): boolean {
  for (const [entryId, rank] of reading.ranks) {
    if (rank === 1 && before.ranks.get(entryId) === 1) return true;
  }
  return false;
}

/**
 * Boats at least `MIN_PLACES_GAINED` places up from the baseline reading (the newest at
 * or before `fromMs`) to the newest reading in the window; the `GAINS_PER_DETECTION`
 * largest, ties by better current place, then entry id. No baseline, no gains.
 *
 * `atMs` is the newest reading's time, but the id is keyed on its 5-minute bucket (the
 * bucket's start as the identity's time, plus the bucket): every detection whose newest
 * reading falls in the same bucket names the same boat's gain with the same id, however
 * the window slid and whatever the count, so the feed shows one gain per boat per bucket.
 */
function gains(input: DetectionInput, orders: readonly LiveOrderData[]): Fact[] {
  const now = orders[orders.length - 1];
  const baseline = orders[upperBoundBy(orders, input.fromMs, (o) => o.asOfMs) - 1];
  if (!now || !baseline || now.asOfMs <= input.fromMs) return [];

  const qualifying: { entryId: string; rank: number; gained: number }[] = [];
  for (const [entryId, rank] of now.ranks) {
    const before = baseline.ranks.get(entryId);
    if (rank == null || before == null || before - rank < MIN_PLACES_GAINED || !input.boats.has(entryId)) continue;
    qualifying.push({ entryId, rank, gained: before - rank });
  }
  qualifying.sort((a, b) => b.gained - a.gained || a.rank - b.rank || compareStrings(a.entryId, b.entryId));

  const bucket = Math.floor(now.asOfMs / GAIN_BUCKET_MS);
  return qualifying.slice(0, GAINS_PER_DETECTION).flatMap((g) => {
    const fact = makeFact(input, "gain", now.asOfMs, [g.entryId], { bucket, rank: g.rank, placesGained: g.gained });
    return fact ? [fact] : [];
  });
}

/**
 * The mark roundings alone: the analytics' passings of marks and gates timed in the
 * window (roundings.ts), each a fact at the passing's time, in the order of detectFacts.
 */
export function detectMarkRoundings(input: DetectionInput): Fact[] {
  return roundings(input).sort(newestFirst);
}

function roundings(input: DetectionInput): Fact[] {
  return detectRoundings(input.passings, input.courses, input.fromMs, input.toMs, (id) => input.boats.has(id)).flatMap((r) => {
    const fact = makeFact(input, "markRounding", r.atMs, [r.entryId], { markLabel: r.markLabel });
    return fact ? [fact] : [];
  });
}

/** Phone finishes in the window, with the boat's place in the newest reading at or before `toMs`. */
function finishes(input: DetectionInput, orders: readonly LiveOrderData[]): Fact[] {
  const newest = orders[orders.length - 1];
  const facts: Fact[] = [];
  for (const f of input.finishes) {
    if (f.finishMs <= input.fromMs || f.finishMs > input.toMs) continue;
    const fact = makeFact(input, "finish", f.finishMs, [f.entryId], { rank: newest?.ranks.get(f.entryId) ?? null });
    if (fact) facts.push(fact);
  }
  return facts;
}

/**
 * A committee reading in the window that turned at least `WIND_SHIFT_MIN_DEG` (smallest
 * angle, across north) or changed at least `WIND_CHANGE_MIN_KN` against the reading just
 * before it; speed is compared only when both readings have one.
 */
function windShifts(input: DetectionInput): Fact[] {
  const facts: Fact[] = [];
  const end = upperBoundBy(input.wind, input.toMs, (w) => w.measuredAtMs);
  for (
    let i = Math.max(
      1,
      upperBoundBy(input.wind, input.fromMs, (w) => w.measuredAtMs),
    );
    i < end;
    i++
  ) {
    const before = input.wind[i - 1] as WindData;
    const after = input.wind[i] as WindData;
    const turnDeg = Math.abs(angleDifferenceDegrees(before.twd, after.twd));
    const changeKn = before.tws !== null && after.tws !== null ? Math.abs(after.tws - before.tws) : 0;
    // The epsilon keeps 5.2 -> 8.2 (2.999... in binary) a 3-knot change.
    if (turnDeg < WIND_SHIFT_MIN_DEG - 1e-9 && changeKn < WIND_CHANGE_MIN_KN - 1e-9) continue;
    const fact = makeFact(input, "windShift", after.measuredAtMs, [], {
      twdFrom: wholeDegrees(before.twd),
      twdTo: wholeDegrees(after.twd),
      twsFrom: before.tws,
      twsTo: after.tws,
    });
    if (fact) facts.push(fact);
  }
  return facts;
}

/** The spec's int degrees 0-359. */
function wholeDegrees(deg: number): number {
  return Math.round(normalizeDegrees(deg)) % 360;
}

type FactDetails = Partial<Pick<Fact, "markLabel" | "rank" | "placesGained" | "twdFrom" | "twdTo" | "twsFrom" | "twsTo">> & {
  bucket?: number;
};

/** The fact with its id, or null when a boat is not one of the group's. */
function makeFact(input: DetectionInput, kind: InsightKind, atMs: number, entryIds: string[], details: FactDetails = {}): Fact | null {
  const boats: BoatRef[] = [];
  for (const entryId of entryIds) {
    const boat = input.boats.get(entryId);
    if (!boat) return null;
    boats.push({ entryId, sailNumber: boat.sailNumber, boatName: boat.boatName });
  }
  const { bucket, ...fields } = details;
  const id =
    bucket === undefined
      ? factId({ raceId: input.raceId, startGroupId: input.startGroupId, kind, entryIds, atMs })
      : factId({ raceId: input.raceId, startGroupId: input.startGroupId, kind, entryIds, atMs: bucket * GAIN_BUCKET_MS, bucket });
  return {
    id,
    kind,
    startGroupId: input.startGroupId,
    startGroupName: input.startGroupName,
    atMs,
    boats,
    ...NO_DETAILS,
    ...fields,
  };
}

/** The first index whose time is after `value` (items ascending by time). */
function upperBoundBy<T>(items: readonly T[], value: number, timeOf: (item: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timeOf(items[mid] as T) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
