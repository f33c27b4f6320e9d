// The boats a race may show and when each finished: one rule for live, track and
// insights. A boat is an approved entry carrying a phone; its finish is the first phone
// finish recorded for it in that start group.

import type { RowDataPacket } from "mysql2/promise";
import type { Connection, Pool } from "./pool.js";

type Db = Pool | Connection;

/** An approved entry with a phone in one start group: a boat that may be shown. */
export interface GroupBoat {
  startGroupId: number;
  entryId: number;
  uuid: string;
  sailNumber: string;
  boatName: string;
}

/**
 * The start groups' boats: entries approved and carrying a phone. The groups' member
 * ranges first, then each entry by its primary key: STRAIGHT_JOIN keeps
 * that plan on a small table, where the optimiser would otherwise scan entries.
 */
export async function groupBoats(db: Db, startGroupIds: readonly number[]): Promise<GroupBoat[]> {
  if (startGroupIds.length === 0) return [];
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT sge.start_group_id, e.id, e.uuid, e.sail_number, e.boat_name
     FROM start_group_entries sge STRAIGHT_JOIN entries e ON e.id = sge.entry_id
     WHERE sge.start_group_id IN (?) AND e.approved = TRUE AND e.has_phone = TRUE`,
    [startGroupIds],
  );
  return rows.map((row) => ({
    startGroupId: row.start_group_id,
    entryId: row.id,
    uuid: row.uuid,
    sailNumber: row.sail_number,
    boatName: row.boat_name,
  }));
}

/**
 * Each entry's phone finish at or before `asOfMs` per start group, as "group:entry" ->
 * epoch ms. An entry with several recorded finishes finished at the first of them.
 */
export async function phoneFinishes(db: Db, startGroupIds: readonly number[], asOfMs: number): Promise<Map<string, number>> {
  if (startGroupIds.length === 0) return new Map();
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT start_group_id, entry_id, MIN(finish_time) AS finish_time FROM phone_finishes
     WHERE start_group_id IN (?) AND finish_time <= ? GROUP BY start_group_id, entry_id`,
    [startGroupIds, new Date(asOfMs)],
  );
  return new Map(rows.map((row) => [boatKey(row.start_group_id, row.entry_id), (row.finish_time as Date).getTime()]));
}

/** A boat in a start group as a map key: an entry may sail in several groups of a race. */
export function boatKey(startGroupId: number, entryId: number): string {
  return `${startGroupId}:${entryId}`;
}
