// One boat's recorded track read from GPX files (a logger's or a phone app's export):
// every track point of every <trk>, GPX 1.0 or 1.1, with the speed and course a point
// carries (GPX 1.0's <speed> and <course>, or Garmin's TrackPointExtension v2), put in
// time order. Parsed with fast-xml-parser; what makes a file unusable is said with the
// point at fault, so a person can fix it.

import { XMLParser, XMLValidator } from "fast-xml-parser";

/** One point as LoadRecordedTracks takes it: epoch ms, degrees, knots; NaN where not reported. */
export interface GpxPoint {
  tMs: number;
  lat: number;
  lon: number;
  sogKn: number;
  cogDeg: number;
}

export interface GpxTrack {
  /** In time order, one per time. */
  points: GpxPoint[];
  /** Points dropped because an earlier one (in the files' order) has the same time. */
  repeatedTimes: number;
}

export class GpxError extends Error {}

const KN_PER_M_PER_S = 3600 / 1852;
/** xsd:dateTime as GPX writes it: a date, a time, optional fractions, and a zone (Z or an offset). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  // Numbers and times need no entities; a DOCTYPE's own ones could blow a file up.
  processEntities: false,
  isArray: (name) => name === "trk" || name === "trkseg" || name === "trkpt",
});

/** The points of all `files` (name and text) as one boat's track. */
export function gpxTrack(files: ReadonlyArray<{ name: string; text: string }>): GpxTrack {
  const points = files.flatMap((file) => gpxPoints(file.name, file.text));
  // A stable sort: of two points at one time, the first read stays.
  points.sort((a, b) => a.tMs - b.tMs);
  const kept = points.filter((point, i) => i === 0 || point.tMs !== points[i - 1]!.tMs);
  return { points: kept, repeatedTimes: points.length - kept.length };
}

function gpxPoints(name: string, text: string): GpxPoint[] {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new GpxError(`${name}: not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  const doc = parser.parse(text) as { gpx?: { trk?: Array<{ trkseg?: Array<{ trkpt?: unknown[] }> }> } };
  if (typeof doc.gpx !== "object" || doc.gpx === null) throw new GpxError(`${name}: not a GPX file (no <gpx> element)`);
  const points: GpxPoint[] = [];
  for (const [t, trk] of (doc.gpx.trk ?? []).entries()) {
    for (const [s, segment] of (trk.trkseg ?? []).entries()) {
      for (const [p, trkpt] of (segment.trkpt ?? []).entries())
        points.push(point(trkpt, `${name}: trk ${t + 1}, trkseg ${s + 1}, trkpt ${p + 1}`));
    }
  }
  if (points.length === 0) throw new GpxError(`${name}: no track points (<trkpt> in <trk><trkseg>)`);
  return points;
}

interface TrkPt {
  "@lat"?: string;
  "@lon"?: string;
  time?: string;
  speed?: string;
  course?: string;
  extensions?: { TrackPointExtension?: { speed?: string; course?: string } };
}

function point(raw: unknown, at: string): GpxPoint {
  const trkpt = (typeof raw === "object" && raw !== null ? raw : {}) as TrkPt;
  const lat = decimal(trkpt["@lat"]);
  const lon = decimal(trkpt["@lon"]);
  if (!(lat >= -90 && lat <= 90)) throw new GpxError(`${at}: lat ${JSON.stringify(trkpt["@lat"] ?? null)} is not a latitude`);
  if (!(lon >= -180 && lon <= 180)) throw new GpxError(`${at}: lon ${JSON.stringify(trkpt["@lon"] ?? null)} is not a longitude`);
  const time = typeof trkpt.time === "string" ? trkpt.time.trim() : "";
  const tMs = DATE_TIME.test(time) ? Date.parse(time) : Number.NaN;
  if (!Number.isFinite(tMs)) throw new GpxError(`${at}: <time> ${JSON.stringify(trkpt.time ?? null)} is not a date and time with a zone`);
  const extension = trkpt.extensions?.TrackPointExtension;
  const speedMs = decimal(trkpt.speed ?? extension?.speed);
  return { tMs, lat, lon, sogKn: speedMs * KN_PER_M_PER_S, cogDeg: decimal(trkpt.course ?? extension?.course) };
}

/** An xsd:decimal's value; NaN for anything else (absent: not reported). */
function decimal(text: string | undefined): number {
  return typeof text === "string" && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/.test(text) ? Number(text) : Number.NaN;
}
