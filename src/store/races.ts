// A race with what decides who may see it (its event's club, co-hosts, publication,
// sharing, delay) and its start groups: the first read of every race endpoint.

import type { RowDataPacket } from "mysql2/promise";
import type { StartGroupState } from "../domain/scenario.js";
import type { DelayHold } from "../domain/track-window.js";
import type { Connection, Pool } from "./pool.js";

export interface StartGroupRecord {
  id: number;
  uuid: string;
  name: string;
  state: StartGroupState;
  /** The gun, epoch ms; null while not set. */
  gunMs: number | null;
  finishMs: number | null;
}

export interface RaceRecord {
  id: number;
  uuid: string;
  raceNo: number;
  name: string;
  isLive: boolean;
  event: {
    id: number;
    uuid: string;
    name: string;
    clubId: number;
    coHostClubIds: number[];
    published: boolean;
    legacy: boolean;
    trackingShared: boolean;
    delaySeconds: number;
    /** A longer delay it had until moments ago, still held for the settled edge (or expired); null if none. */
    delayHold: DelayHold | null;
  };
  /** In the race's order. */
  startGroups: StartGroupRecord[];
}

export async function findRace(db: Pool | Connection, raceUuid: string): Promise<RaceRecord | null> {
  const [[race]] = await db.query<RowDataPacket[]>(
    `SELECT r.id, r.uuid, r.race_no, r.name, r.is_live,
       e.id AS event_id, e.uuid AS event_uuid, e.name AS event_name, e.club_id, e.published, e.legacy, e.tracking_shared, e.delay_seconds,
       (SELECT GROUP_CONCAT(h.club_id) FROM event_co_hosts h WHERE h.event_id = e.id) AS co_hosts,
       dh.delay_seconds AS held_delay_seconds, dh.until_ms AS held_until_ms
     FROM races r JOIN events e ON e.id = r.event_id LEFT JOIN event_delay_holds dh ON dh.event_id = e.id WHERE r.uuid = ?`,
    [raceUuid],
  );
  if (!race) return null;
  const [groups] = await db.query<RowDataPacket[]>(
    "SELECT id, uuid, name, state, start_time, finish_time FROM start_groups WHERE race_id = ? ORDER BY position, id",
    [race.id],
  );
  return {
    id: race.id,
    uuid: race.uuid,
    raceNo: race.race_no,
    name: race.name,
    isLive: Boolean(race.is_live),
    event: {
      id: race.event_id,
      uuid: race.event_uuid,
      name: race.event_name,
      clubId: race.club_id,
      coHostClubIds: race.co_hosts ? String(race.co_hosts).split(",").map(Number) : [],
      published: Boolean(race.published),
      legacy: Boolean(race.legacy),
      trackingShared: Boolean(race.tracking_shared),
      delaySeconds: race.delay_seconds,
      delayHold: race.held_delay_seconds === null ? null : { delaySeconds: race.held_delay_seconds, untilMs: Number(race.held_until_ms) },
    },
    startGroups: groups.map(startGroupRecord),
  };
}

/** A start_groups row (id, uuid, name, state, start_time, finish_time) as a record. */
export function startGroupRecord(group: RowDataPacket): StartGroupRecord {
  return {
    id: group.id,
    uuid: group.uuid,
    name: group.name,
    state: group.state,
    gunMs: group.start_time ? (group.start_time as Date).getTime() : null,
    finishMs: group.finish_time ? (group.finish_time as Date).getTime() : null,
  };
}
