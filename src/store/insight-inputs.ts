// What insight detection reads for a race over one window, for all its start groups
// at once: the boats, live-order readings, course versions, phone finishes and wind,
// each with the reading just before the window as the baseline to compare with. (The
// step passings come from the race analytics, not from here.)

import type { RowDataPacket } from "mysql2/promise";
import type { DetectionInput, RecordedDetectionInput } from "../domain/detection-input.js";
import type { BoatRef } from "../domain/facts.js";
import type { Connection, Pool } from "./pool.js";
import { boatKey, groupBoats, phoneFinishes } from "./boats.js";
import type { RaceRecord } from "./races.js";

type Db = Pool | Connection;

/** One detection's recorded input per start group of the race, over (fromMs, toMs]. */
export async function detectionInputs(db: Db, race: RaceRecord, fromMs: number, toMs: number): Promise<RecordedDetectionInput[]> {
  const groupIds = race.startGroups.map((group) => group.id);
  if (groupIds.length === 0) return [];
  const [members, orders, courses, finishes, wind] = await Promise.all([
    groupBoats(db, groupIds),
    liveOrders(db, groupIds, fromMs, toMs),
    courseVersions(db, groupIds, toMs),
    phoneFinishes(db, groupIds, toMs),
    windReadings(db, groupIds, fromMs, toMs),
  ]);
  return race.startGroups.map((group) => {
    const own = members.filter((member) => member.startGroupId === group.id);
    const boats = new Map<string, BoatRef>(
      own.map((member) => [member.uuid, { entryId: member.uuid, sailNumber: member.sailNumber, boatName: member.boatName }]),
    );
    return {
      raceId: race.uuid,
      startGroupId: group.uuid,
      startGroupName: group.name,
      fromMs,
      toMs,
      boats,
      liveOrders: orders.get(group.id) ?? [],
      courses: courses.get(group.id) ?? [],
      // A boat's (first) finish, when it falls in the window.
      finishes: own.flatMap((member) => {
        const finishMs = finishes.get(boatKey(group.id, member.entryId));
        return finishMs !== undefined && finishMs > fromMs ? [{ entryId: member.uuid, finishMs }] : [];
      }),
      wind: wind.get(group.id) ?? [],
    };
  });
}

function byGroup<T>(rows: RowDataPacket[], make: (row: RowDataPacket) => T): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const row of rows) {
    const id = row.start_group_id as number;
    let list = groups.get(id);
    if (!list) groups.set(id, (list = []));
    list.push(make(row));
  }
  return groups;
}

/** Readings in (fromMs, toMs] and the newest at or before fromMs, ascending, with ranks by entry uuid. */
async function liveOrders(db: Db, groupIds: number[], fromMs: number, toMs: number): Promise<Map<number, DetectionInput["liveOrders"]>> {
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT r.start_group_id, r.as_of, e.uuid, w.rank_no
     FROM live_order_readings r
     JOIN live_order_rows w ON w.reading_id = r.id JOIN entries e ON e.id = w.entry_id
     WHERE r.start_group_id IN (?) AND r.as_of <= ? AND r.as_of >= COALESCE(
       (SELECT MAX(b.as_of) FROM live_order_readings b WHERE b.start_group_id = r.start_group_id AND b.as_of <= ?), ?)
     ORDER BY r.start_group_id, r.as_of`,
    [groupIds, new Date(toMs), new Date(fromMs), new Date(fromMs)],
  );
  const readings = new Map<number, DetectionInput["liveOrders"]>();
  for (const row of rows) {
    const group = row.start_group_id as number;
    const asOfMs = (row.as_of as Date).getTime();
    let list = readings.get(group);
    if (!list) readings.set(group, (list = []));
    let reading = list.at(-1);
    if (!reading || reading.asOfMs !== asOfMs) list.push((reading = { asOfMs, ranks: new Map() }));
    reading.ranks.set(row.uuid as string, row.rank_no as number | null);
  }
  return readings;
}

/** Every course version applied at or before toMs, ascending, with its steps and marks. */
async function courseVersions(db: Db, groupIds: number[], toMs: number): Promise<Map<number, DetectionInput["courses"]>> {
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT v.start_group_id, v.id, v.applied_from, s.step_no, s.kind, s.label, m.mark_key, m.lat, m.lon
     FROM course_versions v JOIN course_steps s ON s.course_version_id = v.id
     JOIN course_marks m ON m.course_version_id = v.id AND m.step_no = s.step_no
     WHERE v.start_group_id IN (?) AND v.applied_from <= ?
     ORDER BY v.start_group_id, v.applied_from, v.id, s.step_no, m.mark_no`,
    [groupIds, new Date(toMs)],
  );
  const versions = new Map<number, DetectionInput["courses"]>();
  let versionId = -1;
  let stepNo = -1;
  for (const row of rows) {
    const group = row.start_group_id as number;
    let list = versions.get(group);
    if (!list) versions.set(group, (list = []));
    if (row.id !== versionId) {
      versionId = row.id as number;
      stepNo = -1;
      list.push({ appliedFromMs: (row.applied_from as Date).getTime(), steps: [] });
    }
    const version = list.at(-1)!;
    if (row.step_no !== stepNo) {
      stepNo = row.step_no as number;
      version.steps.push({ kind: row.kind, label: row.label as string | null, marks: [] });
    }
    version.steps.at(-1)!.marks.push({ key: row.mark_key as string, lat: row.lat as number, lon: row.lon as number });
  }
  return versions;
}

/** Readings in (fromMs, toMs] and the newest at or before fromMs, ascending. */
async function windReadings(db: Db, groupIds: number[], fromMs: number, toMs: number): Promise<Map<number, DetectionInput["wind"]>> {
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT w.start_group_id, w.measured_at, w.twd, w.tws FROM wind_readings w
     WHERE w.start_group_id IN (?) AND w.measured_at <= ? AND w.measured_at >= COALESCE(
       (SELECT MAX(b.measured_at) FROM wind_readings b WHERE b.start_group_id = w.start_group_id AND b.measured_at <= ?), ?)
     ORDER BY w.start_group_id, w.measured_at`,
    [groupIds, new Date(toMs), new Date(fromMs), new Date(fromMs)],
  );
  return byGroup(rows, (row) => ({
    measuredAtMs: (row.measured_at as Date).getTime(),
    twd: row.twd as number,
    tws: row.tws as number | null,
  }));
}
