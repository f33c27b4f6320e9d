// GetEventLiveResponse as the v1 JSON of the event live status: every nullable field
// present (null when unset), date-times as ISO 8601 UTC with milliseconds, the start
// group state as stored, without its enum prefix.

import type { GetEventLiveResponse, RaceStatus, StartGroupStatus } from "../../gen/racing/v1/event_pb.js";
import { STATE_NAMES } from "./race-live-json.js";
import { dateTime } from "./date-time-json.js";

export function eventLiveJson(response: GetEventLiveResponse): unknown {
  const live = response.eventLive;
  if (!live) throw new Error("GetEventLiveResponse without event_live");
  return {
    eventId: live.eventId,
    name: live.name,
    startDate: dateTime(live.startDate),
    endDate: dateTime(live.endDate),
    trackingShared: live.trackingShared,
    delaySeconds: live.delaySeconds,
    races: live.races.map(raceJson),
  };
}

function raceJson(race: RaceStatus) {
  return {
    raceId: race.raceId,
    raceNo: race.raceNo,
    name: race.name,
    isLive: race.isLive,
    startGroups: race.startGroups.map(startGroupJson),
  };
}

function startGroupJson(group: StartGroupStatus) {
  return {
    startGroupId: group.startGroupId,
    name: group.name,
    state: STATE_NAMES[group.state],
    startTimeUtc: dateTime(group.startTimeUtc),
    finishTimeUtc: dateTime(group.finishTimeUtc),
  };
}
