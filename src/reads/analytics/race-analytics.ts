// The analytics of a race's start groups at dataAsOf, kept between refreshes so each
// refresh reads and computes only what arrived since the last one (plus the unsettled
// minutes, which late fixes may still change: boat-timeline.ts). After a restart, or
// when something the kept state was computed under changes (the gun, the delay, a wind
// reading, course version or finish before the settled edge), a group is rebuilt from
// the database, five minutes of fixes at a time, read ahead of the computing.

import { LRUCache } from "lru-cache";
import type { BoatSnapshot } from "../../domain/analytics/boat-analytics.js";
import { type RankedLegStats, rankLegs } from "../../domain/analytics/leg-stats.js";
import { type CourseLeg, courseLegs } from "../../domain/analytics/course.js";
import type { Manoeuvre } from "../../domain/analytics/manoeuvres.js";
import { HEADING_SPAN_MS, LONGEST_TURN_MS, LOSS_WINDOW_MS } from "../../domain/analytics/manoeuvres.js";
import type { StepPassing } from "../../domain/analytics/passings.js";
import { rankByProgress } from "../../domain/analytics/progress.js";
import { captureWindow, dataAsOf } from "../../domain/race-time.js";
import type { CourseStep } from "../../domain/scenario.js";
import { readerSlackMs, settledEdge } from "../../domain/track-window.js";
import { courseHistory, windHistory, type WindHistoryRecord } from "../../store/analytics-inputs.js";
import { groupBoats, phoneFinishes, type GroupBoat } from "../../store/boats.js";
import { type FixRange, type TrackPoint, trackPointsInRanges } from "../../store/fixes.js";
import type { Pool } from "../../store/pool.js";
import type { RaceRecord, StartGroupRecord } from "../../store/races.js";
import { BoatTimeline } from "./boat-timeline.js";
import { GroupInputs } from "./group-inputs.js";

export interface AnalyticsBoat {
  boat: GroupBoat;
  snapshot: BoatSnapshot;
  progressRank: number;
  distanceBehindLeaderM: number | null;
  timeBehindLeaderSeconds: number | null;
  /** Each leg the boat started, with its rank and gap at the leg's end. */
  legs: RankedLegStats[];
}

export interface BoatItem<T> {
  boat: GroupBoat;
  item: T;
}

/** A boat's manoeuvres and passings as of the refresh, each oldest first. */
export interface BoatItems {
  boat: GroupBoat;
  manoeuvres: readonly Manoeuvre[];
  passings: readonly StepPassing[];
}

export interface GroupAnalytics {
  group: StartGroupRecord;
  /** The committee reading in force at dataAsOf. */
  wind: WindHistoryRecord | null;
  /** The course in force at dataAsOf, under that wind. */
  legs: CourseLeg[];
  /** Boats with a fix in their window, by progress rank. */
  boats: AnalyticsBoat[];
  /**
   * Every manoeuvre reported and step passing found so far, per boat: copied as the
   * boat's lists stand (a copy of references), never merged or sorted here, so a refresh
   * does not grow with the race; a page picks its window out (itemsIn).
   */
  items: BoatItems[];
  /** Manoeuvres and passings timed before this can no longer appear or change. */
  finalBeforeMs: number;
}

export interface RaceAnalytics {
  dataAsOfMs: number;
  /** In the race's order of start groups. */
  groups: GroupAnalytics[];
}

/** Where a refresh reads: the read pool and how far behind the primary it is. */
export interface ReadSource {
  pool: Pool;
  behindMs: number;
}

/** A rebuild reads this much of a group's fixes per statement, so a 3-hour race never sits in memory as rows. */
export const REBUILD_CHUNK_MS = 5 * 60_000;
/** Chunks read ahead of the one being fed: enough to keep the database busy, few enough to bound memory. */
const REBUILD_READ_AHEAD = 2;
/**
 * A manoeuvre is reported once its loss is known, up to this long after the moment it
 * is timed at (a turn may take 2 minutes, its loss needs 30 s more, its end the span
 * of a steady heading): before the settled edge minus this, no new one can appear.
 */
const MANOEUVRE_REPORT_LAG_MS = LONGEST_TURN_MS + LOSS_WINDOW_MS + 2 * HEADING_SPAN_MS;

/** Kept races: a busy day has a few hundred live; an idle race's state goes after an hour. */
const KEPT_RACES = 500;
const KEPT_MS = 3600_000;

export class AnalyticsEngine {
  private readonly races = new LRUCache<string, RaceState>({ max: KEPT_RACES, ttl: KEPT_MS, updateAgeOnGet: true });

  /** The race's analytics at now minus its delay; one refresh per race at a time. */
  refresh(race: RaceRecord, nowMs: number, source: ReadSource): Promise<RaceAnalytics> {
    let state = this.races.get(race.uuid);
    if (state === undefined) this.races.set(race.uuid, (state = new RaceState()));
    const run = state.last.catch(() => undefined).then(() => state.refresh(race, nowMs, source));
    state.last = run;
    return run;
  }
}

class RaceState {
  last: Promise<unknown> = Promise.resolve();
  private readonly groups = new Map<number, GroupState>();

  async refresh(race: RaceRecord, nowMs: number, source: ReadSource): Promise<RaceAnalytics> {
    const asOfMs = dataAsOf(nowMs, race.event.delaySeconds);
    const slackMs = readerSlackMs(source.behindMs, race.event.delaySeconds, race.event.delayHold, nowMs);
    const edgeMs = Math.min(settledEdge(asOfMs) - slackMs, asOfMs);
    const groups: GroupAnalytics[] = [];
    for (const group of race.startGroups) {
      const key = `${group.gunMs}/${race.event.delaySeconds}`;
      let state = this.groups.get(group.id);
      if (state === undefined || state.key !== key) this.groups.set(group.id, (state = new GroupState(key, group.gunMs)));
      groups.push(await state.refresh(source.pool, group, asOfMs, edgeMs));
    }
    return { dataAsOfMs: asOfMs, groups };
  }
}

class GroupState {
  private timelines = new Map<number, BoatTimeline>();
  /** Every boat's checkpoint holds its fixes before this (exclusive). */
  private settledUntilMs = Number.NEGATIVE_INFINITY;
  /** The heads hold the fixes up to this (inclusive). */
  private headUntilMs = Number.NEGATIVE_INFINITY;
  private inputs: GroupInputs | null = null;

  constructor(
    readonly key: string,
    private readonly gunMs: number | null,
  ) {}

  async refresh(pool: Pool, group: StartGroupRecord, asOfMs: number, edgeMs: number): Promise<GroupAnalytics> {
    const [boats, finishes, winds, courses] = await Promise.all([
      groupBoats(pool, [group.id]),
      phoneFinishes(pool, [group.id], asOfMs),
      windHistory(pool, group.id, asOfMs),
      courseHistory(pool, group.id, asOfMs),
    ]);
    const inputs = new GroupInputs(winds, courses, new Map([...finishes].map(([key, atMs]) => [Number(key.split(":")[1]), atMs])));
    const before = this.inputs;
    // Asked for an earlier moment than the last (another caller's clock): the state holds
    // fixes newer than this answer may show, so it starts again.
    if (asOfMs < this.headUntilMs) this.restart();
    else if (before !== null && before.keyBefore(this.settledUntilMs) !== inputs.keyBefore(this.settledUntilMs)) this.restart();
    const headInputsChanged =
      this.inputs !== null && this.inputs.keyBefore(this.headUntilMs + 1) !== inputs.keyBefore(this.headUntilMs + 1);
    this.inputs = inputs;

    const timelines = new Map<number, BoatTimeline>();
    for (const boat of boats) timelines.set(boat.entryId, this.timelines.get(boat.entryId) ?? new BoatTimeline(this.gunMs));
    this.timelines = timelines;

    const newEdgeMs = Math.max(this.settledUntilMs, edgeMs);
    await this.settle(pool, group.id, boats, newEdgeMs);
    const headFixes = await this.read(pool, group.id, boats, newEdgeMs, asOfMs);
    for (const boat of boats) {
      const finishMs = inputs.finishes.get(boat.entryId) ?? null;
      this.timelines.get(boat.entryId)!.moveHead(headFixes.get(boat.entryId) ?? [], asOfMs, inputs, finishMs, headInputsChanged);
    }
    this.headUntilMs = asOfMs;
    return this.answer(group, boats, asOfMs);
  }

  private restart(): void {
    this.timelines = new Map();
    this.settledUntilMs = Number.NEGATIVE_INFINITY;
    this.headUntilMs = Number.NEGATIVE_INFINITY;
  }

  /** Feeds every boat's checkpoint its fixes up to `edgeMs`, a chunk at a time; a boat new to the group from its window's start. */
  private async settle(pool: Pool, groupId: number, boats: readonly GroupBoat[], edgeMs: number): Promise<void> {
    const fresh = boats.filter((boat) => this.timelines.get(boat.entryId)!.isNew);
    let fromMs = Math.min(this.settledUntilMs, ...fresh.map((boat) => this.window(boat)?.fromMs ?? Number.POSITIVE_INFINITY));
    if (fromMs === Number.NEGATIVE_INFINITY) fromMs = this.gunMs === null ? edgeMs : (captureWindow(this.gunMs)?.fromMs ?? edgeMs);
    // The next chunks are read while this one is fed: the database works while this process computes.
    const reads: Array<{ untilMs: number; fixes: Promise<Map<number, TrackPoint[]>> }> = [];
    const ends = chunkEnds(fromMs, edgeMs, captureWindow(this.gunMs)?.untilMs ?? edgeMs);
    let readFromMs = fromMs;
    const readAhead = () => {
      while (reads.length < REBUILD_READ_AHEAD) {
        const end = ends.next();
        if (end.done) return;
        reads.push({ untilMs: end.value, fixes: this.read(pool, groupId, boats, readFromMs, end.value - 1) });
        readFromMs = end.value;
      }
    };
    readAhead();
    for (let next = reads.shift(); next !== undefined; next = reads.shift()) {
      const fixes = await next.fixes;
      readAhead();
      for (const boat of boats) {
        const timeline = this.timelines.get(boat.entryId)!;
        // A boat already settled to the old edge takes only what lies beyond it.
        const own = (fixes.get(boat.entryId) ?? []).filter((fix) => timeline.isNew || fix.tMs >= this.settledUntilMs);
        timeline.settle(own, next.untilMs, this.inputs!, this.inputs!.finishes.get(boat.entryId) ?? null);
      }
    }
    for (const boat of boats) this.timelines.get(boat.entryId)!.isNew = false;
    this.settledUntilMs = edgeMs;
  }

  private window(boat: GroupBoat) {
    return captureWindow(this.gunMs, this.inputs!.finishes.get(boat.entryId) ?? null);
  }

  /** Each boat's fixes in [fromMs, toMs] inside its capture window, in time order, by entry id. */
  private async read(
    pool: Pool,
    groupId: number,
    boats: readonly GroupBoat[],
    fromMs: number,
    toMs: number,
  ): Promise<Map<number, TrackPoint[]>> {
    const ranges: FixRange[] = [];
    for (const boat of boats) {
      const window = this.window(boat);
      if (window === null) continue;
      const range = { entryId: boat.entryId, fromMs: Math.max(fromMs, window.fromMs), toMs: Math.min(toMs, window.untilMs - 1) };
      if (range.toMs >= range.fromMs) ranges.push(range);
    }
    const byBoat = new Map<number, TrackPoint[]>();
    for (const fix of await trackPointsInRanges(pool, groupId, ranges)) {
      const own = byBoat.get(fix.entryId);
      if (own === undefined) byBoat.set(fix.entryId, [fix]);
      else own.push(fix);
    }
    for (const fixes of byBoat.values()) fixes.sort((a, b) => a.tMs - b.tMs);
    return byBoat;
  }

  private answer(group: StartGroupRecord, boats: readonly GroupBoat[], asOfMs: number): GroupAnalytics {
    const inputs = this.inputs!;
    const wind = inputs.windAt(asOfMs);
    const twdDeg = wind?.twd ?? Number.NaN;
    const course = inputs.courseAt(asOfMs);
    const shown = boats.filter((boat) => this.timelines.get(boat.entryId)!.hasFixes);
    const snapshots = new Map(shown.map((boat) => [boat.entryId, this.timelines.get(boat.entryId)!.current.snapshot(asOfMs, twdDeg)]));
    const ranked = rankByProgress(
      shown.map((boat) => {
        const snapshot = snapshots.get(boat.entryId)!;
        return { entryId: boat.uuid, progressM: snapshot.progressM, finishedAtMs: snapshot.finishedAtMs, vmg60Kn: snapshot.vmg60Kn };
      }),
    );
    const byUuid = new Map(shown.map((boat) => [boat.uuid, boat]));
    const legStats = new Map(
      rankLegs(shown.map((boat) => ({ boat, legs: this.timelines.get(boat.entryId)!.current.legStats(asOfMs) }))).map(({ boat, legs }) => [
        boat.entryId,
        legs,
      ]),
    );
    const items = shown.map((boat) => {
      const analytics = this.timelines.get(boat.entryId)!.current;
      return { boat, manoeuvres: analytics.manoeuvres.slice(), passings: analytics.passings.slice() };
    });
    return {
      group,
      wind,
      legs: course === undefined ? [] : courseLegs(course.steps as CourseStep[], twdDeg),
      boats: ranked.map((standing) => {
        const boat = byUuid.get(standing.entryId)!;
        return {
          boat,
          snapshot: snapshots.get(boat.entryId)!,
          progressRank: standing.progressRank,
          distanceBehindLeaderM: standing.distanceBehindLeaderM,
          timeBehindLeaderSeconds: standing.timeBehindLeaderSeconds,
          legs: legStats.get(boat.entryId)!,
        };
      }),
      items,
      finalBeforeMs: Math.min(
        this.settledUntilMs - MANOEUVRE_REPORT_LAG_MS,
        ...shown.map((boat) => this.timelines.get(boat.entryId)!.settledPendingSinceMs ?? Number.POSITIVE_INFINITY),
      ),
    };
  }
}

/**
 * Where a rebuild's reads from `fromMs` end, in order: a chunk at a time until the group's
 * capture window closes at `closesMs`, then one step to the edge. A race long over is read
 * in the chunks its window holds, not in one per 5 minutes since (12 years of them took
 * 7 s of CPU for a 95-boat group with nothing to read).
 */
export function* chunkEnds(fromMs: number, edgeMs: number, closesMs: number): Generator<number> {
  for (let untilMs = fromMs; untilMs < edgeMs; ) {
    untilMs = untilMs >= closesMs ? edgeMs : Math.min(edgeMs, untilMs + REBUILD_CHUNK_MS);
    yield untilMs;
  }
}

/** The group's manoeuvres or passings timed in [sinceMs, untilMs), each with its boat, in no particular order. */
export function itemsIn<T extends { atMs: number }>(
  items: readonly BoatItems[],
  pick: (boat: BoatItems) => readonly T[],
  sinceMs = Number.NEGATIVE_INFINITY,
  untilMs = Number.POSITIVE_INFINITY,
): BoatItem<T>[] {
  return items.flatMap((boat) =>
    pick(boat).flatMap((item) => (item.atMs >= sinceMs && item.atMs < untilMs ? [{ boat: boat.boat, item }] : [])),
  );
}
