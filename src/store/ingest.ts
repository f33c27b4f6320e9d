// The SQL of live ingest besides the fixes themselves (store/fixes.ts): the rows a
// write is checked against, read fresh inside its transaction, and the writes of
// readings and state, each keyed by its natural key. Plain records in and out.

import type { ResultSetHeader, RowDataPacket } from "mysql2/promise";
import type { CourseStepKind, StartGroupState } from "../domain/scenario.js";
import type { Connection, Pool } from "./pool.js";

type Db = Pool | Connection;

/** An event as a write needs it: whose it is, and what its time rules are. */
export interface IngestEvent {
  id: number;
  uuid: string;
  clubId: number;
  legacy: boolean;
  published: boolean;
  trackingShared: boolean;
  delaySeconds: number;
  /** The newest settled edge under an earlier, shorter delay (epoch ms); null if the delay never grew. */
  settledFloorMs: number | null;
}

export interface IngestStartGroup {
  id: number;
  uuid: string;
  state: StartGroupState;
  gunMs: number | null;
  finishMs: number | null;
}

export interface IngestRace {
  id: number;
  uuid: string;
  isLive: boolean;
  event: IngestEvent;
}

/** The event `e` of a row as eventRecord reads it. */
export const EVENT_COLUMNS = `e.id AS event_id, e.uuid AS event_uuid, e.club_id, e.legacy, e.published, e.tracking_shared, e.delay_seconds,
  (SELECT f.settled_before_ms FROM event_settled_floors f WHERE f.event_id = e.id) AS settled_floor_ms`;

/** An entry of a start group as a write to the group is checked against. */
export interface GroupEntry {
  id: number;
  /** Its earliest phone finish in the group, whenever it lies (epoch ms); null if none. */
  finishMs: number | null;
  /** Its private device data as stored (entry_private); null where none is. */
  deviceId: string | null;
  phoneModel: string | null;
}

/** An entry `en` of the group row `sge`, with its earliest phone finish in the group and its device data (`ep`, joined). */
const ENTRY_COLUMNS = `en.uuid AS entry_uuid, en.id AS entry_id, ep.device_id, ep.phone_model,
  (SELECT MIN(pf.finish_time) FROM phone_finishes pf WHERE pf.start_group_id = sge.start_group_id AND pf.entry_id = en.id) AS entry_finish`;
const ENTRY_TABLES = "start_group_entries sge JOIN entries en ON en.id = sge.entry_id LEFT JOIN entry_private ep ON ep.entry_id = en.id";

/** The race by its UUID (lower case) with its event. */
export async function findIngestRace(db: Db, raceUuid: string): Promise<IngestRace | null> {
  const [[row]] = await db.query<RowDataPacket[]>(
    `SELECT r.id, r.uuid, r.is_live, ${EVENT_COLUMNS} FROM races r JOIN events e ON e.id = r.event_id WHERE r.uuid = ?`,
    [raceUuid],
  );
  return row ? { id: row.id, uuid: row.uuid, isLive: Boolean(row.is_live), event: eventRecord(row) } : null;
}

/**
 * The race by its UUID (lower case) with its event, its start group `groupUuid`, and
 * those of `entryUuids` (lower case) that are entries of that group, in one statement:
 * what a write to a group is checked against first. A plain read, no lock: which rule
 * needs which lock is in docs/decisions.md ("Device data, locks and the margin").
 * `group` is null when the race has no such group; `entries` as groupEntries answers.
 */
export async function findIngestRaceGroup(
  conn: Connection,
  raceUuid: string,
  groupUuid: string,
  entryUuids: readonly string[] = [],
): Promise<{ race: IngestRace; group: IngestStartGroup | null; entries: Map<string, GroupEntry> } | null> {
  // One row per entry found, or one row with NULL entry columns when none is (or none is asked).
  const [rows] = await conn.query<RowDataPacket[]>(
    `SELECT r.id, r.uuid, r.is_live, ${EVENT_COLUMNS}, sg.id AS group_id, sg.uuid AS group_uuid, sg.state, sg.start_time, sg.finish_time, ${ENTRY_COLUMNS}
     FROM races r JOIN events e ON e.id = r.event_id LEFT JOIN start_groups sg ON sg.race_id = r.id AND sg.uuid = ?
     LEFT JOIN (${ENTRY_TABLES}) ON sge.start_group_id = sg.id AND en.uuid IN (?)
     WHERE r.uuid = ?`,
    [groupUuid, entryUuids.length > 0 ? entryUuids : [""], raceUuid],
  );
  const row = rows[0];
  if (!row) return null;
  const race = { id: row.id, uuid: row.uuid, isLive: Boolean(row.is_live), event: eventRecord(row) };
  const group = row.group_id === null ? null : groupRecord({ ...row, id: row.group_id, uuid: row.group_uuid });
  return { race, group, entries: entryMap(rows.filter((r) => r.entry_id !== null)) };
}

/** The event by its UUID (lower case); `FOR UPDATE` so a delay change and its floor are one step. */
export async function findIngestEventForUpdate(conn: Connection, eventUuid: string): Promise<IngestEvent | null> {
  const [[row]] = await conn.query<RowDataPacket[]>(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.uuid = ? FOR UPDATE`, [eventUuid]);
  return row ? eventRecord(row) : null;
}

/**
 * A start group of the race, read for update: a change to its gun or finish, and a
 * phone finish, are checked against the group as it stands and serialised with each
 * other. Fix batches take no lock on it (findIngestRaceGroup), so they never wait here.
 */
export async function lockStartGroup(conn: Connection, raceId: number, groupUuid: string): Promise<IngestStartGroup | null> {
  const [[row]] = await conn.query<RowDataPacket[]>(
    "SELECT id, uuid, state, start_time, finish_time FROM start_groups WHERE race_id = ? AND uuid = ? FOR UPDATE",
    [raceId, groupUuid],
  );
  return row ? groupRecord(row) : null;
}

function groupRecord(row: RowDataPacket): IngestStartGroup {
  return {
    id: row.id,
    uuid: row.uuid,
    state: row.state,
    gunMs: row.start_time ? (row.start_time as Date).getTime() : null,
    finishMs: row.finish_time ? (row.finish_time as Date).getTime() : null,
  };
}

/** Entry UUID (lower case) -> the entry, for those of `entryUuids` that are entries of the group. */
export async function groupEntries(db: Db, startGroupId: number, entryUuids: readonly string[]): Promise<Map<string, GroupEntry>> {
  if (entryUuids.length === 0) return new Map();
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_TABLES} WHERE sge.start_group_id = ? AND en.uuid IN (?)`,
    [startGroupId, entryUuids],
  );
  return entryMap(rows);
}

function entryMap(rows: readonly RowDataPacket[]): Map<string, GroupEntry> {
  return new Map(
    rows.map((row) => [
      row.entry_uuid as string,
      {
        id: row.entry_id as number,
        finishMs: row.entry_finish ? (row.entry_finish as Date).getTime() : null,
        deviceId: row.device_id as string | null,
        phoneModel: row.phone_model as string | null,
      },
    ]),
  );
}

/** Private device data of an entry: what is sent replaces what was stored; unsent fields stay. */
export async function recordDevice(
  conn: Connection,
  entryId: number,
  device: { deviceId: string | null; phoneModel: string | null },
): Promise<void> {
  await conn.query(
    `INSERT INTO entry_private (entry_id, device_id, phone_model) VALUES (?, ?, ?)
     ON DUPLICATE KEY UPDATE device_id = COALESCE(VALUES(device_id), device_id), phone_model = COALESCE(VALUES(phone_model), phone_model)`,
    [entryId, device.deviceId, device.phoneModel],
  );
}

/** Outcome of writing a reading under its natural key. */
export type ReadingWrite = "written" | "duplicate" | "conflict";

export interface WindInput {
  measuredAtMs: number;
  twd: number;
  tws: number | null;
}

export async function recordWind(conn: Connection, startGroupId: number, wind: WindInput): Promise<ReadingWrite> {
  const [result] = await conn.query<ResultSetHeader>(
    "INSERT IGNORE INTO wind_readings (start_group_id, measured_at, twd, tws) VALUES (?, ?, ?, ?)",
    [startGroupId, new Date(wind.measuredAtMs), wind.twd, wind.tws],
  );
  if (result.affectedRows === 1) return "written";
  const [[stored]] = await conn.query<RowDataPacket[]>("SELECT twd, tws FROM wind_readings WHERE start_group_id = ? AND measured_at = ?", [
    startGroupId,
    new Date(wind.measuredAtMs),
  ]);
  return stored && stored.twd === wind.twd && (stored.tws as number | null) === wind.tws ? "duplicate" : "conflict";
}

export interface LiveOrderRowInput {
  entryId: number;
  rank: number | null;
  elapsedSeconds: number | null;
  correctedSeconds: number | null;
  deltaSeconds: number | null;
}

/** A live-order reading is one leaderboard snapshot: stored whole, compared whole. */
export async function recordLiveOrder(
  conn: Connection,
  startGroupId: number,
  asOfMs: number,
  rows: readonly LiveOrderRowInput[],
): Promise<ReadingWrite> {
  const [inserted] = await conn.query<ResultSetHeader>("INSERT IGNORE INTO live_order_readings (start_group_id, as_of) VALUES (?, ?)", [
    startGroupId,
    new Date(asOfMs),
  ]);
  if (inserted.affectedRows === 1) {
    if (rows.length > 0) {
      await conn.query(
        "INSERT INTO live_order_rows (reading_id, entry_id, rank_no, elapsed_seconds, corrected_seconds, delta_seconds) VALUES ?",
        [rows.map((r) => [inserted.insertId, r.entryId, r.rank, r.elapsedSeconds, r.correctedSeconds, r.deltaSeconds])],
      );
    }
    return "written";
  }
  const [stored] = await conn.query<RowDataPacket[]>(
    `SELECT o.entry_id, o.rank_no, o.elapsed_seconds, o.corrected_seconds, o.delta_seconds
     FROM live_order_readings r JOIN live_order_rows o ON o.reading_id = r.id WHERE r.start_group_id = ? AND r.as_of = ?`,
    [startGroupId, new Date(asOfMs)],
  );
  const key = (r: LiveOrderRowInput) => JSON.stringify([r.entryId, r.rank, r.elapsedSeconds, r.correctedSeconds, r.deltaSeconds]);
  const sent = new Set(rows.map(key));
  const same =
    stored.length === rows.length &&
    stored.every((s) =>
      sent.has(
        key({
          entryId: s.entry_id,
          rank: s.rank_no,
          elapsedSeconds: s.elapsed_seconds,
          correctedSeconds: s.corrected_seconds,
          deltaSeconds: s.delta_seconds,
        }),
      ),
    );
  return same ? "duplicate" : "conflict";
}

/** A phone finish is keyed by group, entry and time: the same finish again is a duplicate. */
export async function recordFinish(conn: Connection, startGroupId: number, entryId: number, finishMs: number): Promise<ReadingWrite> {
  const [result] = await conn.query<ResultSetHeader>(
    "INSERT IGNORE INTO phone_finishes (start_group_id, entry_id, finish_time) VALUES (?, ?, ?)",
    [startGroupId, entryId, new Date(finishMs)],
  );
  return result.affectedRows === 1 ? "written" : "duplicate";
}

export interface StartGroupChange {
  state?: StartGroupState;
  /** Null clears. */
  gunMs?: number | null;
  /** Null clears. */
  finishMs?: number | null;
}

/** Returns whether anything changed. */
export async function updateStartGroup(conn: Connection, startGroupId: number, change: StartGroupChange): Promise<boolean> {
  const sets: string[] = [];
  const values: unknown[] = [];
  if (change.state !== undefined) {
    sets.push("state = ?");
    values.push(change.state);
  }
  if (change.gunMs !== undefined) {
    sets.push("start_time = ?");
    values.push(change.gunMs === null ? null : new Date(change.gunMs));
  }
  if (change.finishMs !== undefined) {
    sets.push("finish_time = ?");
    values.push(change.finishMs === null ? null : new Date(change.finishMs));
  }
  if (sets.length === 0) return false;
  return changedRows(conn, `UPDATE start_groups SET ${sets.join(", ")} WHERE id = ?`, [...values, startGroupId]);
}

export interface CourseInput {
  version: number;
  appliedFromMs: number;
  steps: ReadonlyArray<{ kind: CourseStepKind; label: string | null; marks: ReadonlyArray<{ key: string; lat: number; lon: number }> }>;
}

/** A course version is a fact once recorded: the same version with another content is a conflict. */
export async function recordCourse(conn: Connection, startGroupId: number, course: CourseInput): Promise<ReadingWrite> {
  const [inserted] = await conn.query<ResultSetHeader>(
    "INSERT IGNORE INTO course_versions (start_group_id, version, applied_from) VALUES (?, ?, ?)",
    [startGroupId, course.version, new Date(course.appliedFromMs)],
  );
  if (inserted.affectedRows === 1) {
    const versionId = inserted.insertId;
    await conn.query("INSERT INTO course_steps (course_version_id, step_no, kind, label) VALUES ?", [
      course.steps.map((s, i) => [versionId, i, s.kind, s.label]),
    ]);
    await conn.query("INSERT INTO course_marks (course_version_id, step_no, mark_no, mark_key, lat, lon) VALUES ?", [
      course.steps.flatMap((s, i) => s.marks.map((m, k) => [versionId, i, k, m.key, m.lat, m.lon])),
    ]);
    return "written";
  }
  const [[version]] = await conn.query<RowDataPacket[]>(
    "SELECT id, applied_from FROM course_versions WHERE start_group_id = ? AND version = ?",
    [startGroupId, course.version],
  );
  const [steps] = await conn.query<RowDataPacket[]>(
    "SELECT step_no, kind, label FROM course_steps WHERE course_version_id = ? ORDER BY step_no",
    [version!.id],
  );
  const [marks] = await conn.query<RowDataPacket[]>(
    "SELECT step_no, mark_key, lat, lon FROM course_marks WHERE course_version_id = ? ORDER BY step_no, mark_no",
    [version!.id],
  );
  const stored = JSON.stringify(
    steps.map((s) => ({
      kind: s.kind,
      label: s.label,
      marks: marks.filter((m) => m.step_no === s.step_no).map((m) => ({ key: m.mark_key, lat: m.lat, lon: m.lon })),
    })),
  );
  const sent = JSON.stringify(
    course.steps.map((s) => ({ kind: s.kind, label: s.label, marks: s.marks.map((m) => ({ key: m.key, lat: m.lat, lon: m.lon })) })),
  );
  return (version!.applied_from as Date).getTime() === course.appliedFromMs && stored === sent ? "duplicate" : "conflict";
}

export async function updateRace(conn: Connection, raceId: number, isLive: boolean): Promise<boolean> {
  return changedRows(conn, "UPDATE races SET is_live = ? WHERE id = ?", [isLive, raceId]);
}

export interface EventChange {
  published?: boolean;
  trackingShared?: boolean;
  delaySeconds?: number;
}

export async function updateEvent(conn: Connection, eventId: number, change: EventChange): Promise<boolean> {
  const sets: string[] = [];
  const values: unknown[] = [];
  if (change.published !== undefined) {
    sets.push("published = ?");
    values.push(change.published);
  }
  if (change.trackingShared !== undefined) {
    sets.push("tracking_shared = ?");
    values.push(change.trackingShared);
  }
  if (change.delaySeconds !== undefined) {
    sets.push("delay_seconds = ?");
    values.push(change.delaySeconds);
  }
  if (sets.length === 0) return false;
  return changedRows(conn, `UPDATE events SET ${sets.join(", ")} WHERE id = ?`, [...values, eventId]);
}

/** Notes that the events' tracks are readable from `atMs` (event_tracks_readable); the first time stands. */
export async function markTracksReadable(conn: Connection, eventUuids: readonly string[], atMs: number): Promise<void> {
  if (eventUuids.length === 0) return;
  await conn.query("INSERT IGNORE INTO event_tracks_readable (event_id, since) SELECT id, ? FROM events WHERE uuid IN (?)", [
    new Date(atMs),
    eventUuids,
  ]);
}

/**
 * The event as it stands, read with a shared lock held to the end of the transaction,
 * and whether its tracks were ever readable: a change of its publication or sharing
 * (which locks the row for update) waits until the transaction commits.
 */
export async function lockEventSharing(
  conn: Connection,
  eventId: number,
): Promise<{ published: boolean; trackingShared: boolean; legacy: boolean; wasReadable: boolean }> {
  const [[row]] = await conn.query<RowDataPacket[]>(
    `SELECT e.published, e.tracking_shared, e.legacy, r.event_id AS readable
     FROM events e LEFT JOIN event_tracks_readable r ON r.event_id = e.id WHERE e.id = ? LOCK IN SHARE MODE`,
    [eventId],
  );
  return {
    published: Boolean(row!.published),
    trackingShared: Boolean(row!.tracking_shared),
    legacy: Boolean(row!.legacy),
    wasReadable: row!.readable !== null,
  };
}

/** Keeps the newest settled edge an event's track windows have reached: it only moves forward. */
export async function raiseSettledFloor(conn: Connection, eventId: number, settledBeforeMs: number): Promise<void> {
  await conn.query(
    `INSERT INTO event_settled_floors (event_id, settled_before_ms) VALUES (?, ?)
     ON DUPLICATE KEY UPDATE settled_before_ms = GREATEST(settled_before_ms, VALUES(settled_before_ms))`,
    [eventId, settledBeforeMs],
  );
}

/**
 * Holds an event's longer delay for readers until `untilMs` after it was shortened; a
 * hold still running keeps the longest delay it holds and runs to the later end.
 */
export async function holdDelay(conn: Connection, eventId: number, delaySeconds: number, nowMs: number, untilMs: number): Promise<void> {
  // Assignments run left to right: delay_seconds is decided on the stored until_ms.
  await conn.query(
    `INSERT INTO event_delay_holds (event_id, delay_seconds, until_ms) VALUES (?, ?, ?)
     ON DUPLICATE KEY UPDATE delay_seconds = IF(until_ms > ?, GREATEST(delay_seconds, VALUES(delay_seconds)), VALUES(delay_seconds)),
       until_ms = GREATEST(until_ms, VALUES(until_ms))`,
    [eventId, delaySeconds, untilMs, nowMs],
  );
}

export interface ResultsInput {
  status: "provisional" | "final";
  publishedAtMs: number;
  rows: ReadonlyArray<{
    entryId: number;
    rank: number | null;
    status: string;
    elapsedSeconds: number | null;
    correctedSeconds: number | null;
    points: number | null;
  }>;
}

/** Published results are replaced whole; returns whether anything differs from what was stored. */
export async function publishResults(conn: Connection, startGroupId: number, results: ResultsInput): Promise<boolean> {
  const [[header]] = await conn.query<RowDataPacket[]>(
    "SELECT status, published_at FROM official_results WHERE start_group_id = ? FOR UPDATE",
    [startGroupId],
  );
  const [storedRows] = await conn.query<RowDataPacket[]>(
    "SELECT entry_id, rank_no, status, elapsed_seconds, corrected_seconds, points FROM official_result_rows WHERE start_group_id = ? ORDER BY entry_id",
    [startGroupId],
  );
  const sentRows = [...results.rows].sort((a, b) => a.entryId - b.entryId);
  const same =
    header !== undefined &&
    header.status === results.status &&
    (header.published_at as Date).getTime() === results.publishedAtMs &&
    JSON.stringify(storedRows.map((r) => [r.entry_id, r.rank_no, r.status, r.elapsed_seconds, r.corrected_seconds, r.points])) ===
      JSON.stringify(sentRows.map((r) => [r.entryId, r.rank, r.status, r.elapsedSeconds, r.correctedSeconds, r.points]));
  if (same) return false;
  await conn.query(
    `INSERT INTO official_results (start_group_id, status, published_at) VALUES (?, ?, ?)
     ON DUPLICATE KEY UPDATE status = VALUES(status), published_at = VALUES(published_at)`,
    [startGroupId, results.status, new Date(results.publishedAtMs)],
  );
  await conn.query("DELETE FROM official_result_rows WHERE start_group_id = ?", [startGroupId]);
  if (sentRows.length > 0) {
    await conn.query(
      "INSERT INTO official_result_rows (start_group_id, entry_id, rank_no, status, elapsed_seconds, corrected_seconds, points) VALUES ?",
      [sentRows.map((r) => [startGroupId, r.entryId, r.rank, r.status, r.elapsedSeconds, r.correctedSeconds, r.points])],
    );
  }
  return true;
}

/** Which of the ids are rows of another club's events: events, entries, races and start groups by UUID (lower case). */
export async function idsOfOtherClubs(
  db: Db,
  clubId: number,
  ids: { events: readonly string[]; entries: readonly string[]; races: readonly string[]; startGroups: readonly string[] },
): Promise<Set<string>> {
  const taken = new Set<string>();
  const lookups: Array<[readonly string[], string]> = [
    [ids.events, "SELECT e.uuid FROM events e WHERE e.uuid IN (?) AND e.club_id <> ?"],
    [ids.entries, "SELECT en.uuid FROM entries en JOIN events e ON e.id = en.event_id WHERE en.uuid IN (?) AND e.club_id <> ?"],
    [ids.races, "SELECT r.uuid FROM races r JOIN events e ON e.id = r.event_id WHERE r.uuid IN (?) AND e.club_id <> ?"],
    [
      ids.startGroups,
      "SELECT g.uuid FROM start_groups g JOIN races r ON r.id = g.race_id JOIN events e ON e.id = r.event_id WHERE g.uuid IN (?) AND e.club_id <> ?",
    ],
  ];
  for (const [list, sql] of lookups) {
    if (list.length === 0) continue;
    const [rows] = await db.query<RowDataPacket[]>(sql, [list, clubId]);
    for (const row of rows) taken.add(row.uuid as string);
  }
  return taken;
}

/** The listed events as stored (UUID lower case -> event). */
export async function storedEvents(db: Db, eventUuids: readonly string[]): Promise<Map<string, IngestEvent>> {
  if (eventUuids.length === 0) return new Map();
  const [rows] = await db.query<RowDataPacket[]>(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.uuid IN (?)`, [eventUuids]);
  return new Map(rows.map((row) => [row.event_uuid as string, eventRecord(row)]));
}

export function eventRecord(row: RowDataPacket): IngestEvent {
  return {
    id: row.event_id,
    uuid: row.event_uuid,
    clubId: row.club_id,
    legacy: Boolean(row.legacy),
    published: Boolean(row.published),
    trackingShared: Boolean(row.tracking_shared),
    delaySeconds: row.delay_seconds,
    settledFloorMs: row.settled_floor_ms === null ? null : Number(row.settled_floor_ms),
  };
}

async function changedRows(conn: Connection, sql: string, values: unknown[]): Promise<boolean> {
  const [result] = await conn.query<ResultSetHeader>(sql, values);
  // affectedRows counts matched rows when the connection says CLIENT_FOUND_ROWS; changedRows never does.
  return result.changedRows > 0;
}
