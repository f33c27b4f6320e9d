// GetEventResultsResponse and GetRaceResultsResponse as v1 JSON: every nullable
// field present (null when unset), date-times as ISO 8601 UTC with milliseconds,
// the results status in lower case without its enum prefix.

import {
  ResultStatus,
  type GetEventResultsResponse,
  type GetRaceResultsResponse,
  type RaceResults,
  type StartGroupResults,
} from "../../gen/racing/v1/results_pb.js";
import { dateTime } from "./date-time-json.js";

export function eventResultsJson(response: GetEventResultsResponse): unknown {
  const results = response.eventResults;
  if (!results) throw new Error("GetEventResultsResponse without event_results");
  return { eventId: results.eventId, name: results.name, races: results.races.map(raceResultsJson) };
}

export function raceResultsResponseJson(response: GetRaceResultsResponse): unknown {
  if (!response.raceResults) throw new Error("GetRaceResultsResponse without race_results");
  return raceResultsJson(response.raceResults);
}

function raceResultsJson(race: RaceResults) {
  return {
    raceId: race.raceId,
    eventId: race.eventId,
    raceNo: race.raceNo,
    name: race.name,
    startGroups: race.startGroups.map(startGroupJson),
  };
}

function startGroupJson(group: StartGroupResults) {
  return {
    startGroupId: group.startGroupId,
    name: group.name,
    status: STATUS_NAMES[group.status],
    publishedAtUtc: dateTime(group.publishedAtUtc),
    // A row's JSON is the message's: the schema writes its unset fields as null.
    rows: group.rows,
  };
}

/** The v1 spelling of each status (results.proto); UNSPECIFIED is never sent. */
export const STATUS_NAMES: Record<ResultStatus, string> = {
  [ResultStatus.UNSPECIFIED]: "unspecified",
  [ResultStatus.PROVISIONAL]: "provisional",
  [ResultStatus.FINAL]: "final",
};
