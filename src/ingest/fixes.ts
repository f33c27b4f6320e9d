// AppendFixes (and each message of StreamFixes): one batch of GPS fixes of one start
// group, written atomically. The batch's shape is checked first (a malformed batch
// writes nothing); then each fix is sorted into written, duplicate or rejected with
// its reason, against the group as it stands when the batch is checked.

import { fitsColumn } from "../scenario/text-limits.js";
import type { Caller } from "../auth/guard.js";
import {
  inRange,
  MAX_FIXES_PER_BATCH,
  malformedField,
  settledBefore,
  storedNumber,
  timeRejection,
  type BoatFixesInput,
  type FixContext,
  type FixRejection,
} from "../domain/fix-rules.js";
import { fixesInRanges, insertNewFixes, ROWS_PER_STATEMENT, type FixRange, type FixRow, type NewFix } from "../store/fixes.js";
import { recordDevice, type GroupEntry } from "../store/ingest.js";
import { ingestedFixes } from "../telemetry/metrics.js";
import { retryingDeadlocks, transactionOn, type Connection, type Pool } from "../store/pool.js";
import { beforeCommit, invalid, writableGroup } from "./access.js";

export interface FixBatch {
  raceId: string;
  startGroupId: string;
  boats: ReadonlyArray<BoatFixesInput & { deviceId?: string | undefined; phoneModel?: string | undefined }>;
}

export interface RejectedFix {
  entryId: string;
  t: bigint;
  reason: FixRejection;
}

/** What became of a batch's fixes: accepted + duplicates + rejected.length = fixes sent. */
export interface FixCounts {
  accepted: number;
  duplicates: number;
  rejected: RejectedFix[];
}

export async function appendFixes(pool: Pool, caller: Caller, batch: FixBatch): Promise<FixCounts> {
  checkShape(batch, MAX_FIXES_PER_BATCH);
  const counts = await retryingDeadlocks(() => writeBatch(pool, caller, batch));
  countFixes(counts);
  return counts;
}

/** Refuses a malformed batch whole (fix-rules.ts malformedField, and device data the columns hold). */
export function checkShape(batch: FixBatch, maxFixes: number): void {
  const malformed = malformedField(batch.boats, maxFixes);
  if (malformed) throw invalid(malformed);
  for (const [i, boat] of batch.boats.entries()) {
    if (boat.deviceId !== undefined && !fitsColumn("deviceId", boat.deviceId)) throw invalid(`boats[${i}].deviceId`);
    if (boat.phoneModel !== undefined && !fitsColumn("phoneModel", boat.phoneModel)) throw invalid(`boats[${i}].phoneModel`);
  }
}

/**
 * The batch checked and written. The checks read the race, group and entries in one
 * plain read (autocommit: the latest committed rows, no lock). A batch that writes one
 * statement, its fixes' INSERT, sends it on its own: autocommit makes that statement
 * one transaction, so a new batch is two statements, where BEGIN, READ COMMITTED and
 * COMMIT made it five. A batch that writes more (device data that changed, over
 * ROWS_PER_STATEMENT fixes) writes in one READ COMMITTED transaction. Either way the
 * write must start within COMMIT_DEADLINE_MS of the checks (beforeCommit).
 */
async function writeBatch(pool: Pool, caller: Caller, batch: FixBatch): Promise<FixCounts> {
  const conn = await pool.getConnection();
  try {
    const entryIds = batch.boats.map((boat) => boat.entryId);
    const { race, group, entries } = await writableGroup(conn, caller, batch.raceId, batch.startGroupId, entryIds);
    const nowMs = Date.now();
    const context: FixContext = {
      nowMs,
      settledBeforeMs: settledBefore(nowMs, race.event.delaySeconds, race.event.settledFloorMs),
      gunMs: group.gunMs,
    };
    const sorted = sortFixes(entries, batch, context);
    const devices = changedDevices(entries, batch);
    if (devices.length === 0 && sorted.filter(isFresh).length <= ROWS_PER_STATEMENT) {
      beforeCommit(nowMs);
      return await writeSorted(conn, group.id, sorted);
    }
    return await transactionOn(
      conn,
      async () => {
        const counts = await writeSorted(conn, group.id, sorted);
        for (const device of devices) await recordDevice(conn, device.entryId, device);
        beforeCommit(nowMs);
        return counts;
      },
      "READ COMMITTED",
    );
  } finally {
    conn.release();
  }
}

/** The committed batch in the metrics (telemetry/metrics.ts). */
export function countFixes(counts: FixCounts): void {
  ingestedFixes.inc({ result: "accepted", reason: "" }, counts.accepted);
  ingestedFixes.inc({ result: "duplicate", reason: "" }, counts.duplicates);
  for (const rejected of counts.rejected) ingestedFixes.inc({ result: "rejected", reason: rejected.reason });
}

/** One fix of the batch on its way: as sent, as it would be stored, and what became of it. */
export interface Sorted {
  sentEntryId: string;
  t: bigint;
  fix: NewFix;
  /** Set by a rule; "DUPLICATE" when the same fix is stored. Unset: written (or a duplicate INSERT IGNORE skipped). */
  outcome?: FixRejection | "DUPLICATE";
  /** A time rule's reason, which stands only if the fix is not stored. */
  late?: FixRejection;
}

/** Each fix of the batch as it would be stored, with what the rules that need no stored fix say of it. */
export function sortFixes(entries: ReadonlyMap<string, GroupEntry>, batch: FixBatch, context: FixContext): Sorted[] {
  const sorted: Sorted[] = [];
  for (const boat of batch.boats) {
    const entry = entries.get(boat.entryId.toLowerCase());
    for (let k = 0; k < boat.t.length; k++) {
      const fix: NewFix = {
        entryId: entry?.id ?? 0,
        t: Number(boat.t[k]!),
        lat: boat.lat[k]!,
        lon: boat.lon[k]!,
        sogKn: storedNumber(boat.sogKn[k]),
        cogDeg: storedNumber(boat.cogDeg[k]),
        accuracyM: privateAccuracy(boat.accuracyM[k]),
      };
      const one: Sorted = { sentEntryId: boat.entryId, t: boat.t[k]!, fix };
      if (!entry) one.outcome = "UNKNOWN_ENTRY";
      else if (!inRange(fix.lat, fix.lon, boat.sogKn[k] ?? NaN, boat.cogDeg[k] ?? NaN)) one.outcome = "OUT_OF_RANGE";
      else one.late = timeRejection(fix.t, context, entry.finishMs) ?? undefined;
      sorted.push(one);
    }
  }
  return sorted;
}

/** A fix no rule has refused so far: it is written unless its key is stored. */
function isFresh(one: Sorted): boolean {
  return !one.outcome && !one.late;
}

/**
 * Writes first and looks at the stored fixes only when it must: a batch is new far
 * more often than it is a retry, so a new batch sends one statement here (the insert).
 * INSERT IGNORE writes no key that is stored; the stored rows then tell a skipped fix's
 * duplicate from its conflict, and a late fix that is stored is a duplicate, not late.
 * The read sees what a concurrent batch committed (autocommit, or READ COMMITTED).
 */
export async function writeSorted(conn: Connection, startGroupId: number, sorted: Sorted[]): Promise<FixCounts> {
  const fresh = sorted.filter(isFresh);
  const written = await insertNewFixes(
    conn,
    startGroupId,
    fresh.map((one) => one.fix),
  );
  const late = sorted.filter((one) => one.late);
  // Only when a key was skipped (a retry) or a fix is late: which of them are stored, and as sent?
  const keySkipped = written < fresh.length;
  const checked = keySkipped ? [...fresh, ...late] : late;
  const stored = checked.length > 0 ? await storedFixes(conn, startGroupId, checked) : new Map<string, FixRow>();
  for (const one of checked) {
    const same = stored.get(`${one.fix.entryId}:${one.fix.t}`);
    if (same) one.outcome = sameValues(same, one.fix) ? "DUPLICATE" : "CONFLICT";
    else one.outcome = one.late;
  }

  const rejected = sorted.flatMap((one) =>
    one.outcome && one.outcome !== "DUPLICATE" ? [{ entryId: one.sentEntryId, t: one.t, reason: one.outcome }] : [],
  );
  // When the fresh fixes were checked, those found as sent include the ones just written.
  const foundAsSent = sorted.filter((one) => one.outcome === "DUPLICATE").length;
  return { accepted: written, duplicates: foundAsSent - (keySkipped ? written : 0), rejected };
}

/**
 * The boats whose device data differs from what is stored (read with the entries, in
 * the same statement): a platform sends it with every batch, and an upsert per boat per
 * batch cost five times the rest of the batch, so only a change is written.
 */
export function changedDevices(
  entries: ReadonlyMap<string, GroupEntry>,
  batch: FixBatch,
): Array<{ entryId: number; deviceId: string | null; phoneModel: string | null }> {
  const changed: Array<{ entryId: number; deviceId: string | null; phoneModel: string | null }> = [];
  for (const boat of batch.boats) {
    const entry = entries.get(boat.entryId.toLowerCase());
    if (!entry || boat.t.length === 0) continue;
    const deviceId = boat.deviceId ?? null;
    const phoneModel = boat.phoneModel ?? null;
    if ((deviceId !== null && deviceId !== entry.deviceId) || (phoneModel !== null && phoneModel !== entry.phoneModel)) {
      changed.push({ entryId: entry.id, deviceId, phoneModel });
    }
  }
  return changed;
}

/** The stored fixes the checked ones may repeat, keyed "entry:t": one primary-key range per boat. */
async function storedFixes(conn: Connection, startGroupId: number, checked: readonly Sorted[]): Promise<Map<string, FixRow>> {
  const ranges = new Map<number, FixRange>();
  for (const { fix } of checked) {
    const range = ranges.get(fix.entryId);
    if (range) {
      range.fromMs = Math.min(range.fromMs, fix.t);
      range.toMs = Math.max(range.toMs, fix.t);
    } else ranges.set(fix.entryId, { entryId: fix.entryId, fromMs: fix.t, toMs: fix.t });
  }
  const rows = await fixesInRanges(conn, startGroupId, [...ranges.values()]);
  return new Map(rows.map((row) => [`${row.entryId}:${row.t}`, row]));
}

/** Position, speed and course as stored; accuracy is private and not compared. */
function sameValues(stored: FixRow, fix: NewFix): boolean {
  return stored.lat === fix.lat && stored.lon === fix.lon && stored.sogKn === fix.sogKn && stored.cogDeg === fix.cogDeg;
}

function privateAccuracy(value: number | undefined): number | null {
  const accuracy = storedNumber(value);
  return accuracy !== null && accuracy >= 0 ? accuracy : null;
}
