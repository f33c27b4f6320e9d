// AppendFixes (and each message of StreamFixes): one batch of GPS fixes of one start
// group, in one transaction. The batch's shape is checked first (a malformed batch
// writes nothing); then each fix is sorted into written, duplicate or rejected with
// its reason, against the group as it stands inside the transaction.

import { ApiError } from "../errors/api-error.js";
import type { Caller } from "../auth/guard.js";
import {
  COMMIT_DEADLINE_MS,
  inRange,
  malformedField,
  settledBefore,
  storedNumber,
  timeRejection,
  type BoatFixesInput,
  type FixContext,
  type FixRejection,
} from "../domain/fix-rules.js";
import { fixesInRanges, insertNewFixes, type FixRow, type NewFix } from "../store/fixes.js";
import { earliestFinishes, groupEntryIds, recordDevice } from "../store/ingest.js";
import { ingestedFixes } from "../telemetry/metrics.js";
import { inTransactionRetryingDeadlocks, type Connection, type Pool } from "../store/pool.js";
import { invalid, startGroupOf, writableRace } from "./ingest-access.js";

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
  const malformed = malformedField(batch.boats);
  if (malformed) throw invalid(malformed);
  for (const [i, boat] of batch.boats.entries()) {
    if ((boat.deviceId?.length ?? 0) > 200) throw invalid(`boats[${i}].deviceId`);
    if ((boat.phoneModel?.length ?? 0) > 200) throw invalid(`boats[${i}].phoneModel`);
  }
  const counts = await inTransactionRetryingDeadlocks(pool, async (conn) => {
    const race = await writableRace(conn, caller, batch.raceId);
    const group = await startGroupOf(conn, race, batch.startGroupId, "share");
    const nowMs = Date.now();
    const context: FixContext = {
      nowMs,
      settledBeforeMs: settledBefore(nowMs, race.event.delaySeconds, race.event.settledFloorMs),
      gunMs: group.gunMs,
    };
    const counts = await sortAndWrite(conn, group.id, batch, context);
    // The settled edge was checked at nowMs; a reader may serve windows up to the margin
    // later as immutable, so a batch that took longer than that must not become visible.
    if (Date.now() - nowMs > COMMIT_DEADLINE_MS) throw new ApiError("API_UNAVAILABLE");
    return counts;
  });
  countFixes(counts);
  return counts;
}

/** The committed batch in the metrics (telemetry/metrics.ts). */
function countFixes(counts: FixCounts): void {
  ingestedFixes.inc({ result: "accepted", reason: "" }, counts.accepted);
  ingestedFixes.inc({ result: "duplicate", reason: "" }, counts.duplicates);
  for (const rejected of counts.rejected) ingestedFixes.inc({ result: "rejected", reason: rejected.reason });
}

async function sortAndWrite(conn: Connection, startGroupId: number, batch: FixBatch, context: FixContext): Promise<FixCounts> {
  const counts: FixCounts = { accepted: 0, duplicates: 0, rejected: [] };
  const entryIds = await groupEntryIds(conn, startGroupId, [...new Set(batch.boats.map((b) => b.entryId.toLowerCase()))]);
  const known = batch.boats.flatMap((boat) => {
    const entryId = entryIds.get(boat.entryId.toLowerCase());
    return entryId !== undefined && boat.t.length > 0 ? [{ boat, entryId }] : [];
  });
  const [finishes, stored] = await Promise.all([
    earliestFinishes(
      conn,
      startGroupId,
      known.map((k) => k.entryId),
    ),
    storedFixes(conn, startGroupId, known),
  ]);

  const fresh: NewFix[] = [];
  for (const boat of batch.boats) {
    const entryId = entryIds.get(boat.entryId.toLowerCase());
    for (let k = 0; k < boat.t.length; k++) {
      const t = Number(boat.t[k]!);
      const fix: NewFix = {
        entryId: entryId ?? 0,
        t,
        lat: boat.lat[k]!,
        lon: boat.lon[k]!,
        sogKn: storedNumber(boat.sogKn[k]),
        cogDeg: storedNumber(boat.cogDeg[k]),
        accuracyM: privateAccuracy(boat.accuracyM[k]),
      };
      const reason = rejection(fix, entryId, boat, k, stored, context, finishes);
      if (reason === "DUPLICATE") counts.duplicates++;
      else if (reason) counts.rejected.push({ entryId: boat.entryId, t: boat.t[k]!, reason });
      else fresh.push(fix);
    }
  }
  const written = await insertNewFixes(conn, startGroupId, fresh);
  counts.accepted = written;
  // A key another request stored between our read and our insert: that request wrote it.
  counts.duplicates += fresh.length - written;
  for (const { boat, entryId } of known) await recordDevice(conn, entryId, boat);
  return counts;
}

/** Why the fix is not written: a reason, DUPLICATE (stored as sent), or null (write it). */
function rejection(
  fix: NewFix,
  entryId: number | undefined,
  boat: BoatFixesInput,
  k: number,
  stored: Map<string, FixRow>,
  context: FixContext,
  finishes: Map<number, number>,
): FixRejection | "DUPLICATE" | null {
  if (entryId === undefined) return "UNKNOWN_ENTRY";
  if (!inRange(fix.lat, fix.lon, boat.sogKn[k] ?? NaN, boat.cogDeg[k] ?? NaN)) return "OUT_OF_RANGE";
  // Before the time rules: a retry of a batch stored long ago is still a duplicate.
  const same = stored.get(`${entryId}:${fix.t}`);
  if (same) return sameValues(same, fix) ? "DUPLICATE" : "CONFLICT";
  return timeRejection(fix.t, context, finishes.get(entryId) ?? null);
}

/** The stored fixes a batch may repeat, keyed "entry:t". */
async function storedFixes(
  conn: Connection,
  startGroupId: number,
  boats: ReadonlyArray<{ boat: BoatFixesInput; entryId: number }>,
): Promise<Map<string, FixRow>> {
  const ranges = boats.map(({ boat, entryId }) => ({ entryId, fromMs: Number(boat.t[0]!), toMs: Number(boat.t[boat.t.length - 1]!) }));
  const rows = await fixesInRanges(conn, startGroupId, ranges);
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
