// Writes a validated scenario into the read model inside the caller's transaction.
// Every write is an upsert keyed by the object's public id (or, for readings, by
// its time), so importing the same file twice leaves the same rows.

import type { ResultSetHeader, RowDataPacket } from "mysql2/promise";
import type { Client, Club, CourseVersion, Entry, Event, Race, Scenario, StartGroup } from "../domain/scenario.js";
import { upsertFixes } from "./fixes.js";
import { replaceClientOrigins, replaceClubOrigins } from "./origins.js";
import type { Connection, Pool } from "./pool.js";

/** Surrogate keys of rows a scenario references without defining them. */
export interface StoredIds {
  clubs: Map<string, number>;
  /** Entry uuid -> its row id and its event's uuid. */
  entries: Map<string, { id: number; eventUuid: string }>;
}

/** A client's secret as the import will store it: a new hash, or the stored one kept. */
export type SecretChange = { kind: "new" | "rotated"; hash: string } | { kind: "unchanged" };

export interface WriteCounts {
  clubs: number;
  clients: number;
  events: number;
  entries: number;
  races: number;
  startGroups: number;
  fixes: number;
}

export async function findStoredIds(db: Pool | Connection, clubUuids: string[], entryUuids: string[]): Promise<StoredIds> {
  const ids: StoredIds = { clubs: new Map(), entries: new Map() };
  if (clubUuids.length > 0) {
    const [rows] = await db.query<RowDataPacket[]>("SELECT id, uuid FROM clubs WHERE uuid IN (?)", [clubUuids]);
    for (const row of rows) ids.clubs.set(row.uuid as string, row.id as number);
  }
  if (entryUuids.length > 0) {
    const [rows] = await db.query<RowDataPacket[]>(
      "SELECT en.id, en.uuid, ev.uuid AS event_uuid FROM entries en JOIN events ev ON ev.id = en.event_id WHERE en.uuid IN (?)",
      [entryUuids],
    );
    for (const row of rows) ids.entries.set(row.uuid as string, { id: row.id as number, eventUuid: row.event_uuid as string });
  }
  return ids;
}

export async function storedSecretHashes(db: Pool | Connection, clientIds: string[]): Promise<Map<string, string>> {
  if (clientIds.length === 0) return new Map();
  const [rows] = await db.query<RowDataPacket[]>("SELECT client_id, secret_hash FROM api_clients WHERE client_id IN (?)", [clientIds]);
  return new Map(rows.map((row) => [row.client_id as string, row.secret_hash as string]));
}

export async function writeScenario(
  conn: Connection,
  s: Scenario,
  stored: StoredIds,
  secrets: Map<string, SecretChange>,
): Promise<WriteCounts> {
  const counts: WriteCounts = { clubs: 0, clients: 0, events: 0, entries: 0, races: 0, startGroups: 0, fixes: 0 };
  const clubIds = new Map(stored.clubs);
  for (const club of s.clubs) {
    clubIds.set(uuid(club.id), await upsertClub(conn, club));
    counts.clubs++;
  }
  const clubId = (id: string) => clubIds.get(uuid(id))!;

  for (const client of s.clients) {
    await writeClient(conn, client, clubId(client.clubId), secrets.get(client.clientId) ?? { kind: "unchanged" });
    counts.clients++;
  }

  const entryIds = new Map([...stored.entries].map(([key, value]) => [key, value.id]));
  for (const event of s.events) {
    const eventId = await upsertEvent(conn, event, clubId(event.clubId));
    await replaceCoHosts(conn, eventId, (event.coHostClubIds ?? []).map(clubId));
    counts.events++;
    for (const entry of event.entries) {
      entryIds.set(uuid(entry.id), await upsertEntry(conn, entry, eventId));
      counts.entries++;
    }
    const entryId = (id: string) => entryIds.get(uuid(id))!;
    for (const race of event.races) {
      const raceId = await upsertRace(conn, race, eventId);
      counts.races++;
      for (const [position, group] of race.startGroups.entries()) {
        counts.fixes += await writeStartGroup(conn, group, raceId, position, entryId);
        counts.startGroups++;
      }
    }
  }
  return counts;
}

async function upsertClub(conn: Connection, club: Club): Promise<number> {
  const id = await upsertReturningId(
    conn,
    `INSERT INTO clubs (uuid, name, rate_limit_per_minute, tracking_rate_limit_per_minute) VALUES (?, ?, ?, ?)
     ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id), name = VALUES(name),
       rate_limit_per_minute = VALUES(rate_limit_per_minute), tracking_rate_limit_per_minute = VALUES(tracking_rate_limit_per_minute)`,
    [uuid(club.id), club.name, club.rateLimitPerMinute ?? null, club.trackingRateLimitPerMinute ?? null],
  );
  if (club.ingestRateLimitPerMinute === undefined) {
    await conn.query("DELETE FROM club_ingest_limits WHERE club_id = ?", [id]);
  } else {
    await conn.query(
      "INSERT INTO club_ingest_limits (club_id, rate_limit_per_minute) VALUES (?, ?) ON DUPLICATE KEY UPDATE rate_limit_per_minute = VALUES(rate_limit_per_minute)",
      [id, club.ingestRateLimitPerMinute],
    );
  }
  await replaceClubOrigins(conn, id, club.allowedOrigins ?? []);
  return id;
}

async function writeClient(conn: Connection, client: Client, clubId: number, secret: SecretChange): Promise<void> {
  const fields = [
    clubId,
    client.name ?? null,
    [...new Set(client.scopes)].join(" "), // each once: so the column holds every list of known scopes
    client.disabled ?? false,
    date(client.expiresAt),
    JSON.stringify(client.ipAllowlist ?? []),
  ];
  if (secret.kind === "new") {
    await conn.query(
      `INSERT INTO api_clients (club_id, name, scopes, disabled, expires_at, ip_allowlist, client_id, secret_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [...fields, client.clientId, secret.hash],
    );
  } else {
    const rotation = secret.kind === "rotated" ? ", secret_hash = ?, secret_version = secret_version + 1" : "";
    await conn.query(
      `UPDATE api_clients SET club_id = ?, name = ?, scopes = ?, disabled = ?, expires_at = ?, ip_allowlist = ?${rotation} WHERE client_id = ?`,
      secret.kind === "rotated" ? [...fields, secret.hash, client.clientId] : [...fields, client.clientId],
    );
  }
  const [[row]] = await conn.query<RowDataPacket[]>("SELECT id FROM api_clients WHERE client_id = ?", [client.clientId]);
  await replaceClientOrigins(conn, Number(row!.id), client.allowedOrigins ?? []);
}

async function upsertEvent(conn: Connection, event: Event, clubId: number): Promise<number> {
  return upsertReturningId(
    conn,
    `INSERT INTO events (uuid, club_id, name, start_date, end_date, published, legacy, tracking_shared, delay_seconds)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id), club_id = VALUES(club_id), name = VALUES(name),
       start_date = VALUES(start_date), end_date = VALUES(end_date), published = VALUES(published),
       legacy = VALUES(legacy), tracking_shared = VALUES(tracking_shared), delay_seconds = VALUES(delay_seconds)`,
    [
      uuid(event.id),
      clubId,
      event.name,
      date(event.startDate),
      date(event.endDate),
      event.published ?? true,
      event.legacy ?? false,
      event.trackingShared ?? false,
      event.delaySeconds ?? 0,
    ],
  );
}

async function replaceCoHosts(conn: Connection, eventId: number, clubIds: number[]): Promise<void> {
  await conn.query("DELETE FROM event_co_hosts WHERE event_id = ?", [eventId]);
  if (clubIds.length > 0) {
    await conn.query("INSERT IGNORE INTO event_co_hosts (event_id, club_id) VALUES ?", [clubIds.map((clubId) => [eventId, clubId])]);
  }
}

async function upsertEntry(conn: Connection, entry: Entry, eventId: number): Promise<number> {
  const id = await upsertReturningId(
    conn,
    `INSERT INTO entries (uuid, event_id, sail_number, boat_name, approved, has_phone) VALUES (?, ?, ?, ?, ?, ?)
     ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id), sail_number = VALUES(sail_number), boat_name = VALUES(boat_name),
       approved = VALUES(approved), has_phone = VALUES(has_phone)`,
    [uuid(entry.id), eventId, entry.sailNumber, entry.boatName, entry.approved ?? true, entry.hasPhone ?? true],
  );
  await conn.query(
    `INSERT INTO entry_private (entry_id, user_id, device_id, phone_model) VALUES (?, ?, ?, ?)
     ON DUPLICATE KEY UPDATE user_id = VALUES(user_id), device_id = VALUES(device_id), phone_model = VALUES(phone_model)`,
    [id, entry.userId ?? null, entry.deviceId ?? null, entry.phoneModel ?? null],
  );
  return id;
}

async function upsertRace(conn: Connection, race: Race, eventId: number): Promise<number> {
  return upsertReturningId(
    conn,
    `INSERT INTO races (uuid, event_id, race_no, name, is_live) VALUES (?, ?, ?, ?, ?)
     ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id), event_id = VALUES(event_id), race_no = VALUES(race_no),
       name = VALUES(name), is_live = VALUES(is_live)`,
    [uuid(race.id), eventId, race.raceNo, race.name, race.isLive],
  );
}

/** Writes one start group and everything recorded in it; returns the number of fixes written. */
async function writeStartGroup(
  conn: Connection,
  group: StartGroup,
  raceId: number,
  position: number,
  entryId: (uuid: string) => number,
): Promise<number> {
  const groupId = await upsertReturningId(
    conn,
    `INSERT INTO start_groups (uuid, race_id, position, name, state, start_time, finish_time) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id), race_id = VALUES(race_id), position = VALUES(position),
       name = VALUES(name), state = VALUES(state), start_time = VALUES(start_time), finish_time = VALUES(finish_time)`,
    [uuid(group.id), raceId, position, group.name, group.state, date(group.startTimeUtc), date(group.finishTimeUtc)],
  );

  await conn.query("DELETE FROM start_group_entries WHERE start_group_id = ?", [groupId]);
  if (group.entryIds.length > 0) {
    await conn.query("INSERT INTO start_group_entries (start_group_id, entry_id) VALUES ?", [
      group.entryIds.map((id) => [groupId, entryId(id)]),
    ]);
  }

  for (const course of group.courses ?? []) await writeCourseVersion(conn, groupId, course);

  const wind = group.wind ?? [];
  if (wind.length > 0) {
    await conn.query(
      `INSERT INTO wind_readings (start_group_id, measured_at, twd, tws) VALUES ?
       ON DUPLICATE KEY UPDATE twd = VALUES(twd), tws = VALUES(tws)`,
      [wind.map((w) => [groupId, date(w.measuredAtUtc), w.twd, w.tws ?? null])],
    );
  }

  await writeLiveOrder(conn, groupId, group, entryId);

  const finishes = group.finishes ?? [];
  if (finishes.length > 0) {
    await conn.query("INSERT IGNORE INTO phone_finishes (start_group_id, entry_id, finish_time) VALUES ?", [
      finishes.map((f) => [groupId, entryId(f.entryId), date(f.finishTimeUtc)]),
    ]);
  }

  if (group.results) {
    await conn.query(
      `INSERT INTO official_results (start_group_id, status, published_at) VALUES (?, ?, ?)
       ON DUPLICATE KEY UPDATE status = VALUES(status), published_at = VALUES(published_at)`,
      [groupId, group.results.status, date(group.results.publishedAtUtc)],
    );
    if (group.results.rows.length > 0) {
      await conn.query(
        `INSERT INTO official_result_rows (start_group_id, entry_id, rank_no, status, elapsed_seconds, corrected_seconds, points) VALUES ?
         ON DUPLICATE KEY UPDATE rank_no = VALUES(rank_no), status = VALUES(status), elapsed_seconds = VALUES(elapsed_seconds),
           corrected_seconds = VALUES(corrected_seconds), points = VALUES(points)`,
        [
          group.results.rows.map((r) => [
            groupId,
            entryId(r.entryId),
            r.rank,
            r.status,
            r.elapsedSeconds ?? null,
            r.correctedSeconds ?? null,
            r.points ?? null,
          ]),
        ],
      );
    }
  }

  let fixes = 0;
  for (const track of group.tracks ?? []) fixes += await upsertFixes(conn, groupId, entryId(track.entryId), track);
  return fixes;
}

/** A course version is replaced whole: its steps and marks are what the file says. */
async function writeCourseVersion(conn: Connection, groupId: number, course: CourseVersion): Promise<void> {
  const versionId = await upsertReturningId(
    conn,
    `INSERT INTO course_versions (start_group_id, version, applied_from) VALUES (?, ?, ?)
     ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id), applied_from = VALUES(applied_from)`,
    [groupId, course.version, date(course.appliedFromUtc)],
  );
  await conn.query("DELETE FROM course_steps WHERE course_version_id = ?", [versionId]);
  if (course.steps.length === 0) return;
  await conn.query("INSERT INTO course_steps (course_version_id, step_no, kind, label) VALUES ?", [
    course.steps.map((step, stepNo) => [versionId, stepNo, step.kind, step.label ?? null]),
  ]);
  await conn.query("INSERT INTO course_marks (course_version_id, step_no, mark_no, mark_key, lat, lon) VALUES ?", [
    course.steps.flatMap((step, stepNo) => step.marks.map((mark, markNo) => [versionId, stepNo, markNo, mark.key, mark.lat, mark.lon])),
  ]);
}

/** A live-order reading is replaced whole (its rows are one leaderboard snapshot). */
async function writeLiveOrder(conn: Connection, groupId: number, group: StartGroup, entryId: (uuid: string) => number): Promise<void> {
  const readings = group.liveOrder ?? [];
  if (readings.length === 0) return;
  await conn.query("INSERT IGNORE INTO live_order_readings (start_group_id, as_of) VALUES ?", [
    readings.map((r) => [groupId, date(r.asOfUtc)]),
  ]);
  const times = readings.map((r) => Date.parse(r.asOfUtc));
  const [stored] = await conn.query<RowDataPacket[]>(
    "SELECT id, as_of FROM live_order_readings WHERE start_group_id = ? AND as_of BETWEEN ? AND ?",
    [groupId, new Date(Math.min(...times)), new Date(Math.max(...times))],
  );
  const readingIds = new Map(stored.map((row) => [(row.as_of as Date).getTime(), row.id as number]));
  const ids = times.map((t) => readingIds.get(t)!);
  await conn.query("DELETE FROM live_order_rows WHERE reading_id IN (?)", [ids]);
  const rows = readings.flatMap((reading, i) =>
    reading.rows.map((row) => [
      ids[i],
      entryId(row.entryId),
      row.rank,
      row.elapsedSeconds ?? null,
      row.correctedSeconds ?? null,
      row.deltaSeconds ?? null,
    ]),
  );
  if (rows.length > 0) {
    await conn.query(
      "INSERT INTO live_order_rows (reading_id, entry_id, rank_no, elapsed_seconds, corrected_seconds, delta_seconds) VALUES ?",
      [rows],
    );
  }
}

async function upsertReturningId(conn: Connection, sql: string, values: unknown[]): Promise<number> {
  const [result] = await conn.query<ResultSetHeader>(sql, values);
  return result.insertId;
}

function date(value: string | null | undefined): Date | null {
  return value === null || value === undefined ? null : new Date(value);
}

/** Ids are matched case-insensitively; they are stored lower-case. */
function uuid(id: string): string {
  return id.toLowerCase();
}
