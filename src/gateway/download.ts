// A server-streaming RPC that produces a file (the track export) as a download: its
// query into the request message, and the messages into the answer. Translation only:
// the RPC decides the file, its name, media type, validators and freshness; this
// writes the first message as the answer's head (Content-Type, Content-Disposition),
// then each message's bytes as they come, compressed when the client takes it, pulling
// the next message only once the socket has taken the last.

import { type DescMethodServerStreaming, type MessageInitShape, create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { FastifyRequest, FastifySchema } from "fastify";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ServerResponse } from "node:http";
import { ExportFormat, type ExportTrackRequestSchema, type ExportTrackResponse, TrackService } from "../../gen/racing/v1/track_pb.js";
import type { Services } from "../calls/connect-routes.js";
import { EXPORT_FORMAT_NAMES, EXPORT_FORMATS } from "../domain/export/formats.js";
import { compressingStream, type Encoding } from "./encoded-body.js";
import { downloadRouteSchema, type DownloadRouteDocs } from "./route-schemas.js";

export interface DownloadRoute {
  path: string;
  rpc: DescMethodServerStreaming;
  schema: FastifySchema;
  open(services: Services, request: FastifyRequest, context: HandlerContext): AsyncIterator<ExportTrackResponse>;
}

/** The file's head from its first message: how the browser saves it. */
export function fileHeaders(first: ExportTrackResponse): Record<string, string> {
  // exportFileName writes only ASCII letters, digits, dashes, underscores and a dot: nothing to quote or encode.
  return { "content-type": first.mediaType, "content-disposition": `attachment; filename="${first.fileName}"` };
}

/**
 * Writes the file: every message's bytes after the first, compressed as `encoding`
 * says, with the socket's backpressure (pipeline). A failure or a client gone midway
 * ends the socket without the closing chunk, so the client sees a broken download,
 * never a file that looks whole; either way the RPC's stream is ended (its finally
 * releases its slot).
 */
export async function writeDownload(raw: ServerResponse, messages: AsyncIterator<ExportTrackResponse>, encoding: Encoding): Promise<void> {
  const bytes = Readable.from(fileBytes(messages), { objectMode: false });
  if (encoding === "identity") await pipeline(bytes, raw);
  else await pipeline(bytes, compressingStream(encoding), raw);
}

async function* fileBytes(messages: AsyncIterator<ExportTrackResponse>): AsyncGenerator<Uint8Array> {
  try {
    for (;;) {
      const next = await messages.next();
      if (next.done) return;
      if (next.value.data.length > 0) yield next.value.data;
    }
  } finally {
    await messages.return?.();
  }
}

type ExportQuery = { startGroupId?: string; format: (typeof EXPORT_FORMAT_NAMES)[number]; entryId?: string };

const FORMAT_VALUES: Record<ExportQuery["format"], ExportFormat> = {
  gpx: ExportFormat.GPX,
  kml: ExportFormat.KML,
  geojson: ExportFormat.GEOJSON,
  csv: ExportFormat.CSV,
};

const uuidParam = (description: string) => ({ type: "string", format: "uuid", minLength: 36, maxLength: 36, description });

export const TRACK_EXPORT_QUERY = {
  type: "object",
  required: ["format"],
  properties: {
    startGroupId: uuidParam("The start group to export; required when the race has more than one."),
    format: {
      type: "string",
      enum: EXPORT_FORMAT_NAMES,
      description: `The file format: ${EXPORT_FORMAT_NAMES.map((name) => `${name} (${EXPORT_FORMATS[name].mediaType})`).join(", ")}.`,
    },
    entryId: uuidParam("One entry of the start group to export alone; omitted: every boat."),
  },
};

function exportRequest(request: FastifyRequest): MessageInitShape<typeof ExportTrackRequestSchema> {
  const query = request.query as ExportQuery;
  return {
    raceId: (request.params as { raceId: string }).raceId,
    startGroupId: query.startGroupId,
    format: FORMAT_VALUES[query.format],
    entryId: query.entryId,
  };
}

export function trackExportRoute(docs: Omit<DownloadRouteDocs, "rpc" | "mediaTypes" | "querystring">): DownloadRoute {
  const rpc = TrackService.method.exportTrack;
  return {
    path: "/races/:raceId/track/export",
    rpc,
    schema: downloadRouteSchema({
      ...docs,
      rpc,
      querystring: TRACK_EXPORT_QUERY,
      mediaTypes: EXPORT_FORMAT_NAMES.map((name) => EXPORT_FORMATS[name].mediaType),
    }),
    open(services, request, context) {
      const messages = services.track.exportTrack(create(rpc.input, exportRequest(request)), context);
      // The service yields whole messages (create()), not init shapes.
      return messages[Symbol.asyncIterator]() as AsyncIterator<ExportTrackResponse>;
    },
  };
}
