// RaceLiveService.GetRaceLive: the live race feed. Visibility, guard and rate limit
// are decided per request; the answer itself is one shared read per race per 2 s,
// cut once at dataAsOf (now minus the event's delay) and returned as the same message
// object to every caller, so the gateway serialises, hashes and compresses it once.

import { create } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { StartGroupState } from "../../gen/racing/v1/common_pb.js";
import {
  GetRaceLiveResponseSchema,
  type GetRaceLiveResponse,
  RaceLiveService,
  WatchRaceLiveResponseSchema,
} from "../../gen/racing/v1/race_live_pb.js";
import { captureWindow, dataAsOf } from "../domain/race-time.js";
import { compareSailNumbers } from "../domain/sail-number.js";
import type { Pool } from "../store/pool.js";
import { newestFixes, type FixRow, type FixSeek } from "../store/fixes.js";
import { boatKey, groupBoats, phoneFinishes, type GroupBoat } from "../store/boats.js";
import { appliedCourses, newestLiveOrders, newestWind, type LiveOrderRecord } from "../store/race-live.js";
import type { RaceRecord, StartGroupRecord } from "../store/races.js";
import { FEED_ASK_EVERY_MS, Feeds } from "../calls/feeds.js";
import { guarded } from "../calls/guarded.js";
import { guardedStream } from "../calls/guarded-stream.js";
import { STATE_ENUMS } from "../messages/enum-words.js";
import type { ServiceDeps } from "./deps.js";
import { SharedRead } from "../caching/shared-read.js";
import { DATA_AS_OF_HEADER, LIVE_CACHE_CONTROL, LIVE_MAX_AGE_MS } from "../caching/cache-policy.js";

/** One shared read: the answer, and its X-Data-As-Of written once rather than per request. */
interface LiveRead {
  answer: GetRaceLiveResponse;
  dataAsOf: string;
}

export function raceLiveService(deps: ServiceDeps): ServiceImpl<typeof RaceLiveService> {
  // Races polled within the last 2 s; a few hundred live at once is a busy day.
  const reads = new SharedRead<LiveRead>({ name: "live", ttlMs: LIVE_MAX_AGE_MS, max: 1000 });
  const current = (race: RaceRecord) => reads.get(race.uuid, () => readRaceLive(deps.reads.pool(), race, Date.now()));
  // Watchers read through the same shared read as pollers: one read per race per 2 s in all.
  const feeds = new Feeds<GetRaceLiveResponse>({ ...deps.streamTiming, askEveryMs: FEED_ASK_EVERY_MS }, deps.logger);
  return {
    getRaceLive: guarded(deps, RaceLiveService.method.getRaceLive, async (request, caller, context) => {
      // Visibility first, per request: a cached answer is never a reason to show a race.
      const race = await deps.races.trackingRace(caller, request.raceId);
      const { answer, dataAsOf } = await current(race);
      context.responseHeader.set(DATA_AS_OF_HEADER, dataAsOf);
      context.responseHeader.set("cache-control", LIVE_CACHE_CONTROL);
      return answer;
    }),
    watchRaceLive: guardedStream(
      deps,
      RaceLiveService.method.watchRaceLive,
      async (request, caller) => {
        const race = await deps.races.trackingRace(caller, request.raceId);
        const read = async () => {
          const { answer } = await current((await deps.races.race(race.uuid)) ?? race);
          return { id: String(timestampMs(answer.raceLive!.dataAsOf!)), value: answer };
        };
        return feeds.subscribe(race.uuid, read, request.resumeAfter);
      },
      (request, caller) => deps.races.trackingRace(caller, request.raceId),
      (event) =>
        create(WatchRaceLiveResponseSchema, {
          event:
            "value" in event
              ? { case: "live", value: { eventId: event.value.id, raceLive: event.value.value.raceLive } }
              : { case: "heartbeat", value: {} },
        }),
    ),
  };
}

/** One shared read: the race as of now minus its event's delay. */
/** One uncached live read of `race` at `nowMs` (also what bench/live-read-cpu.ts measures). */
export async function readRaceLive(pool: Pool, race: RaceRecord, nowMs: number): Promise<LiveRead> {
  const asOf = dataAsOf(nowMs, race.event.delaySeconds);
  return { answer: await readAnswer(pool, race, asOf), dataAsOf: new Date(asOf).toISOString() };
}

async function readAnswer(pool: Pool, race: RaceRecord, asOf: number): Promise<GetRaceLiveResponse> {
  const groupIds = race.startGroups.map((group) => group.id);
  const [members, finishes, wind, courses, orders] = await Promise.all([
    groupBoats(pool, groupIds),
    phoneFinishes(pool, groupIds, asOf),
    newestWind(pool, groupIds, asOf),
    appliedCourses(pool, groupIds, asOf),
    race.isLive ? newestLiveOrders(pool, groupIds, asOf) : new Map<number, LiveOrderRecord>(),
  ]);

  // Each boat's newest fix inside its own capture window and not after dataAsOf.
  const guns = new Map(race.startGroups.map((group) => [group.id, group.gunMs]));
  const seeks: FixSeek[] = [];
  for (const member of members) {
    const window = captureWindow(guns.get(member.startGroupId) ?? null, finishes.get(boatKey(member.startGroupId, member.entryId)) ?? null);
    if (!window) continue;
    // The seek is inclusive at both ends; the window excludes its end.
    const toMs = Math.min(window.untilMs - 1, asOf);
    if (toMs >= window.fromMs) seeks.push({ startGroupId: member.startGroupId, entryId: member.entryId, fromMs: window.fromMs, toMs });
  }
  const fixes = new Map((await newestFixes(pool, seeks)).map((fix) => [boatKey(fix.startGroupId, fix.entryId), fix]));

  return create(GetRaceLiveResponseSchema, {
    raceLive: {
      raceId: race.uuid,
      eventId: race.event.uuid,
      raceNo: race.raceNo,
      name: race.name,
      isLive: race.isLive,
      delaySeconds: race.event.delaySeconds,
      dataAsOf: timestampFromMs(asOf),
      startGroups: race.startGroups.map((group) => {
        const windReading = wind.find((reading) => reading.startGroupId === group.id);
        const order = orders.get(group.id);
        return {
          startGroupId: group.uuid,
          name: group.name,
          state: stateAsOf(group, asOf),
          startTimeUtc: group.gunMs === null ? undefined : timestampFromMs(group.gunMs),
          finishTimeUtc: group.finishMs !== null && group.finishMs <= asOf ? timestampFromMs(group.finishMs) : undefined,
          courseVersion: courses.get(group.id)?.version ?? 0,
          wind: windReading && {
            twd: windReading.twd,
            tws: windReading.tws ?? undefined,
            measuredAtUtc: timestampFromMs(windReading.measuredAtMs),
          },
          boats: liveBoats(
            members.filter((member) => member.startGroupId === group.id),
            fixes,
          ),
          liveOrder: order && { rows: liveOrderRows(order, finishes) },
          liveOrderAsOf: order && timestampFromMs(order.asOfMs),
          course: (courses.get(group.id)?.steps ?? []).map((step) => ({
            kind: step.kind,
            label: step.label ?? undefined,
            marks: step.marks,
          })),
        };
      }),
    },
  });
}

/** The group's members that have a fix in their window, by sail number in natural order. */
function liveBoats(members: GroupBoat[], fixes: Map<string, FixRow>) {
  return members
    .flatMap((member) => {
      const fix = fixes.get(boatKey(member.startGroupId, member.entryId));
      return fix ? [{ member, fix }] : [];
    })
    .sort((a, b) => compareSailNumbers(a.member.sailNumber, b.member.sailNumber) || a.member.uuid.localeCompare(b.member.uuid))
    .map(({ member, fix }) => ({
      entryId: member.uuid,
      sailNumber: member.sailNumber,
      boatName: member.boatName,
      lat: fix.lat,
      lon: fix.lon,
      sogKn: fix.sogKn ?? undefined,
      cogDeg: fix.cogDeg ?? undefined,
      fixTimeUtc: timestampFromMs(fix.t),
    }));
}

/** By rank, unranked last; equal ranks and the unranked by sail number. A row's finish only once at or before dataAsOf. */
function liveOrderRows(order: LiveOrderRecord, finishes: Map<string, number>) {
  return [...order.rows]
    .sort(
      (a, b) =>
        (a.rank ?? Infinity) - (b.rank ?? Infinity) || compareSailNumbers(a.sailNumber, b.sailNumber) || a.uuid.localeCompare(b.uuid),
    )
    .map((row) => {
      const finishMs = finishes.get(boatKey(order.startGroupId, row.entryId));
      return {
        entryId: row.uuid,
        rank: row.rank ?? undefined,
        elapsedSeconds: row.elapsedSeconds ?? undefined,
        correctedSeconds: row.correctedSeconds ?? undefined,
        deltaSeconds: row.deltaSeconds ?? undefined,
        finishTimeUtc: finishMs === undefined ? undefined : timestampFromMs(finishMs),
      };
    });
}

/**
 * The group's state as a viewer at dataAsOf saw it: a delayed feed does not tell of a
 * gun or a finish it does not show yet. Postponed and Abandoned carry no time, so they
 * are shown as stored.
 */
function stateAsOf(group: StartGroupRecord, asOf: number): StartGroupState {
  const stored = STATE_ENUMS[group.state];
  if (stored !== StartGroupState.STARTED && stored !== StartGroupState.FINISHED) return stored;
  if (group.gunMs !== null && group.gunMs > asOf) return StartGroupState.SCHEDULED;
  if (stored === StartGroupState.FINISHED && group.finishMs !== null && group.finishMs > asOf) return StartGroupState.STARTED;
  return stored;
}
