// What the simulated race committee publishes about the order of boats: the unofficial
// live order every 10-30 s and the provisional results once the race is over.

import type { LiveOrderReading, LiveOrderRow, ResultRow, Results } from "../domain/scenario.js";

/** The part of a sailed boat that ranking needs. */
export interface RankedBoat {
  entryId: string;
  approved: boolean;
  hasPhone: boolean;
  tcf: number;
  finishMs: number | null;
  /** Metres along the course at each live-order reading; NaN when unknown. */
  progressM: Float64Array;
}

export interface LiveOrderInput {
  gunMs: number;
  readingTimesMs: readonly number[];
  /** Course length at each reading (a course change can alter it). */
  totalM: (atMs: number) => number;
  /** The leader's expected average speed along the course, to turn metres into seconds. */
  courseSpeedMs: number;
}

/**
 * The live leaderboard ranks only approved entries, and only from phone data: finished
 * boats by finish time (they keep their place), then racing boats by progress along the
 * rhumb-line legs. Entries with no phone, or retired, have no progress and no rank.
 */
export function liveOrderReadings(boats: readonly RankedBoat[], input: LiveOrderInput): LiveOrderReading[] {
  const listed = boats.filter((b) => b.approved);
  return input.readingTimesMs.map((asOf, j) => {
    const finished: RankedBoat[] = [];
    const racing: RankedBoat[] = [];
    const unranked: RankedBoat[] = [];
    for (const boat of listed) {
      if (!boat.hasPhone) unranked.push(boat);
      else if (boat.finishMs !== null && boat.finishMs <= asOf) finished.push(boat);
      else if (Number.isNaN(boat.progressM[j])) unranked.push(boat);
      else racing.push(boat);
    }
    finished.sort((a, b) => (a.finishMs as number) - (b.finishMs as number));
    racing.sort((a, b) => (b.progressM[j] as number) - (a.progressM[j] as number));

    const totalM = input.totalM(asOf);
    const leaderFinishMs = finished[0]?.finishMs ?? null;
    const leaderProgressM = racing[0]?.progressM[j] ?? 0;
    const rows: LiveOrderRow[] = [];
    for (const boat of finished) {
      const elapsed = ((boat.finishMs as number) - input.gunMs) / 1000;
      rows.push({
        entryId: boat.entryId,
        rank: rows.length + 1,
        elapsedSeconds: round1(elapsed),
        correctedSeconds: round1(elapsed * boat.tcf),
        deltaSeconds: round1(((boat.finishMs as number) - (leaderFinishMs as number)) / 1000),
      });
    }
    for (const boat of racing) {
      const elapsed = (asOf - input.gunMs) / 1000;
      const progress = boat.progressM[j] as number;
      // Time behind the leader, estimated from the distance still to make up.
      const delta =
        leaderFinishMs !== null
          ? (asOf - leaderFinishMs) / 1000 + (totalM - progress) / input.courseSpeedMs
          : (leaderProgressM - progress) / input.courseSpeedMs;
      rows.push({
        entryId: boat.entryId,
        rank: rows.length + 1,
        elapsedSeconds: round1(elapsed),
        correctedSeconds: round1(elapsed * boat.tcf),
        deltaSeconds: round1(Math.max(0, delta)),
      });
    }
    for (const boat of unranked) {
      rows.push({ entryId: boat.entryId, rank: null, elapsedSeconds: null, correctedSeconds: null, deltaSeconds: null });
    }
    return { asOfUtc: new Date(asOf).toISOString(), rows };
  });
}

/**
 * Provisional official results of the approved entries, ranked by corrected time (the
 * handicap decides, unlike the live order). DNF scores entries + 1 points (RRS A5.2).
 */
export function provisionalResults(boats: readonly RankedBoat[], gunMs: number, publishedAtMs: number): Results {
  const scored = boats.filter((b) => b.approved);
  const finishers = scored
    .filter((b) => b.finishMs !== null)
    .map((b) => {
      const elapsed = Math.round(((b.finishMs as number) - gunMs) / 1000);
      return { boat: b, elapsed, corrected: Math.round(elapsed * b.tcf) };
    })
    .sort((a, b) => a.corrected - b.corrected || a.elapsed - b.elapsed);
  const rows: ResultRow[] = finishers.map((f, i) => ({
    entryId: f.boat.entryId,
    rank: i + 1,
    status: "OK",
    elapsedSeconds: f.elapsed,
    correctedSeconds: f.corrected,
    points: i + 1,
  }));
  for (const boat of scored) {
    if (boat.finishMs === null) {
      rows.push({
        entryId: boat.entryId,
        rank: null,
        status: "DNF",
        elapsedSeconds: null,
        correctedSeconds: null,
        points: scored.length + 1,
      });
    }
  }
  return { status: "provisional", publishedAtUtc: new Date(publishedAtMs).toISOString(), rows };
}

function round1(v: number): number {
  return Math.round(v * 10) / 10;
}
