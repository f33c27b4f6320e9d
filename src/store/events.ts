// Events as a club sees them: its own and those it co-hosts, published and not
// legacy, in the one fixed order of the events list; and one such event with its
// races. VISIBLE_TO_CLUB is the one SQL form of the rule (race-access.ts applies the
// same rule to a race already read).

import type { RowDataPacket } from "mysql2/promise";
import type { Connection, Pool } from "./pool.js";
import { startGroupRecord, type StartGroupRecord } from "./races.js";

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

/** One race of an event, with its start groups in the race's order. */
export interface EventRaceRecord {
  id: number;
  uuid: string;
  raceNo: number;
  name: string;
  isLive: boolean;
  startGroups: StartGroupRecord[];
}

/** A single event with its races, for the event endpoints (live status, results). */
export interface EventDetailRecord {
  id: number;
  uuid: string;
  name: string;
  startDate: Date | null;
  endDate: Date | null;
  trackingShared: boolean;
  delaySeconds: number;
  /** By race_no, ties by race id (uuid). */
  races: EventRaceRecord[];
}

/** The event if the club may see it (the same rule as the events list); otherwise null. */
export async function findVisibleEvent(db: Pool | Connection, clubId: number, eventUuid: string): Promise<EventDetailRecord | null> {
  const [[event]] = await db.query<RowDataPacket[]>(
    `SELECT e.id, e.uuid, e.name, e.start_date, e.end_date, e.tracking_shared, e.delay_seconds
     FROM events e WHERE e.uuid = ? AND ${VISIBLE_TO_CLUB}`,
    [eventUuid, clubId, clubId],
  );
  if (!event) return null;
  const [races] = await db.query<RowDataPacket[]>(
    "SELECT id, uuid, race_no, name, is_live FROM races WHERE event_id = ? ORDER BY race_no, uuid",
    [event.id],
  );
  const [groups] = races.length
    ? await db.query<RowDataPacket[]>(
        "SELECT id, race_id, uuid, name, state, start_time, finish_time FROM start_groups WHERE race_id IN (?) ORDER BY race_id, position, id",
        [races.map((race) => race.id)],
      )
    : [[] as RowDataPacket[]];
  return {
    id: event.id,
    uuid: event.uuid,
    name: event.name,
    startDate: event.start_date,
    endDate: event.end_date,
    trackingShared: Boolean(event.tracking_shared),
    delaySeconds: event.delay_seconds,
    races: races.map((race) => ({
      id: race.id,
      uuid: race.uuid,
      raceNo: race.race_no,
      name: race.name,
      isLive: Boolean(race.is_live),
      startGroups: groups.filter((group) => group.race_id === race.id).map(startGroupRecord),
    })),
  };
}
