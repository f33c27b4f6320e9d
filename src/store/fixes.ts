// GPS fixes: the one table that grows by a million rows per race. Its primary key
// (start_group_id, entry_id, t) makes both hot reads index range reads, which
// test/store/fixes-explain.test.ts proves with EXPLAIN on every run.

import type { ResultSetHeader, RowDataPacket } from "mysql2/promise";
import type { Connection, Pool } from "./pool.js";

export interface FixRow {
  startGroupId: number;
  entryId: number;
  /** Epoch milliseconds. */
  t: number;
  lat: number;
  lon: number;
  sogKn: number | null;
  cogDeg: number | null;
}

/** Parallel arrays of one boat's points, as the scenario format and the track API carry them. */
export interface FixColumns {
  t: readonly number[];
  lat: readonly number[];
  lon: readonly number[];
  sogKn?: readonly (number | null)[] | undefined;
  cogDeg?: readonly (number | null)[] | undefined;
  accuracyM?: readonly (number | null)[] | undefined;
}

/** Rows of one INSERT: at about 60 bytes a row, far below every default max_allowed_packet. */
export const ROWS_PER_STATEMENT = 5000;

/**
 * Inserts a boat's points, replacing any stored point with the same `t` (re-import
 * merges tracks). Values are validated numbers, so the statement is built as text:
 * placeholder expansion would cost more than the insert itself at this volume.
 */
export async function upsertFixes(conn: Connection, startGroupId: number, entryId: number, fixes: FixColumns): Promise<number> {
  const prefix = `(${startGroupId},${entryId},`;
  for (let from = 0; from < fixes.t.length; from += ROWS_PER_STATEMENT) {
    const to = Math.min(from + ROWS_PER_STATEMENT, fixes.t.length);
    const values: string[] = new Array(to - from);
    for (let i = from; i < to; i++) {
      values[i - from] =
        `${prefix}${fixes.t[i]},${fixes.lat[i]},${fixes.lon[i]},${sqlNumber(fixes.sogKn?.[i])},${sqlNumber(fixes.cogDeg?.[i])},${sqlNumber(fixes.accuracyM?.[i])})`;
    }
    await conn.query(
      `INSERT INTO fixes (start_group_id, entry_id, t, lat, lon, sog_kn, cog_deg, accuracy_m) VALUES ${values.join(",")}
       ON DUPLICATE KEY UPDATE lat = VALUES(lat), lon = VALUES(lon), sog_kn = VALUES(sog_kn), cog_deg = VALUES(cog_deg), accuracy_m = VALUES(accuracy_m)`,
    );
  }
  return fixes.t.length;
}

/** One boat's range to seek its newest fix in: [fromMs, toMs], both inclusive. */
export interface FixSeek {
  startGroupId: number;
  entryId: number;
  fromMs: number;
  toMs: number;
}

/**
 * Each boat's newest fix in its own range: one backward seek of the primary key per
 * boat (ORDER BY t DESC LIMIT 1), all in one statement. A UNION ALL rather than a
 * LATERAL join, which MariaDB 10.11 does not have.
 */
export async function newestFixes(db: Pool | Connection, seeks: readonly FixSeek[]): Promise<FixRow[]> {
  if (seeks.length === 0) return [];
  const [rows] = await db.query<RowDataPacket[]>(
    newestFixesSql(seeks.length),
    seeks.flatMap((seek) => [seek.startGroupId, seek.entryId, seek.fromMs, seek.toMs]),
  );
  return rows.map(toFixRow);
}

export function newestFixesSql(seeks: number): string {
  const one = `(SELECT start_group_id, entry_id, t, lat, lon, sog_kn, cog_deg FROM fixes
     WHERE start_group_id = ? AND entry_id = ? AND t BETWEEN ? AND ? ORDER BY t DESC LIMIT 1)`;
  return Array.from({ length: seeks }, () => one).join(" UNION ALL ");
}

/**
 * Every fix of the listed boats in [sinceMs, untilMs), boat by boat in time order:
 * the boat list turns the read into one primary-key range per boat instead of a scan
 * of the whole start group. Sent as a prepared statement: the binary protocol reads
 * these rows in about half the time of the text protocol.
 */
export async function fixesInWindow(
  db: Pool | Connection,
  startGroupId: number,
  entryIds: readonly number[],
  sinceMs: number,
  untilMs: number,
): Promise<FixRow[]> {
  if (entryIds.length === 0) return [];
  const boats = paddedBoatList(entryIds);
  // The columns are named as FixRow's fields, so the driver's rows are the records: a
  // 10-minute page is 60,000 rows, and a copy of each was a third of the page's garbage.
  // (t is a BIGINT of epoch ms, far below 2^53: with supportBigNumbers the driver reads it as a number.)
  const [rows] = await db.execute<RowDataPacket[]>(fixesInWindowSql(boats.length), [startGroupId, ...boats, sinceMs, untilMs]);
  return rows as FixRow[];
}

export function fixesInWindowSql(boats: number): string {
  return `SELECT start_group_id AS startGroupId, entry_id AS entryId, t, lat, lon, sog_kn AS sogKn, cog_deg AS cogDeg FROM fixes
  WHERE start_group_id = ? AND entry_id IN (${Array.from({ length: boats }, () => "?").join(",")}) AND t >= ? AND t < ?
  ORDER BY entry_id, t`;
}

/**
 * The list padded with its last id to a power of two, so a connection prepares at most
 * a handful of statement shapes (a repeated id in IN changes nothing).
 */
function paddedBoatList(entryIds: readonly number[]): number[] {
  let size = 1;
  while (size < entryIds.length) size *= 2;
  return Array.from({ length: size }, (_, i) => entryIds[Math.min(i, entryIds.length - 1)]!);
}

function toFixRow(row: RowDataPacket): FixRow {
  return {
    startGroupId: row.start_group_id as number,
    entryId: row.entry_id as number,
    t: Number(row.t),
    lat: row.lat as number,
    lon: row.lon as number,
    sogKn: row.sog_kn as number | null,
    cogDeg: row.cog_deg as number | null,
  };
}

function sqlNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? "NULL" : String(value);
}

/** A fix to write, accuracy included (private: stored, never read back by a serving query). */
export interface NewFix {
  entryId: number;
  t: number;
  lat: number;
  lon: number;
  sogKn: number | null;
  cogDeg: number | null;
  accuracyM: number | null;
}

/**
 * Writes fixes whose keys are not stored yet; a key stored meanwhile (a concurrent
 * retry of the same batch) is skipped, never overwritten. Returns the rows written.
 * Text SQL for the same reason as upsertFixes: the values are validated numbers.
 */
export async function insertNewFixes(conn: Connection, startGroupId: number, fixes: readonly NewFix[]): Promise<number> {
  let written = 0;
  for (let from = 0; from < fixes.length; from += ROWS_PER_STATEMENT) {
    const values = fixes
      .slice(from, from + ROWS_PER_STATEMENT)
      .map(
        (f) =>
          `(${startGroupId},${f.entryId},${f.t},${f.lat},${f.lon},${sqlNumber(f.sogKn)},${sqlNumber(f.cogDeg)},${sqlNumber(f.accuracyM)})`,
      );
    const [result] = await conn.query<ResultSetHeader>(
      `INSERT IGNORE INTO fixes (start_group_id, entry_id, t, lat, lon, sog_kn, cog_deg, accuracy_m) VALUES ${values.join(",")}`,
    );
    written += result.affectedRows;
  }
  return written;
}

/** One boat's stored fixes in [fromMs, toMs], both inclusive: what a batch may repeat. */
export interface FixRange {
  entryId: number;
  fromMs: number;
  toMs: number;
}

/**
 * The stored fixes of each boat's range, in one statement: the batch's duplicate check,
 * one primary-key range per boat (test/store/fixes.test.ts). Run on its own (autocommit)
 * or in a READ COMMITTED transaction, it sees what a concurrent batch committed
 * (the keys an INSERT IGNORE of this one skipped) without locking a row or a gap
 * between stored keys; the values it compares are the stored bits, as every read's
 * are (store/pool.ts), so a retried fix is a duplicate. A prepared statement, padded
 * as paddedBoatList pads to keep the statement shapes few (a repeated range changes
 * nothing).
 */
export async function fixesInRanges(db: Pool | Connection, startGroupId: number, ranges: readonly FixRange[]): Promise<FixRow[]> {
  if (ranges.length === 0) return [];
  const padded = paddedRanges(ranges);
  const [rows] = await db.execute<RowDataPacket[]>(fixesInRangesSql(padded.length), rangeParams(startGroupId, padded));
  return rows.map(toFixRow);
}

export function fixesInRangesSql(boats: number): string {
  return `SELECT start_group_id, entry_id, t, lat, lon, sog_kn, cog_deg FROM fixes
  WHERE start_group_id = ? AND ${rangesSql(boats)}`;
}

/** A position as the analytics take it (their Fix, with its boat): only the columns they read. */
export interface TrackPoint {
  entryId: number;
  /** Epoch milliseconds. */
  tMs: number;
  lat: number;
  lon: number;
}

/**
 * The positions in each boat's range, as fixesInRanges reads them, for the analytics.
 * The columns are named as TrackPoint's fields, so the driver's rows are the records the
 * analytics keep: a race's rebuild reads a million, and a copy of each cost more than
 * the read.
 */
export async function trackPointsInRanges(db: Pool | Connection, startGroupId: number, ranges: readonly FixRange[]): Promise<TrackPoint[]> {
  if (ranges.length === 0) return [];
  const padded = paddedRanges(ranges);
  const [rows] = await db.execute<RowDataPacket[]>(trackPointsInRangesSql(padded.length), rangeParams(startGroupId, padded));
  return rows as TrackPoint[];
}

export function trackPointsInRangesSql(boats: number): string {
  return `SELECT entry_id AS entryId, t AS tMs, lat, lon FROM fixes WHERE start_group_id = ? AND ${rangesSql(boats)}`;
}

/** The ranges padded with the last to a power of two, as paddedBoatList pads boats. */
function paddedRanges(ranges: readonly FixRange[]): FixRange[] {
  let size = 1;
  while (size < ranges.length) size *= 2;
  return Array.from({ length: size }, (_, i) => ranges[Math.min(i, ranges.length - 1)]!);
}

function rangesSql(boats: number): string {
  return `(${Array.from({ length: boats }, () => "(entry_id = ? AND t BETWEEN ? AND ?)").join(" OR ")})`;
}

function rangeParams(startGroupId: number, ranges: readonly FixRange[]): number[] {
  return [startGroupId, ...ranges.flatMap((r) => [r.entryId, r.fromMs, r.toMs])];
}

/**
 * Whether a boat has a stored fix in (afterMs, beforeMs): what a phone finish at afterMs
 * would cut. A locking read in the caller's REPEATABLE READ transaction: it waits for a
 * batch that has written into the range and not committed, and its next-key locks keep
 * any batch from writing there until the finish commits, so no fix slips in unseen.
 */
export async function hasFixBetween(
  db: Connection,
  startGroupId: number,
  entryId: number,
  afterMs: number,
  beforeMs: number,
): Promise<boolean> {
  const [rows] = await db.query<RowDataPacket[]>(
    "SELECT 1 FROM fixes WHERE start_group_id = ? AND entry_id = ? AND t > ? AND t < ? LIMIT 1 FOR UPDATE",
    [startGroupId, entryId, afterMs, beforeMs],
  );
  return rows.length > 0;
}
