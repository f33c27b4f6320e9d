// The export formats: each one's name in the API, media type, file extension and
// writer, and the file's name. Pure.

import { csvWriter } from "./csv.js";
import { geoJsonWriter } from "./geojson.js";
import { gpxWriter } from "./gpx.js";
import { kmlWriter } from "./kml.js";
import type { TrackFileWriter } from "./track-file.js";

export interface ExportFormatSpec {
  /** The media type with its parameters, as Content-Type sends it. */
  mediaType: string;
  extension: string;
  writer: TrackFileWriter;
}

export const EXPORT_FORMATS = {
  gpx: { mediaType: "application/gpx+xml", extension: "gpx", writer: gpxWriter },
  kml: { mediaType: "application/vnd.google-earth.kml+xml", extension: "kml", writer: kmlWriter },
  // RFC 7946 12: no parameters; it is UTF-8 by definition.
  geojson: { mediaType: "application/geo+json", extension: "geojson", writer: geoJsonWriter },
  // RFC 4180 3 and RFC 7111: charset and whether a header row comes first.
  csv: { mediaType: "text/csv; charset=utf-8; header=present", extension: "csv", writer: csvWriter },
} as const satisfies Record<string, ExportFormatSpec>;

export type ExportFormatName = keyof typeof EXPORT_FORMATS;
export const EXPORT_FORMAT_NAMES = Object.keys(EXPORT_FORMATS) as ExportFormatName[];

/** The most characters a file name takes from each of its parts. */
const NAME_PART_LENGTH = 40;

/**
 * "track-week_race-1_fleet-a.gpx", with "_gbr-10" for one boat: ASCII letters, digits
 * and dashes (accents dropped), so any browser saves it as it is and no name can
 * break out of the Content-Disposition header.
 */
export function exportFileName(parts: readonly string[], format: ExportFormatName): string {
  const slugs = parts.map(slug).filter((part) => part !== "");
  return `${slugs.length === 0 ? "track" : slugs.join("_")}.${EXPORT_FORMATS[format].extension}`;
}

function slug(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, NAME_PART_LENGTH)
    .replace(/^-+|-+$/g, "");
}
