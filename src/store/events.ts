// Events as a club sees them: its own and those it co-hosts, published and not
// legacy, in the one fixed order of the events list.

import type { RowDataPacket } from "mysql2/promise";
import type { Connection, Pool } from "./pool.js";

export interface EventRecord {
  uuid: string;
  name: string;
  startDate: Date | null;
  endDate: Date | null;
  raceCount: number;
  trackingShared: boolean;
  delaySeconds: number;
}

const VISIBLE_TO_CLUB = `e.published AND NOT e.legacy
  AND (e.club_id = ? OR EXISTS (SELECT 1 FROM event_co_hosts h WHERE h.event_id = e.id AND h.club_id = ?))`;

export async function countVisibleEvents(db: Pool | Connection, clubId: number): Promise<number> {
  const [[row]] = await db.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM events e WHERE ${VISIBLE_TO_CLUB}`, [clubId, clubId]);
  return Number(row?.n ?? 0);
}

/** Newest start date first, events without one last, ties by id: a total order, so pages never overlap. */
export async function visibleEvents(db: Pool | Connection, clubId: number, offset: number, limit: number): Promise<EventRecord[]> {
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT e.uuid, e.name, e.start_date, e.end_date, e.tracking_shared, e.delay_seconds,
       (SELECT COUNT(*) FROM races r WHERE r.event_id = e.id) AS race_count
     FROM events e WHERE ${VISIBLE_TO_CLUB}
     ORDER BY e.start_date IS NULL, e.start_date DESC, e.uuid
     LIMIT ? OFFSET ?`,
    [clubId, clubId, limit, offset],
  );
  return rows.map((row) => ({
    uuid: row.uuid,
    name: row.name,
    startDate: row.start_date,
    endDate: row.end_date,
    raceCount: Number(row.race_count),
    trackingShared: Boolean(row.tracking_shared),
    delaySeconds: row.delay_seconds,
  }));
}
