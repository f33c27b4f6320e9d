// The boats a start group's track can show, with what bounds each boat's capture
// window: the reads of the track endpoint besides the fixes themselves (fixes.ts).

import type { RowDataPacket } from "mysql2/promise";
import type { Connection, Pool } from "./pool.js";

export interface TrackEntry {
  id: number;
  uuid: string;
  sailNumber: string;
  boatName: string;
  /** The boat's phone finish (its earliest, if several were recorded), epoch ms; null while none. */
  finishMs: number | null;
}

/**
 * The group's approved entries that carry a phone, as the live feed shows them: an
 * unapproved entry's or a phone-less entry's stored fixes are not served. Only public
 * entry fields are read (never entry_private). One row per entry, in no particular order.
 */
export async function trackEntries(db: Pool | Connection, startGroupId: number): Promise<TrackEntry[]> {
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT e.id, e.uuid, e.sail_number, e.boat_name,
       (SELECT MIN(f.finish_time) FROM phone_finishes f WHERE f.start_group_id = m.start_group_id AND f.entry_id = e.id) AS finish_time
     FROM start_group_entries m JOIN entries e ON e.id = m.entry_id
     WHERE m.start_group_id = ? AND e.approved AND e.has_phone`,
    [startGroupId],
  );
  return rows.map((row) => ({
    id: row.id as number,
    uuid: row.uuid as string,
    sailNumber: row.sail_number as string,
    boatName: row.boat_name as string,
    finishMs: row.finish_time ? (row.finish_time as Date).getTime() : null,
  }));
}
