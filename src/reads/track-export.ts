// TrackService.ExportTrack: a start group's whole track, all boats or one, as one GPX,
// KML, GeoJSON or CSV file streamed as it is read. It serves exactly the fixes of the
// group's track pages: the same boats, the same capture windows, the same cut at the
// delayed cut-off and the same immutable rule (track-window.ts exportWindow). Each boat
// is read a page at a time and written as soon as it is read; the consumer pulls the
// next chunk only when it has sent the last, so memory stays flat however long the race.
// A settled export has a weak ETag made from what decides its bytes, so a matching
// If-None-Match is answered before anything is read.

import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  ExportFormat,
  type ExportTrackRequest,
  type ExportTrackResponse,
  ExportTrackResponseSchema,
  TrackService,
} from "../../gen/racing/v1/track_pb.js";
import type { Caller } from "../auth/guard.js";
import { DATA_AS_OF_HEADER, EXPORT_SETTLED_CACHE_CONTROL, NEAR_NOW_CACHE_CONTROL } from "../caching/cache-policy.js";
import { matchesIfNoneMatch } from "../caching/validators.js";
import { guardedDownload } from "../calls/guarded-stream.js";
import { EXPORT_FORMATS, exportFileName, type ExportFormatName } from "../domain/export/formats.js";
import { OutputBytes } from "../domain/export/output-bytes.js";
import { courseMarks, type ExportHead, type FileBoat, type TrackFileWriter } from "../domain/export/track-file.js";
import { captureWindow, dataAsOf } from "../domain/race-time.js";
import { compareSailNumbers } from "../domain/sail-number.js";
import { exportWindow, overlap, readerSlackMs, type TimeRange, type TrackWindow } from "../domain/track-window.js";
import { isUuid } from "../domain/uuid.js";
import { ApiError } from "../errors/api-error.js";
import { boatKey, groupBoats, phoneFinishes, type GroupBoat } from "../store/boats.js";
import { boatFixesPage, type BoatFix } from "../store/fixes.js";
import type { Pool } from "../store/pool.js";
import { appliedCourses } from "../store/race-live.js";
import type { RaceRecord, StartGroupRecord } from "../store/races.js";
import type { ServiceDeps } from "./deps.js";
import { checkStartGroupId, invalid, startGroup } from "./request-params.js";

/**
 * Fixes per read of one boat: a boat's 3 hours at 1 Hz (about 11,100) fit one page, so
 * a format that passes over a boat's fixes more than once (GeoJSON, KML) reads it once.
 */
export const EXPORT_PAGE_FIXES = 16_384;
/** Changed whenever a writer changes its bytes: a settled export's ETag then changes too. */
const WRITERS_VERSION = 1;

const FORMAT_NAMES: Partial<Record<ExportFormat, ExportFormatName>> = {
  [ExportFormat.GPX]: "gpx",
  [ExportFormat.KML]: "kml",
  [ExportFormat.GEOJSON]: "geojson",
  [ExportFormat.CSV]: "csv",
};

export function trackExportService(deps: ServiceDeps): Pick<ServiceImpl<typeof TrackService>, "exportTrack"> {
  return {
    exportTrack: guardedDownload(deps, TrackService.method.exportTrack, deps.exports, (request, caller, context) =>
      exportTrack(deps, request, caller, context),
    ),
  };
}

async function* exportTrack(
  deps: ServiceDeps,
  request: ExportTrackRequest,
  caller: Caller,
  context: HandlerContext,
): AsyncGenerator<ExportTrackResponse> {
  checkStartGroupId(request.startGroupId);
  const format = FORMAT_NAMES[request.format];
  if (format === undefined) throw invalid("format");
  if (request.entryId !== undefined && !isUuid(request.entryId)) throw invalid("entryId");
  const entryId = request.entryId?.toLowerCase();

  const race = await deps.races.trackingRace(caller, request.raceId);
  const group = startGroup(race, request.startGroupId);
  const nowMs = Date.now();
  const cutoffMs = dataAsOf(nowMs, race.event.delaySeconds);
  const source = deps.reads.readFrom();
  const window = exportWindow(group.gunMs, cutoffMs, readerSlackMs(source.behindMs, race.event.delaySeconds, race.event.delayHold, nowMs));

  context.responseHeader.set(DATA_AS_OF_HEADER, new Date(cutoffMs).toISOString());
  if (window?.immutable) {
    const etag = settledEtag(race, group, format, entryId);
    context.responseHeader.set("cache-control", EXPORT_SETTLED_CACHE_CONTROL);
    context.responseHeader.set("etag", etag);
    if (matchesIfNoneMatch(context.requestHeader.get("if-none-match") ?? undefined, etag)) {
      yield create(ExportTrackResponseSchema, { notModified: true });
      return;
    }
  } else context.responseHeader.set("cache-control", NEAR_NOW_CACHE_CONTROL);

  const { chosen, boats } = await servedBoats(source.pool, group, window, entryId);
  const course = (await appliedCourses(source.pool, [group.id], window?.untilMs ?? cutoffMs)).get(group.id);
  const head: ExportHead = {
    eventName: race.event.name,
    raceName: race.name,
    startGroupName: group.name,
    marks: courseMarks(course?.steps ?? []),
  };
  const spec = EXPORT_FORMATS[format];
  const boatPart = entryId === undefined ? [] : [chosen[0]!.sailNumber];
  yield create(ExportTrackResponseSchema, {
    fileName: exportFileName([race.event.name, race.name, group.name, ...boatPart], format),
    mediaType: spec.mediaType,
  });

  const out = new OutputBytes();
  spec.writer.head(out, head);
  let index = 0;
  let ahead = boats.length > 0 ? readAhead(firstPage(source.pool, group.id, boats[0]!)) : undefined;
  for (let i = 0; i < boats.length; i++) {
    if (context.signal.aborted) return;
    const boat: BoatRead = { pool: source.pool, startGroupId: group.id, ...boats[i]!, index };
    const first = await ahead!;
    const next = boats[i + 1];
    // The next boat's first page is read while this one is written, once this one needs no more reads.
    const lastRead = () => {
      ahead = next && readAhead(firstPage(source.pool, group.id, next));
    };
    const written = yield* writeBoat(spec.writer, head, out, boat, first, lastRead);
    if (written) index++;
  }
  spec.writer.tail(out);
  yield* send(out, true);
}

/** A weak validator of a settled export: everything its bytes depend on, known before a fix is read. */
function settledEtag(race: RaceRecord, group: StartGroupRecord, format: ExportFormatName, entryId: string | undefined): string {
  const decides = [WRITERS_VERSION, race.uuid, group.uuid, race.event.delaySeconds, group.gunMs, format, entryId ?? "*"];
  // The names are in the file (its title): renaming the event, race or group makes another file.
  const names = [race.event.name, race.name, group.name];
  const hash = createHash("sha256")
    .update(JSON.stringify([...decides, ...names]))
    .digest("base64url")
    .slice(0, 27);
  return `W/"${hash}"`;
}

/** A boat to write and the part of the window its capture window serves. */
interface ServedBoat {
  entry: GroupBoat;
  served: TimeRange;
}

/**
 * The boats a track page of the whole window would show, by sail number, with the
 * range each one's capture window serves (track.ts readBoats' rule): every boat the
 * group shows, or only `entryId`, which must be one of them (ENTRY_NOT_FOUND
 * otherwise, whether or not it has fixes yet).
 */
async function servedBoats(
  pool: Pool,
  group: StartGroupRecord,
  window: TrackWindow | null,
  entryId: string | undefined,
): Promise<{ chosen: GroupBoat[]; boats: ServedBoat[] }> {
  const [entries, finishes] = await Promise.all([
    groupBoats(pool, [group.id]),
    window === null ? new Map<string, number>() : phoneFinishes(pool, [group.id], window.untilMs),
  ]);
  const chosen = entryId === undefined ? entries : entries.filter((entry) => entry.uuid === entryId);
  if (entryId !== undefined && chosen.length === 0) throw new ApiError("ENTRY_NOT_FOUND");
  const boats: ServedBoat[] = [];
  for (const entry of window === null ? [] : chosen) {
    const range = captureWindow(group.gunMs, finishes.get(boatKey(group.id, entry.entryId)) ?? null);
    const served = range && overlap(range, window!.sinceMs, window!.untilMs);
    if (served) boats.push({ entry, served });
  }
  boats.sort((a, b) => compareSailNumbers(a.entry.sailNumber, b.entry.sailNumber) || (a.entry.uuid < b.entry.uuid ? -1 : 1));
  return { chosen, boats };
}

interface BoatRead extends ServedBoat {
  pool: Pool;
  startGroupId: number;
  /** The boat's place among the boats written. */
  index: number;
}

/** A boat's first page. */
function firstPage(pool: Pool, startGroupId: number, boat: ServedBoat): Promise<BoatFix[]> {
  return boatFixesPage(pool, startGroupId, boat.entry.entryId, boat.served.fromMs, boat.served.untilMs, EXPORT_PAGE_FIXES);
}

/** A read started before it is awaited: should the download end first, its failure is nobody's (never an unhandled rejection). */
function readAhead(read: Promise<BoatFix[]>): Promise<BoatFix[]> {
  read.catch(() => {});
  return read;
}

/**
 * One boat, pass by pass, a page at a time, the next page read while one is written;
 * nothing when it has no fix in its served range (a track page leaves such a boat out
 * too). A boat that fits one page is read once for every pass. Calls `lastRead` once
 * the boat reads nothing more. Returns whether it was written.
 */
async function* writeBoat(
  writer: TrackFileWriter,
  head: ExportHead,
  out: OutputBytes,
  boat: BoatRead,
  first: BoatFix[],
  lastRead: () => void,
): AsyncGenerator<ExportTrackResponse, boolean> {
  const { fromMs, untilMs } = boat.served;
  const read = (afterMs: number) => boatFixesPage(boat.pool, boat.startGroupId, boat.entry.entryId, afterMs, untilMs, EXPORT_PAGE_FIXES);
  const whole = first.length < EXPORT_PAGE_FIXES;
  if (whole) lastRead();
  if (first.length === 0) return false;
  const file: FileBoat = {
    entryId: boat.entry.uuid,
    sailNumber: boat.entry.sailNumber,
    boatName: boat.entry.boatName,
    index: boat.index,
    onlyFix: whole && first.length === 1,
  };
  writer.boatHead(out, head, file);
  for (let pass = 0; pass < writer.passes; pass++) {
    if (pass > 0) writer.passBreak(out, file, pass);
    let page: BoatFix[] = pass === 0 || whole ? first : await read(fromMs);
    for (let continued = false; ; continued = true) {
      const following = page.length < EXPORT_PAGE_FIXES ? undefined : readAhead(read(page.at(-1)!.t + 1));
      writer.fixes(out, file, page, pass, continued);
      yield* send(out, false);
      if (following === undefined) break;
      page = await following;
      if (page.length === 0) break;
    }
  }
  if (!whole) lastRead();
  writer.boatTail(out, file);
  return true;
}

/** The chunks written so far (all of them at the end), a message each. */
function* send(out: OutputBytes, end: boolean): Generator<ExportTrackResponse> {
  for (const data of out.take(end)) yield create(ExportTrackResponseSchema, { data });
}
