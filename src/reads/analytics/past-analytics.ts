// A race's analytics at a past moment (GetRaceAnalytics' `at`): a computation of its
// own, by a fresh engine refreshed once at that moment (it reads the groups' rows from
// each capture window's start up to the moment, five minutes at a time, as after a
// restart), leaving the live engine's state, which only moves forward, alone. Costly,
// so bounded: one computation per race and moment however many ask, at most
// PAST_COMPUTATIONS at once per instance (others wait their turn), and a settled
// moment's result kept, so it is computed once an hour at most.

import { ANALYTICS_MAX_AGE_MS } from "../../caching/cache-policy.js";
import { SharedRead } from "../../caching/shared-read.js";
import { isSettledMoment } from "../../domain/past-moment.js";
import { dataAsOf } from "../../domain/race-time.js";
import { readerSlackMs } from "../../domain/track-window.js";
import type { ReadPools } from "../../store/read-replica.js";
import type { RaceRecord } from "../../store/races.js";
import { AnalyticsRead, readKey } from "./analytics-read.js";
import { AnalyticsEngine } from "./race-analytics.js";

/** Past computations running at once per instance: each holds one race's state and a database connection while it reads. */
export const PAST_COMPUTATIONS = 2;
/** Kept settled moments: each holds every group's boats, legs, manoeuvres and passings up to its moment. */
const KEPT_MOMENTS = 200;
const KEPT_MS = 3600_000;

export interface PastAnalyticsAnswer {
  read: AnalyticsRead;
  /** It can never change: sent immutable, kept. */
  settled: boolean;
}

export class PastAnalytics {
  private readonly kept = new SharedRead<AnalyticsRead>({ name: "analytics_past_settled", ttlMs: KEPT_MS, max: KEPT_MOMENTS });
  private readonly recent = new SharedRead<AnalyticsRead>({
    name: "analytics_past_recent",
    ttlMs: ANALYTICS_MAX_AGE_MS,
    max: 100,
    purgeStale: true,
  });
  private readonly turns = new Turns(PAST_COMPUTATIONS);

  constructor(private readonly reads: ReadPools) {}

  /** The analytics of `race` at `atMs`, a moment before the cut-off at `nowMs`. */
  async at(race: RaceRecord, atMs: number, nowMs: number): Promise<PastAnalyticsAnswer> {
    const source = this.reads.readFrom();
    const cutoffMs = dataAsOf(nowMs, race.event.delaySeconds);
    const slackMs = readerSlackMs(source.behindMs, race.event.delaySeconds, race.event.delayHold, nowMs);
    const settled = isSettledMoment(atMs, cutoffMs, slackMs);
    const compute = () =>
      this.turns.take(async () => {
        // The engine's refresh reads as of its now minus the delay: that is `atMs`.
        const analytics = await new AnalyticsEngine().refresh(race, atMs + race.event.delaySeconds * 1000, source);
        return new AnalyticsRead(race, analytics.dataAsOfMs, analytics.groups);
      });
    const read = await (settled ? this.kept : this.recent).get(`${readKey(race)}/${atMs}`, compute);
    return { read, settled };
  }
}

/** At most `limit` tasks run at once; the others wait in arrival order (no package does only this). */
class Turns {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async take<V>(task: () => Promise<V>): Promise<V> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
