// The request parameters the race reads share (the track, the analytics, the live
// answer at a past moment): a start group id, which may be left out only when the race
// has one group, and times, each refused as the spec says (API_PARAM_INVALID naming it).

import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { isUuid } from "../domain/uuid.js";
import { ApiError } from "../errors/api-error.js";
import type { RaceRecord, StartGroupRecord } from "../store/races.js";

// google.protobuf.Timestamp's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
const MIN_SECONDS = -62_135_596_800n;
const MAX_SECONDS = 253_402_300_799n;

export function invalid(name: string): ApiError {
  return new ApiError("API_PARAM_INVALID", { name });
}

/** A malformed start group id is refused before the race is looked up: it is wrong whatever the race. */
export function checkStartGroupId(startGroupId: string | undefined): void {
  if (startGroupId !== undefined && !isUuid(startGroupId)) throw invalid("startGroupId");
}

/** The requested group; it may be left out only when the race has exactly one. */
export function startGroup(race: RaceRecord, startGroupId: string | undefined): StartGroupRecord {
  if (startGroupId === undefined) {
    if (race.startGroups.length !== 1) throw invalid("startGroupId");
    return race.startGroups[0]!;
  }
  const uuid = startGroupId.toLowerCase();
  const group = race.startGroups.find((g) => g.uuid === uuid);
  if (!group) throw new ApiError("START_GROUP_NOT_FOUND");
  return group;
}

/**
 * Epoch ms of a request time, rounded up to the millisecond. Fix times are whole
 * milliseconds, so [since, until) rounded up holds exactly the fixes the finer bounds hold.
 */
export function epochMs(timestamp: Timestamp | undefined, name: "since" | "until" | "at" | "from"): number | undefined {
  if (timestamp === undefined) return undefined;
  const { seconds, nanos } = timestamp;
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || nanos < 0 || nanos > 999_999_999) throw invalid(name);
  return Number(seconds) * 1000 + Math.ceil(nanos / 1_000_000);
}
