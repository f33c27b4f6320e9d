// The stored state a write is checked against for the settled-window promise
// (domain/settled-window.ts): start groups with their guns and time rules, the boats
// of those groups and of given entries, and which boats have points in given ranges.
// Read on the writing connection, the groups locked as UpdateStartGroup locks them.

import type { RowDataPacket } from "mysql2/promise";
import { EVENT_COLUMNS, eventRecord, type IngestEvent } from "./ingest.js";
import type { Connection } from "./pool.js";

export interface StoredGroup {
  id: number;
  uuid: string;
  raceUuid: string;
  gunMs: number | null;
  event: IngestEvent;
}

/**
 * The listed start groups as stored (UUID lower case -> group), locked for update: no
 * batch of fixes, finish or gun change of them runs until the caller commits.
 */
export async function lockGroups(conn: Connection, groupUuids: readonly string[]): Promise<Map<string, StoredGroup>> {
  if (groupUuids.length === 0) return new Map();
  const [rows] = await conn.query<RowDataPacket[]>(
    `SELECT g.id, g.uuid, g.start_time, r.uuid AS race_uuid, ${EVENT_COLUMNS}
     FROM start_groups g JOIN races r ON r.id = g.race_id JOIN events e ON e.id = r.event_id WHERE g.uuid IN (?) ORDER BY g.id FOR UPDATE`,
    [groupUuids],
  );
  return new Map(
    rows.map((row) => [
      row.uuid as string,
      {
        id: row.id,
        uuid: row.uuid,
        raceUuid: row.race_uuid,
        gunMs: row.start_time ? (row.start_time as Date).getTime() : null,
        event: eventRecord(row),
      },
    ]),
  );
}

/** An entry of a start group's event, as that group shows it (or would). */
export interface StoredBoat {
  groupId: number;
  groupUuid: string;
  gunMs: number;
  event: IngestEvent;
  entryId: number;
  entryUuid: string;
  member: boolean;
  approved: boolean;
  hasPhone: boolean;
  sailNumber: string;
  boatName: string;
  /** Its earliest phone finish in the group; null if none. */
  finishMs: number | null;
}

/**
 * The boats a write may change, in start groups with a gun: every entry of the event
 * of each group in `groupUuids` (members, and those that could become members), and
 * each group membership of the entries in `entryUuids`.
 */
export async function storedBoats(conn: Connection, groupUuids: readonly string[], entryUuids: readonly string[]): Promise<StoredBoat[]> {
  if (groupUuids.length === 0 && entryUuids.length === 0) return [];
  const [rows] = await conn.query<RowDataPacket[]>(
    `SELECT g.id AS group_id, g.uuid AS group_uuid, g.start_time, en.id AS entry_id, en.uuid AS entry_uuid, en.approved, en.has_phone,
       en.sail_number, en.boat_name, sge.entry_id IS NOT NULL AS member, ${EVENT_COLUMNS},
       (SELECT MIN(pf.finish_time) FROM phone_finishes pf WHERE pf.start_group_id = g.id AND pf.entry_id = en.id) AS finish_time
     FROM start_groups g JOIN races r ON r.id = g.race_id JOIN events e ON e.id = r.event_id JOIN entries en ON en.event_id = e.id
     LEFT JOIN start_group_entries sge ON sge.start_group_id = g.id AND sge.entry_id = en.id
     WHERE g.start_time IS NOT NULL AND (g.uuid IN (?) OR (sge.entry_id IS NOT NULL AND en.uuid IN (?))) ORDER BY g.id, en.id`,
    [groupUuids.length > 0 ? groupUuids : [""], entryUuids.length > 0 ? entryUuids : [""]],
  );
  return rows.map((row) => ({
    groupId: row.group_id,
    groupUuid: row.group_uuid,
    gunMs: (row.start_time as Date).getTime(),
    event: eventRecord(row),
    entryId: row.entry_id,
    entryUuid: row.entry_uuid,
    member: Boolean(row.member),
    approved: Boolean(row.approved),
    hasPhone: Boolean(row.has_phone),
    sailNumber: row.sail_number,
    boatName: row.boat_name,
    finishMs: row.finish_time ? (row.finish_time as Date).getTime() : null,
  }));
}

/** A boat's half-open range of sample times. */
export interface BoatRange {
  groupId: number;
  entryId: number;
  fromMs: number;
  untilMs: number;
}

/** Which of the ranges hold at least one stored fix (their indexes): one seek each, in one statement per 200. */
export async function rangesWithFixes(conn: Connection, ranges: readonly BoatRange[]): Promise<Set<number>> {
  const found = new Set<number>();
  for (let from = 0; from < ranges.length; from += 200) {
    const part = ranges.slice(from, from + 200);
    const [rows] = await conn.query<RowDataPacket[]>(
      part
        .map(
          () => "SELECT ? AS i FROM DUAL WHERE EXISTS (SELECT 1 FROM fixes WHERE start_group_id = ? AND entry_id = ? AND t >= ? AND t < ?)",
        )
        .join(" UNION ALL "),
      part.flatMap((range, k) => [from + k, range.groupId, range.entryId, range.fromMs, range.untilMs]),
    );
    for (const row of rows) found.add(Number(row.i));
  }
  return found;
}
