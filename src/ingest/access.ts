// Which races and events an ingest client may write, and the checks every ingest
// write shares. One rule: the event's main club is the caller's club and the event is
// not legacy; anything else (unknown, malformed, another club's, a co-host's) is
// RACE_NOT_FOUND or EVENT_NOT_FOUND, as reads answer. Read fresh on the writing
// connection, never from the readers' short-lived caches.

import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Caller } from "../auth/guard.js";
import { COMMIT_DEADLINE_MS, FUTURE_TOLERANCE_MS } from "../domain/fix-rules.js";
import { ApiError } from "../errors/api-error.js";
import {
  findIngestEventForUpdate,
  findIngestRace,
  findIngestRaceGroup,
  lockStartGroup,
  type GroupEntry,
  type IngestEvent,
  type IngestRace,
  type IngestStartGroup,
} from "../store/ingest.js";
import type { Connection } from "../store/pool.js";
import { isUuid } from "../domain/uuid.js";

export async function writableRace(conn: Connection, caller: Caller, raceId: string): Promise<IngestRace> {
  const race = isUuid(raceId) ? await findIngestRace(conn, raceId.toLowerCase()) : null;
  if (!race || !writableBy(race.event, caller)) throw new ApiError("RACE_NOT_FOUND");
  return race;
}

export async function writableEventForUpdate(conn: Connection, caller: Caller, eventId: string): Promise<IngestEvent> {
  const event = isUuid(eventId) ? await findIngestEventForUpdate(conn, eventId.toLowerCase()) : null;
  if (!event || !writableBy(event, caller)) throw new ApiError("EVENT_NOT_FOUND");
  return event;
}

/**
 * A start group of the race, read for update (see lockStartGroup). Unknown is
 * INVALID_ARGUMENT naming startGroupId: the race was found, so the group is what the
 * client got wrong.
 */
export async function startGroupForUpdate(conn: Connection, race: IngestRace, startGroupId: string): Promise<IngestStartGroup> {
  const group = isUuid(startGroupId) ? await lockStartGroup(conn, race.id, startGroupId.toLowerCase()) : null;
  if (!group) throw invalid("startGroupId");
  return group;
}

/**
 * The race and one of its start groups, read without a lock: writableRace and the
 * group's lookup in one statement, with the same answers. With it, those of `entryIds`
 * that are entries of the group, keyed by their lower-case UUID.
 */
export async function writableGroup(
  conn: Connection,
  caller: Caller,
  raceId: string,
  startGroupId: string,
  entryIds: readonly string[] = [],
): Promise<{ race: IngestRace; group: IngestStartGroup; entries: Map<string, GroupEntry> }> {
  if (!isUuid(raceId)) throw new ApiError("RACE_NOT_FOUND");
  // A malformed group id is looked up as "", which no group has: the race still decides first.
  const groupUuid = isUuid(startGroupId) ? startGroupId.toLowerCase() : "";
  const entryUuids = [...new Set(entryIds.map((id) => id.toLowerCase()))];
  const found = await findIngestRaceGroup(conn, raceId.toLowerCase(), groupUuid, entryUuids);
  if (!found || !writableBy(found.race.event, caller)) throw new ApiError("RACE_NOT_FOUND");
  if (!found.group) throw invalid("startGroupId");
  return { race: found.race, group: found.group, entries: found.entries };
}

/**
 * Called last in a transaction that checked a write against the settled edge at
 * `checkedAtMs`: past COMMIT_DEADLINE_MS it rolls back (API_UNAVAILABLE, safe to retry)
 * rather than commit into windows a reader may already serve as immutable. The commit
 * itself comes after this check; the margin holds its slack (fix-rules.ts).
 */
export function beforeCommit(checkedAtMs: number): void {
  if (Date.now() - checkedAtMs > COMMIT_DEADLINE_MS) throw new ApiError("API_UNAVAILABLE");
}

export function invalid(name: string): ApiError {
  return new ApiError("API_PARAM_INVALID", { name });
}

/** A required time of a reading: set, whole milliseconds within the Date range, and not in the future. */
export function readingTime(timestamp: Timestamp | undefined, name: string, nowMs: number): number {
  const ms = anyTime(timestamp, name);
  if (ms > nowMs + FUTURE_TOLERANCE_MS) throw invalid(name);
  return ms;
}

/** A required time that may lie in the future (a planned gun): set and a real date. */
export function anyTime(timestamp: Timestamp | undefined, name: string): number {
  if (timestamp === undefined) throw invalid(name);
  const ms = Number(timestamp.seconds) * 1000 + Math.floor(timestamp.nanos / 1_000_000);
  if (timestamp.nanos < 0 || timestamp.nanos > 999_999_999 || !(ms >= 0 && ms <= 8.64e15)) throw invalid(name);
  return ms;
}

function writableBy(event: IngestEvent, caller: Caller): boolean {
  return event.clubId === caller.clubId && !event.legacy;
}
