// What a start group's analytics are computed from besides its fixes: every committee
// wind reading and every course version up to a moment, in time order, because a fix
// is judged under the wind and course in force at its own time (the live read needs
// only the newest of each: race-live.ts).

import type { RowDataPacket } from "mysql2/promise";
import type { Connection, Pool } from "./pool.js";

type Db = Pool | Connection;

export interface WindHistoryRecord {
  measuredAtMs: number;
  twd: number;
  tws: number | null;
}

export interface CourseVersionRecord {
  version: number;
  appliedFromMs: number;
  /** In sailing order, each with its marks in order. */
  steps: Array<{ kind: string; label: string | null; marks: Array<{ key: string; lat: number; lon: number }> }>;
}

/** The group's wind readings measured at or before `untilMs`, oldest first. */
export async function windHistory(db: Db, startGroupId: number, untilMs: number): Promise<WindHistoryRecord[]> {
  const [rows] = await db.query<RowDataPacket[]>(
    "SELECT measured_at, twd, tws FROM wind_readings WHERE start_group_id = ? AND measured_at <= ? ORDER BY measured_at",
    [startGroupId, new Date(untilMs)],
  );
  return rows.map((row) => ({ measuredAtMs: (row.measured_at as Date).getTime(), twd: row.twd, tws: row.tws }));
}

/** The group's course versions applied at or before `untilMs`, in the order they applied, with their steps and marks. */
export async function courseHistory(db: Db, startGroupId: number, untilMs: number): Promise<CourseVersionRecord[]> {
  // LEFT JOINs keep a version without steps: it still replaces the course before it.
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT v.version, v.applied_from, s.step_no, s.kind, s.label, m.mark_key, m.lat, m.lon
     FROM course_versions v
     LEFT JOIN course_steps s ON s.course_version_id = v.id
     LEFT JOIN course_marks m ON m.course_version_id = v.id AND m.step_no = s.step_no
     WHERE v.start_group_id = ? AND v.applied_from <= ?
     ORDER BY v.applied_from, v.version, s.step_no, m.mark_no`,
    [startGroupId, new Date(untilMs)],
  );
  const versions: CourseVersionRecord[] = [];
  let lastStepNo: number | null = null;
  for (const row of rows) {
    let version = versions.at(-1);
    if (version === undefined || version.version !== row.version) {
      version = { version: row.version as number, appliedFromMs: (row.applied_from as Date).getTime(), steps: [] };
      versions.push(version);
      lastStepNo = null;
    }
    if (row.step_no === null) continue;
    if (row.step_no !== lastStepNo) {
      version.steps.push({ kind: row.kind as string, label: (row.label as string | null) ?? null, marks: [] });
      lastStepNo = row.step_no as number;
    }
    if (row.mark_key !== null)
      version.steps.at(-1)!.marks.push({ key: row.mark_key as string, lat: row.lat as number, lon: row.lon as number });
  }
  return versions;
}
