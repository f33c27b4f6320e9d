// GetRaceLiveResponse as the spec's race live object: every field of the spec's
// tables in their order, every nullable field present (null when unset), date-times
// as ISO 8601 UTC with milliseconds, the start group state without its enum prefix.

import { StartGroupState } from "../../gen/racing/v1/common_pb.js";
import type { GetRaceLiveResponse, LiveBoat, RaceLive, LiveOrderRow, StartGroupLive, Wind } from "../../gen/racing/v1/race_live_pb.js";
import { dateTime } from "./date-time-json.js";

export function raceLiveJson(response: GetRaceLiveResponse): unknown {
  if (!response.raceLive) throw new Error("GetRaceLiveResponse without race_live");
  return raceLiveObjectJson(response.raceLive);
}

/** The race live object itself: the polled body, and each event of the live stream. */
export function raceLiveObjectJson(live: RaceLive): unknown {
  return {
    raceId: live.raceId,
    eventId: live.eventId,
    raceNo: live.raceNo,
    name: live.name,
    isLive: live.isLive,
    delaySeconds: live.delaySeconds,
    dataAsOf: dateTime(live.dataAsOf),
    startGroups: live.startGroups.map(startGroupJson),
  };
}

function startGroupJson(group: StartGroupLive) {
  return {
    startGroupId: group.startGroupId,
    name: group.name,
    state: STATE_NAMES[group.state],
    startTimeUtc: dateTime(group.startTimeUtc),
    finishTimeUtc: dateTime(group.finishTimeUtc),
    courseVersion: group.courseVersion,
    wind: group.wind ? windJson(group.wind) : null,
    boats: group.boats.map(boatJson),
    liveOrder: group.liveOrder ? group.liveOrder.rows.map(orderRowJson) : null,
    liveOrderAsOf: dateTime(group.liveOrderAsOf),
    course: group.course.map((step) => ({
      kind: step.kind,
      label: step.label ?? null,
      marks: step.marks.map(({ key, lat, lon }) => ({ key, lat, lon })),
    })),
  };
}

// Wind, boats and order rows are their messages' fields as they are (the schema writes
// unset ones as null), but for the times.

function windJson(wind: Wind) {
  return { ...wind, measuredAtUtc: dateTime(wind.measuredAtUtc) };
}

function boatJson(boat: LiveBoat) {
  return { ...boat, fixTimeUtc: dateTime(boat.fixTimeUtc) };
}

function orderRowJson(row: LiveOrderRow) {
  return { ...row, finishTimeUtc: dateTime(row.finishTimeUtc) };
}

/** The v1 spelling of each state (common.proto); UNSPECIFIED is never sent. */
export const STATE_NAMES: Record<StartGroupState, string> = {
  [StartGroupState.UNSPECIFIED]: "Unspecified",
  [StartGroupState.SCHEDULED]: "Scheduled",
  [StartGroupState.STARTED]: "Started",
  [StartGroupState.FINISHED]: "Finished",
  [StartGroupState.POSTPONED]: "Postponed",
  [StartGroupState.ABANDONED]: "Abandoned",
};
