// The reads behind the live race feed, each cut at dataAsOf by the caller. Every read
// covers all start groups of the race in one statement (a UNION ALL of per-group
// index seeks where "the newest at or before" is asked), so one live read costs at
// most six SELECTs however many groups and boats the race has. Only public columns
// are selected: never entry_private, never fixes.accuracy_m.

import type { RowDataPacket } from "mysql2/promise";
import type { Connection, Pool } from "./pool.js";

type Db = Pool | Connection;

export interface WindRecord {
  startGroupId: number;
  measuredAtMs: number;
  twd: number;
  /** Null for a direction-only reading. */
  tws: number | null;
}

export interface LiveOrderRecord {
  startGroupId: number;
  asOfMs: number;
  /** In no particular order; empty for a reading without rows. */
  rows: LiveOrderRowRecord[];
}

export interface LiveOrderRowRecord {
  entryId: number;
  uuid: string;
  sailNumber: string;
  rank: number | null;
  elapsedSeconds: number | null;
  correctedSeconds: number | null;
  deltaSeconds: number | null;
}

/** Each group's newest committee wind reading at or before `asOfMs`: one backward primary-key seek per group. */
export async function newestWind(db: Db, startGroupIds: readonly number[], asOfMs: number): Promise<WindRecord[]> {
  if (startGroupIds.length === 0) return [];
  const one = `(SELECT start_group_id, measured_at, twd, tws FROM wind_readings
     WHERE start_group_id = ? AND measured_at <= ? ORDER BY measured_at DESC LIMIT 1)`;
  const [rows] = await db.query<RowDataPacket[]>(
    unionOf(one, startGroupIds.length),
    startGroupIds.flatMap((id) => [id, new Date(asOfMs)]),
  );
  return rows.map((row) => ({
    startGroupId: row.start_group_id,
    measuredAtMs: (row.measured_at as Date).getTime(),
    twd: row.twd,
    tws: row.tws,
  }));
}

export interface AppliedCourse {
  version: number;
  /** In sailing order, each with its marks in order. */
  steps: Array<{ kind: string; label: string | null; marks: Array<{ key: string; lat: number; lon: number }> }>;
}

/** Each group's course version applied last at or before `asOfMs`, with its steps and marks; groups with none are absent. */
export async function appliedCourses(db: Db, startGroupIds: readonly number[], asOfMs: number): Promise<Map<number, AppliedCourse>> {
  if (startGroupIds.length === 0) return new Map();
  const one = `(SELECT id, start_group_id, version FROM course_versions
     WHERE start_group_id = ? AND applied_from <= ? ORDER BY applied_from DESC LIMIT 1)`;
  // LEFT JOINs keep a version without steps: its number is still the group's courseVersion.
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT v.start_group_id, v.version, s.step_no, s.kind, s.label, m.mark_key, m.lat, m.lon
     FROM (${unionOf(one, startGroupIds.length)}) v
     LEFT JOIN course_steps s ON s.course_version_id = v.id
     LEFT JOIN course_marks m ON m.course_version_id = v.id AND m.step_no = s.step_no
     ORDER BY v.start_group_id, s.step_no, m.mark_no`,
    startGroupIds.flatMap((id) => [id, new Date(asOfMs)]),
  );
  const courses = new Map<number, AppliedCourse>();
  let lastStep: { groupId: number; stepNo: number } | null = null;
  for (const row of rows) {
    let course = courses.get(row.start_group_id);
    if (!course) courses.set(row.start_group_id, (course = { version: row.version as number, steps: [] }));
    if (row.step_no === null) continue;
    if (lastStep === null || lastStep.groupId !== row.start_group_id || lastStep.stepNo !== row.step_no) {
      course.steps.push({ kind: row.kind as string, label: (row.label as string | null) ?? null, marks: [] });
      lastStep = { groupId: row.start_group_id, stepNo: row.step_no };
    }
    if (row.mark_key !== null)
      course.steps.at(-1)!.marks.push({ key: row.mark_key as string, lat: row.lat as number, lon: row.lon as number });
  }
  return courses;
}

/** Each group's newest live-order reading at or before `asOfMs` with its rows; groups with none are absent. */
export async function newestLiveOrders(db: Db, startGroupIds: readonly number[], asOfMs: number): Promise<Map<number, LiveOrderRecord>> {
  if (startGroupIds.length === 0) return new Map();
  const one = `(SELECT id, start_group_id, as_of FROM live_order_readings
     WHERE start_group_id = ? AND as_of <= ? ORDER BY as_of DESC LIMIT 1)`;
  // LEFT JOINs keep a reading without rows: an empty order is not "no order".
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT lr.start_group_id, lr.as_of, r.entry_id, e.uuid, e.sail_number, r.rank_no, r.elapsed_seconds, r.corrected_seconds, r.delta_seconds
     FROM (${unionOf(one, startGroupIds.length)}) lr
     LEFT JOIN live_order_rows r ON r.reading_id = lr.id
     LEFT JOIN entries e ON e.id = r.entry_id`,
    startGroupIds.flatMap((id) => [id, new Date(asOfMs)]),
  );
  const orders = new Map<number, LiveOrderRecord>();
  for (const row of rows) {
    let order = orders.get(row.start_group_id);
    if (!order) {
      order = { startGroupId: row.start_group_id, asOfMs: (row.as_of as Date).getTime(), rows: [] };
      orders.set(order.startGroupId, order);
    }
    if (row.entry_id === null) continue;
    order.rows.push({
      entryId: row.entry_id,
      uuid: row.uuid,
      sailNumber: row.sail_number,
      rank: row.rank_no,
      elapsedSeconds: row.elapsed_seconds,
      correctedSeconds: row.corrected_seconds,
      deltaSeconds: row.delta_seconds,
    });
  }
  return orders;
}

function unionOf(select: string, times: number): string {
  return Array.from({ length: times }, () => select).join(" UNION ALL ");
}
