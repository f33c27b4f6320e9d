// `race-api upload-gpx`: a boat's GPX recording (a logger's or a phone app's export)
// loaded into a start group through IngestService.LoadRecordedTracks, as a club person
// brings a race sailed offline in before publishing it. Needs no database, only the
// server's URL and a tracking:write client; says what the server took and refused.

import { Code, ConnectError } from "@connectrpc/connect";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { FixRejectionReason } from "../../gen/racing/v1/ingest_pb.js";
import { MAX_RECORDED_FIXES } from "../domain/fix-rules.js";
import { isUuid } from "../domain/uuid.js";
import { createIngestClient, type IngestClientOptions } from "../sim/ingest-client.js";
import { CLIENT_OPTIONS, clientOptions, parseCommandLine, UsageError } from "./client-options.js";
import { printer, processIo, type CommandIo } from "./command-io.js";
import { GpxError, gpxTrack, type GpxPoint } from "./gpx-track.js";

export const UPLOAD_GPX_USAGE = `Usage: race-api upload-gpx --url URL --client-id ID --race RACE_ID --group START_GROUP_ID --entry ENTRY_ID FILE.gpx [FILE.gpx ...]

Loads one boat's recorded track from GPX files (every track point with a time; speed
and course where the file has them) into a start group, through IngestService
LoadRecordedTracks. Possible while the event has never been published with tracking
shared: load every boat first, then publish and share the event.

Required:
  --url URL             the server's base URL (token endpoint; IngestService over Connect)
  --client-id ID        an API client of the event's club with the scope tracking:write;
                        its secret in --client-secret or RACE_API_CLIENT_SECRET
  --race RACE_ID        the race's UUID
  --group GROUP_ID      the start group's UUID
  --entry ENTRY_ID      the boat's entry UUID: every point of the files is this boat's
Options:
  --grpc-url URL        send to the gRPC listener (h2c or TLS) instead of Connect

Points are sent in time order, ${MAX_RECORDED_FIXES.toLocaleString("en")} per call; a point at a time already read is
dropped. Loading the same files again changes nothing (duplicates). Points outside the
start group's capture window (gun - 5 min to gun + 3 h, or the boat's finish) are
refused and counted, the rest are kept.
`;

interface UploadOptions extends IngestClientOptions {
  raceId: string;
  startGroupId: string;
  entryId: string;
  files: string[];
}

export async function uploadGpxCommand(args: string[], io: CommandIo = processIo): Promise<number> {
  const say = printer(io.stdout);
  const options = parseCommandLine("upload-gpx", UPLOAD_GPX_USAGE, io.stderr, () => parseOptions(args, io.env));
  if (!options) return 2;
  let points: GpxPoint[];
  try {
    const files = await Promise.all(options.files.map(async (name) => ({ name, text: await readFile(name, "utf8") })));
    const track = gpxTrack(files);
    points = track.points;
    say(
      `read ${points.length} points from ${options.files.join(", ")}` +
        (track.repeatedTimes > 0 ? ` (${track.repeatedTimes} at a time already read, dropped)` : ""),
    );
  } catch (error) {
    const reason = error instanceof GpxError ? error.message : `${(error as Error).message}`;
    io.stderr.write(`race-api upload-gpx: ${reason}\n`);
    return 1;
  }

  const client = createIngestClient(options);
  const totals = { accepted: 0, duplicates: 0, refused: new Map<string, number>() };
  for (let from = 0; from < points.length; from += MAX_RECORDED_FIXES) {
    const part = points.slice(from, from + MAX_RECORDED_FIXES);
    try {
      const answer = await client.loadRecordedTracks({
        raceId: options.raceId,
        startGroupId: options.startGroupId,
        boats: [
          {
            entryId: options.entryId,
            t: part.map((p) => BigInt(p.tMs)),
            lat: part.map((p) => p.lat),
            lon: part.map((p) => p.lon),
            sogKn: part.map((p) => p.sogKn),
            cogDeg: part.map((p) => p.cogDeg),
          },
        ],
      });
      totals.accepted += answer.accepted;
      totals.duplicates += answer.duplicates;
      const refused = [...answer.rejected.map((r) => ({ reason: r.reason, count: 1 })), ...answer.rejectedUnlisted];
      for (const { reason, count } of refused) {
        const word = FixRejectionReason[reason];
        totals.refused.set(word, (totals.refused.get(word) ?? 0) + count);
      }
    } catch (error) {
      io.stderr.write(`race-api upload-gpx: the server refused the points from ${from + 1} on: ${describe(error)}\n`);
      if (from > 0) io.stderr.write(`(the ${from} points before were loaded; running the command again loads the rest)\n`);
      return 1;
    }
  }
  const refused = [...totals.refused].map(([reason, n]) => `${n} ${reason}`).join(", ");
  say(`loaded: ${totals.accepted} accepted, ${totals.duplicates} duplicates, refused ${refused || "none"}`);
  return 0;
}

function parseOptions(args: string[], env: NodeJS.ProcessEnv): UploadOptions {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      ...CLIENT_OPTIONS,
      race: { type: "string" },
      group: { type: "string" },
      entry: { type: "string" },
    },
  });
  if (positionals.length === 0) throw new UsageError("name at least one GPX file");
  return {
    ...clientOptions(values, env),
    raceId: uuidOption("--race", values.race),
    startGroupId: uuidOption("--group", values.group),
    entryId: uuidOption("--entry", values.entry),
    files: positionals,
  };
}

function uuidOption(name: string, value: string | undefined): string {
  if (value === undefined || !isUuid(value)) throw new UsageError(`${name} must be a UUID, got ${JSON.stringify(value ?? "")}`);
  return value;
}

/** The server's reason (ErrorInfo) when it gave one, with the field at fault. */
function describe(error: unknown): string {
  const e = ConnectError.from(error);
  return `${Code[e.code]}: ${e.rawMessage}`;
}
