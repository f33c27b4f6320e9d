// The race live answer at a past moment (GetRaceLive's `at`, and every state of a
// replay): one read per race and moment however many ask at once. A settled moment's
// answer can never change, so it is kept (bounded by the boats it holds, an hour at
// most) and every later caller, and every replay viewer passing that moment, gets the
// same message, whose bytes, ETag and SSE frame are then made once.

import { LIVE_MAX_AGE_MS } from "../caching/cache-policy.js";
import { SharedRead } from "../caching/shared-read.js";
import { isSettledMoment } from "../domain/past-moment.js";
import { dataAsOf } from "../domain/race-time.js";
import { readerSlackMs } from "../domain/track-window.js";
import type { ReadPools } from "../store/read-replica.js";
import type { RaceRecord } from "../store/races.js";
import { type LiveRead, readLiveAt } from "./live-answer.js";

/**
 * Kept settled answers hold at most this many boats in all: 2,000 moments (67 minutes
 * of a replay's 2-second grid) of a 100-boat race. Measured (bench/replay.ts): 0.55 KiB
 * of heap a boat, its SSE frame included, so about 110 MB at most.
 */
export const KEPT_BOATS = 200_000;
/** A kept answer is read again after an hour, as a client's copy expires: what it shows from the race record may have changed. */
export const KEPT_MS = 3600_000;

export interface PastAnswer {
  read: LiveRead;
  /** It can never change: sent immutable, kept. */
  settled: boolean;
}

export class PastLive {
  private readonly kept = new SharedRead<LiveRead>({
    name: "live_past_settled",
    ttlMs: KEPT_MS,
    maxSize: { total: KEPT_BOATS, sizeOf: (read) => 1 + read.answer.raceLive!.startGroups.reduce((n, group) => n + group.boats.length, 0) },
  });
  // Moments within 2 minutes of the cut-off may still change: shared for 2 s, as the live read.
  private readonly recent = new SharedRead<LiveRead>({ name: "live_past_recent", ttlMs: LIVE_MAX_AGE_MS, max: 10_000, purgeStale: true });

  constructor(private readonly reads: ReadPools) {}

  /** The answer of `race` at `atMs`, a moment before the cut-off at `nowMs`. */
  async at(race: RaceRecord, atMs: number, nowMs: number): Promise<PastAnswer> {
    const source = this.reads.readFrom();
    const cutoffMs = dataAsOf(nowMs, race.event.delaySeconds);
    const slackMs = readerSlackMs(source.behindMs, race.event.delaySeconds, race.event.delayHold, nowMs);
    const settled = isSettledMoment(atMs, cutoffMs, slackMs);
    const key = `${answerKey(race)}/${atMs}`;
    const read = await (settled ? this.kept : this.recent).get(key, () => readLiveAt(source.pool, race, atMs));
    return { read, settled };
  }
}

/** What the answer takes from the race record besides the time: a change makes a new answer rather than serving the old one. */
function answerKey(race: RaceRecord): string {
  const groups = race.startGroups.map((group) => [group.uuid, group.name, group.state, group.gunMs, group.finishMs]);
  return JSON.stringify([race.uuid, race.event.uuid, race.raceNo, race.name, race.isLive, race.event.delaySeconds, groups]);
}
