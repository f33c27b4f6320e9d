// The ingest writes other than fixes: wind, live order, phone finishes, start group
// state, course versions, race and event flags, and results. Each is one transaction
// against the race or event as it stands, keyed by its natural key (see ingest.proto).

import type { Caller } from "../auth/guard.js";
import type {
  PublishResultsRequest,
  RecordFinishRequest,
  RecordLiveOrderRequest,
  RecordWindRequest,
  SetCourseRequest,
  UpdateEventRequest,
  UpdateRaceRequest,
  UpdateStartGroupRequest,
} from "../../gen/racing/v1/ingest_pb.js";
import { IngestResultStatus } from "../../gen/racing/v1/ingest_pb.js";
import { StartGroupState } from "../../gen/racing/v1/common_pb.js";
import { dataAsOf } from "../domain/race-time.js";
import { DELAY_HOLD_MS, gunMayChange, settledBefore } from "../domain/fix-rules.js";
import { finishCut, settledRange, tracksReadable } from "../domain/settled-window.js";
import { settledEdge } from "../domain/track-window.js";
import { isUuid } from "../domain/uuid.js";
import { STATE_ENUMS, STEP_KIND_ENUMS, wordOf } from "../messages/enum-words.js";
import { ApiError } from "../errors/api-error.js";
import { fitsColumn } from "../scenario/text-limits.js";
import { hasFixBetween } from "../store/fixes.js";
import {
  groupEntries,
  holdDelay,
  markTracksReadable,
  publishResults,
  raiseSettledFloor,
  recordCourse,
  recordFinish,
  recordLiveOrder,
  recordWind,
  updateEvent,
  updateRace,
  updateStartGroup,
  type IngestStartGroup,
  type ReadingWrite,
  type StartGroupChange,
} from "../store/ingest.js";
import { inTransactionRetryingDeadlocks, type Connection, type Pool } from "../store/pool.js";
import {
  anyTime,
  beforeCommit,
  invalid,
  readingTime,
  startGroupForUpdate,
  writableEventForUpdate,
  writableGroup,
  writableRace,
} from "./access.js";

const MAX_ROWS = 1000;
const MAX_STEPS = 50;

export async function writeWind(pool: Pool, caller: Caller, request: RecordWindRequest): Promise<{ duplicate: boolean }> {
  const nowMs = Date.now();
  const measuredAtMs = readingTime(request.measuredAtUtc, "measuredAtUtc", nowMs);
  if (!Number.isInteger(request.twd) || request.twd < 0 || request.twd > 359) throw invalid("twd");
  const tws = request.tws ?? null;
  if (tws !== null && !(tws >= 0 && tws <= 200)) throw invalid("tws");
  return inTransactionRetryingDeadlocks(pool, async (conn) => {
    const group = await groupOfRace(conn, caller, request);
    return { duplicate: reading(await recordWind(conn, group.id, { measuredAtMs, twd: request.twd, tws }), "measuredAtUtc") };
  });
}

export async function writeLiveOrder(pool: Pool, caller: Caller, request: RecordLiveOrderRequest): Promise<{ duplicate: boolean }> {
  const asOfMs = readingTime(request.asOfUtc, "asOfUtc", Date.now());
  checkRankedRows(request.rows, ["elapsedSeconds", "correctedSeconds", "deltaSeconds"]);
  return inTransactionRetryingDeadlocks(pool, async (conn) => {
    const group = await groupOfRace(conn, caller, request);
    const entries = await entriesOfRows(conn, group.id, request.rows);
    const rows = request.rows.map((row, i) => ({
      entryId: entries[i]!,
      rank: row.rank ?? null,
      elapsedSeconds: row.elapsedSeconds ?? null,
      correctedSeconds: row.correctedSeconds ?? null,
      deltaSeconds: row.deltaSeconds ?? null,
    }));
    return { duplicate: reading(await recordLiveOrder(conn, group.id, asOfMs, rows), "asOfUtc") };
  });
}

export async function writeFinish(pool: Pool, caller: Caller, request: RecordFinishRequest): Promise<{ duplicate: boolean }> {
  const nowMs = Date.now();
  const finishMs = readingTime(request.finishTimeUtc, "finishTimeUtc", nowMs);
  return inTransactionRetryingDeadlocks(pool, async (conn) => {
    const race = await writableRace(conn, caller, request.raceId);
    const group = await startGroupForUpdate(conn, race, request.startGroupId);
    const entryUuid = request.entryId.toLowerCase();
    const entry = isUuid(entryUuid) ? (await groupEntries(conn, group.id, [entryUuid])).get(entryUuid) : undefined;
    if (!entry) throw invalid("entryId");
    // A finish ends the boat's capture window: it may not cut points out of a settled
    // window (hasFixBetween locks the range against batches until this commits), and it
    // must commit before the windows after it may settle.
    const checkedAtMs = Date.now();
    const settledMs = settledBefore(checkedAtMs, race.event.delaySeconds, race.event.settledFloorMs);
    const cut = finishCut(finishMs, settledRange(group.gunMs, entry.finishMs, settledMs));
    if (cut && (await hasFixBetween(conn, group.id, entry.id, cut.fromMs - 1, cut.untilMs))) throw invalid("finishTimeUtc");
    const duplicate = (await recordFinish(conn, group.id, entry.id, finishMs)) === "duplicate";
    beforeCommit(checkedAtMs);
    return { duplicate };
  });
}

export async function writeStartGroup(pool: Pool, caller: Caller, request: UpdateStartGroupRequest): Promise<{ changed: boolean }> {
  const change: StartGroupChange = {};
  if (request.state !== StartGroupState.UNSPECIFIED) {
    const state = wordOf(STATE_ENUMS, request.state);
    if (state === undefined) throw invalid("state");
    change.state = state;
  }
  if (request.clearStartTime && request.startTimeUtc) throw invalid("startTimeUtc");
  if (request.clearFinishTime && request.finishTimeUtc) throw invalid("finishTimeUtc");
  if (request.startTimeUtc) change.gunMs = anyTime(request.startTimeUtc, "startTimeUtc");
  if (request.clearStartTime) change.gunMs = null;
  if (request.finishTimeUtc) change.finishMs = anyTime(request.finishTimeUtc, "finishTimeUtc");
  if (request.clearFinishTime) change.finishMs = null;
  return inTransactionRetryingDeadlocks(pool, async (conn) => {
    const race = await writableRace(conn, caller, request.raceId);
    const group = await startGroupForUpdate(conn, race, request.startGroupId);
    const checkedAtMs = Date.now();
    if (
      change.gunMs !== undefined &&
      !gunMayChange(group.gunMs, change.gunMs, settledBefore(checkedAtMs, race.event.delaySeconds, race.event.settledFloorMs))
    )
      throw invalid("startTimeUtc");
    const changed = await updateStartGroup(conn, group.id, change);
    // A gun checked against the settled edge must commit before that edge moves past the margin.
    if (change.gunMs !== undefined) beforeCommit(checkedAtMs);
    return { changed };
  });
}

export async function writeCourse(pool: Pool, caller: Caller, request: SetCourseRequest): Promise<{ duplicate: boolean }> {
  const appliedFromMs = anyTime(request.appliedFromUtc, "appliedFromUtc");
  if (request.version < 1) throw invalid("version");
  if (request.steps.length === 0 || request.steps.length > MAX_STEPS) throw invalid("steps");
  const steps = request.steps.map((step, i) => {
    const kind = wordOf(STEP_KIND_ENUMS, step.kind);
    if (kind === undefined) throw invalid(`steps[${i}].kind`);
    if (step.marks.length !== (kind === "mark" ? 1 : 2)) throw invalid(`steps[${i}].marks`);
    if (step.label !== undefined && (step.label.length === 0 || !fitsColumn("stepLabel", step.label))) throw invalid(`steps[${i}].label`);
    const marks = step.marks.map((mark, k) => {
      const at = `steps[${i}].marks[${k}]`;
      if (mark.key.length === 0 || !fitsColumn("markKey", mark.key)) throw invalid(`${at}.key`);
      if (!(mark.lat >= -90 && mark.lat <= 90)) throw invalid(`${at}.lat`);
      if (!(mark.lon >= -180 && mark.lon <= 180)) throw invalid(`${at}.lon`);
      return { key: mark.key, lat: mark.lat, lon: mark.lon };
    });
    return { kind, label: step.label ?? null, marks };
  });
  return inTransactionRetryingDeadlocks(pool, async (conn) => {
    const group = await groupOfRace(conn, caller, request);
    return { duplicate: reading(await recordCourse(conn, group.id, { version: request.version, appliedFromMs, steps }), "version") };
  });
}

export async function writeRace(pool: Pool, caller: Caller, request: UpdateRaceRequest): Promise<{ changed: boolean }> {
  return inTransactionRetryingDeadlocks(pool, async (conn) => {
    const race = await writableRace(conn, caller, request.raceId);
    return { changed: request.isLive === undefined ? false : await updateRace(conn, race.id, request.isLive) };
  });
}

export async function writeEvent(pool: Pool, caller: Caller, request: UpdateEventRequest): Promise<{ changed: boolean }> {
  const delaySeconds = request.delaySeconds;
  if (delaySeconds !== undefined && !(delaySeconds >= 0 && delaySeconds <= 600)) throw invalid("delaySeconds");
  return inTransactionRetryingDeadlocks(pool, async (conn) => {
    const event = await writableEventForUpdate(conn, caller, request.eventId);
    const checkedAtMs = Date.now();
    const longer = delaySeconds !== undefined && delaySeconds > event.delaySeconds;
    const shorter = delaySeconds !== undefined && delaySeconds < event.delaySeconds;
    // Windows settled under the shorter delay stay settled: keep their edge.
    if (longer) await raiseSettledFloor(conn, event.id, settledEdge(dataAsOf(checkedAtMs, event.delaySeconds)));
    // Batches checked under the longer delay may still commit: readers keep its edge meanwhile.
    if (shorter) await holdDelay(conn, event.id, event.delaySeconds, checkedAtMs, checkedAtMs + DELAY_HOLD_MS);
    const changed = await updateEvent(conn, event.id, {
      published: request.published,
      trackingShared: request.trackingShared,
      delaySeconds,
    });
    // From now on its windows may be served: recorded tracks may no longer be loaded.
    const sharing = {
      ...event,
      published: request.published ?? event.published,
      trackingShared: request.trackingShared ?? event.trackingShared,
    };
    if (tracksReadable(sharing)) await markTracksReadable(conn, [event.uuid], checkedAtMs);
    // Both were computed at checkedAtMs, while readers under the old delay move on.
    if (longer || shorter) beforeCommit(checkedAtMs);
    return { changed };
  });
}

export async function writeResults(pool: Pool, caller: Caller, request: PublishResultsRequest): Promise<{ changed: boolean }> {
  const status =
    request.status === IngestResultStatus.PROVISIONAL ? "provisional" : request.status === IngestResultStatus.FINAL ? "final" : null;
  if (!status) throw invalid("status");
  const publishedAtMs = readingTime(request.publishedAtUtc, "publishedAtUtc", Date.now());
  checkRankedRows(request.rows, ["elapsedSeconds", "correctedSeconds", "points"]);
  for (const [i, row] of request.rows.entries()) {
    if (!/^[A-Z]+$/.test(row.status) || !fitsColumn("resultStatus", row.status)) throw invalid(`rows[${i}].status`);
  }
  return inTransactionRetryingDeadlocks(pool, async (conn) => {
    const group = await groupOfRace(conn, caller, request);
    const entries = await entriesOfRows(conn, group.id, request.rows);
    const rows = request.rows.map((row, i) => ({
      entryId: entries[i]!,
      rank: row.rank ?? null,
      status: row.status,
      elapsedSeconds: row.elapsedSeconds ?? null,
      correctedSeconds: row.correctedSeconds ?? null,
      points: row.points ?? null,
    }));
    return { changed: await publishResults(conn, group.id, { status, publishedAtMs, rows }) };
  });
}

/** A live order's or a result's rows: not too many, ranks from 1, and finite numbers where given. */
function checkRankedRows<Row extends { rank?: number }>(rows: readonly Row[], numbers: readonly (keyof Row & string)[]): void {
  if (rows.length > MAX_ROWS) throw invalid("rows");
  for (const [i, row] of rows.entries()) {
    if (row.rank !== undefined && row.rank < 1) throw invalid(`rows[${i}].rank`);
    for (const name of numbers) {
      const value = row[name];
      if (value !== undefined && !Number.isFinite(value)) throw invalid(`rows[${i}].${name}`);
    }
  }
}

async function groupOfRace(conn: Connection, caller: Caller, request: { raceId: string; startGroupId: string }): Promise<IngestStartGroup> {
  return (await writableGroup(conn, caller, request.raceId, request.startGroupId)).group;
}

/**
 * Row ids of the entries of a live order's or a result's rows, in their order; an
 * unknown, malformed or repeated id is INVALID_ARGUMENT naming `rows[i].entryId`.
 */
async function entriesOfRows(conn: Connection, startGroupId: number, rows: readonly { entryId: string }[]): Promise<number[]> {
  const entries = await groupEntries(conn, startGroupId, [...new Set(rows.map((row) => row.entryId.toLowerCase()))]);
  const seen = new Set<number>();
  return rows.map((row, i) => {
    const id = entries.get(row.entryId.toLowerCase())?.id;
    if (id === undefined || seen.has(id)) throw invalid(`rows[${i}].entryId`);
    seen.add(id);
    return id;
  });
}

/** A reading's outcome as the answer's `duplicate`; the same key with other values is INGEST_CONFLICT. */
function reading(outcome: ReadingWrite, key: string): boolean {
  if (outcome === "conflict") throw new ApiError("INGEST_CONFLICT", { name: key });
  return outcome === "duplicate";
}
