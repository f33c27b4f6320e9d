// One boat's analytics through a refreshing race: a checkpoint fed only with settled
// fixes (before the settled edge no fix can still arrive), and a head that goes on from
// it to dataAsOf. Fixes in the last unsettled minutes may still arrive late; a head that
// missed one is rebuilt from a copy of the checkpoint, so every instance, and a restart,
// ends at the same answer, while a refresh without late fixes costs only the new ones.

import type { CourseStep } from "../../domain/scenario.js";
import { BoatAnalytics } from "../../domain/analytics/boat-analytics.js";
import type { TrackPoint } from "../../store/fixes.js";
import type { GroupInputs } from "./group-inputs.js";

/** A boat's analytics with what it has been fed. */
interface FedState {
  analytics: BoatAnalytics;
  /** Index of the course version applied last, -1 before the first. */
  courseIndex: number;
  finishRecorded: boolean;
}

export class BoatTimeline {
  private readonly settled: FedState;
  /** The head and the times of the fixes it holds from the settled edge on, in order; null: rebuild. */
  private head: { state: FedState; times: number[] } | null = null;
  /** Fixes settled since the head was last moved: the head may not hold them all yet. */
  private settledSinceHead: TrackPoint[] = [];
  /** Whether the boat has any fix in its window so far (kept or not). */
  hasFixes = false;
  /** Not settled yet: its first settle reads from its window's start. */
  isNew = true;

  constructor(gunMs: number | null) {
    this.settled = { analytics: new BoatAnalytics({ steps: [], gunMs }), courseIndex: -1, finishRecorded: false };
  }

  /** Feeds the checkpoint the boat's next settled fixes, in time order, and its finish once it is settled too. */
  settle(fixes: readonly TrackPoint[], edgeMs: number, inputs: GroupInputs, finishMs: number | null): void {
    for (const fix of fixes) feed(this.settled, fix, inputs);
    if (finishMs !== null && finishMs < edgeMs) recordFinish(this.settled, finishMs);
    if (fixes.length > 0) this.hasFixes = true;
    if (this.head !== null) this.settledSinceHead.push(...fixes);
  }

  /**
   * Moves the head to `asOfMs` with `headFixes`, all the boat's fixes from the settled
   * edge to dataAsOf. It goes on from where it was when the fixes it held are still the
   * first stored ones; otherwise (a fix came late, or `inputsChanged`: a wind reading,
   * course version or finish now lies inside what it was fed) it is rebuilt from a copy
   * of the checkpoint.
   */
  moveHead(headFixes: readonly TrackPoint[], asOfMs: number, inputs: GroupInputs, finishMs: number | null, inputsChanged: boolean): void {
    const stored = [...this.settledSinceHead, ...headFixes];
    const kept = this.head !== null && !inputsChanged && heldAreStored(this.head.times, stored) ? this.head : null;
    const head = kept ?? { state: copy(this.settled), times: this.settledSinceHead.map((fix) => fix.tMs) };
    for (const fix of stored.slice(head.times.length)) feed(head.state, fix, inputs);
    head.times = headFixes.map((fix) => fix.tMs);
    if (finishMs !== null && finishMs <= asOfMs) recordFinish(head.state, finishMs);
    if (headFixes.length > 0) this.hasFixes = true;
    this.head = head;
    this.settledSinceHead = [];
  }

  /** Where a passing still unconfirmed in the checkpoint would be timed: nothing before it is final. */
  get settledPendingSinceMs(): number | null {
    return this.settled.analytics.pendingPassingSinceMs;
  }

  /** The boat's analytics at the last move of its head. */
  get current(): BoatAnalytics {
    return (this.head?.state ?? this.settled).analytics;
  }
}

/**
 * Whether the fixes the head holds are still the first stored ones: no fix came late
 * among them. One stored after the head's newest is simply fed next, in order.
 */
function heldAreStored(held: readonly number[], stored: readonly TrackPoint[]): boolean {
  if (stored.length < held.length) return false;
  return held.every((t, i) => stored[i]!.tMs === t);
}

function feed(state: FedState, fix: TrackPoint, inputs: GroupInputs): void {
  for (;;) {
    const next = inputs.courses[state.courseIndex + 1];
    if (next === undefined || next.appliedFromMs > fix.tMs) break;
    state.courseIndex += 1;
    state.analytics.changeCourse(next.steps as CourseStep[]);
  }
  // The row itself is the fix (its columns are named so): no copy of a million rows.
  state.analytics.push(fix, inputs.twdAt(fix.tMs));
}

function recordFinish(state: FedState, finishMs: number): void {
  if (state.finishRecorded) return;
  state.analytics.recordFinish(finishMs);
  state.finishRecorded = true;
}

function copy(state: FedState): FedState {
  return { analytics: state.analytics.clone(), courseIndex: state.courseIndex, finishRecorded: state.finishRecorded };
}
