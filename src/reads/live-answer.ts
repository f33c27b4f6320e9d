// The race live answer at one cut-off (dataAsOf): each boat's newest fix in its capture
// window up to it, the wind, course and live order in force then, and the groups' states
// as a viewer saw them. Read for now minus the delay (the live read) and for a past
// moment (past-live.ts) alike.

import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { StartGroupState } from "../../gen/racing/v1/common_pb.js";
import { GetRaceLiveResponseSchema, type GetRaceLiveResponse } from "../../gen/racing/v1/race_live_pb.js";
import { captureWindow, dataAsOf } from "../domain/race-time.js";
import { compareSailNumbers } from "../domain/sail-number.js";
import type { Pool } from "../store/pool.js";
import { newestFixes, type FixRow, type FixSeek } from "../store/fixes.js";
import { boatKey, groupBoats, phoneFinishes, type GroupBoat } from "../store/boats.js";
import { appliedCourses, newestLiveOrders, newestWind, type LiveOrderRecord } from "../store/race-live.js";
import type { RaceRecord, StartGroupRecord } from "../store/races.js";
import { STATE_ENUMS } from "../messages/enum-words.js";

/** One read: the answer, and its X-Data-As-Of written once rather than per request. */
export interface LiveRead {
  answer: GetRaceLiveResponse;
  dataAsOf: string;
}

/** One uncached live read of `race` at `nowMs` (also what bench/live-read-cpu.ts measures). */
export function readRaceLive(pool: Pool, race: RaceRecord, nowMs: number): Promise<LiveRead> {
  return readLiveAt(pool, race, dataAsOf(nowMs, race.event.delaySeconds));
}

/** One uncached read of `race` as of `asOf`: now minus the delay, or a past moment. */
export async function readLiveAt(pool: Pool, race: RaceRecord, asOf: number): Promise<LiveRead> {
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
