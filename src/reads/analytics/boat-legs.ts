// Each boat's legs so far, from the group's step passings and manoeuvres: when it
// started and ended each leg, its tacks and gybes on it, and its rank and gap to the
// first boat at the leg's end. Interim: distance sailed and the average speeds need
// the boat's fixes, which the domain's per-leg statistics will bring; until then
// they are unknown (null).

import type { GroupAnalytics } from "./race-analytics.js";

export interface BoatLegRecord {
  legIndex: number;
  startedAtMs: number;
  /** Null while the boat is on the leg. */
  endedAtMs: number | null;
  durationSeconds: number;
  distanceSailedM: number | null;
  avgSogKn: number | null;
  avgVmgKn: number | null;
  tacks: number;
  gybes: number;
  /** By the time the leg's end was passed; null while on it. */
  rankAtEnd: number | null;
  behindLegLeaderSeconds: number | null;
}

/** The legs of every boat of `group` by entry uuid, each boat's by leg index. */
export function groupBoatLegs(group: GroupAnalytics, dataAsOfMs: number): Map<string, BoatLegRecord[]> {
  const legs = new Map<string, BoatLegRecord[]>();
  for (const { boat } of group.boats) {
    const passings = group.passings
      .filter((passing) => passing.boat.uuid === boat.uuid)
      .map((passing) => passing.item)
      .sort((a, b) => a.stepIndex - b.stepIndex);
    const manoeuvres = group.manoeuvres.filter((manoeuvre) => manoeuvre.boat.uuid === boat.uuid).map((manoeuvre) => manoeuvre.item);
    const own = passings
      .filter((passing) => passing.stepKind !== "finish")
      .map((passing) => {
        const startedAtMs = passing.atMs;
        const endedAtMs = passings.find((next) => next.stepIndex === passing.stepIndex + 1)?.atMs ?? null;
        const on = manoeuvres.filter((m) => m.atMs >= startedAtMs && (endedAtMs === null || m.atMs < endedAtMs));
        return {
          legIndex: passing.stepIndex,
          startedAtMs,
          endedAtMs,
          durationSeconds: ((endedAtMs ?? dataAsOfMs) - startedAtMs) / 1000,
          distanceSailedM: null,
          avgSogKn: null,
          avgVmgKn: null,
          tacks: on.filter((m) => m.kind === "tack").length,
          gybes: on.filter((m) => m.kind === "gybe").length,
          rankAtEnd: null,
          behindLegLeaderSeconds: null,
        } satisfies BoatLegRecord;
      });
    legs.set(boat.uuid, own);
  }
  rankLegEnds([...legs.values()].flat());
  return legs;
}

/** Each ended leg's rank among the boats that ended the same leg, and its gap to the first of them. */
function rankLegEnds(legs: BoatLegRecord[]): void {
  const ends = new Map<number, number[]>();
  for (const leg of legs) {
    if (leg.endedAtMs === null) continue;
    const times = ends.get(leg.legIndex);
    if (times === undefined) ends.set(leg.legIndex, [leg.endedAtMs]);
    else times.push(leg.endedAtMs);
  }
  for (const leg of legs) {
    if (leg.endedAtMs === null) continue;
    const times = ends.get(leg.legIndex)!;
    const ended = leg.endedAtMs;
    leg.rankAtEnd = 1 + times.filter((t) => t < ended).length;
    leg.behindLegLeaderSeconds = (ended - Math.min(...times)) / 1000;
  }
}
