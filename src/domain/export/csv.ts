// CSV (RFC 4180): a header row, then one row per fix, CRLF line ends, a field quoted
// when it holds a comma, a quote or a line break. A speed or course the phone did not
// report is an empty cell. The course's marks have no place in a table of fixes. Pure.

import { asciiBytes } from "./output-bytes.js";
import type { TrackFileWriter } from "./track-file.js";

export const CSV_COLUMNS = ["entryId", "sailNumber", "boatName", "timeUtc", "lat", "lon", "sogKn", "cogDeg"] as const;

/** A field as RFC 4180 writes it. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const COMMA = 44;
const LINE_END = asciiBytes("\r\n");
const encoder = new TextEncoder();

export const csvWriter: TrackFileWriter = {
  passes: 1,
  head: (out) => out.text(`${CSV_COLUMNS.join(",")}\r\n`),
  boatHead: () => {},
  fixes(out, boat, fixes) {
    // The boat's three cells are the same on each of its rows.
    const names = encoder.encode(`${csvField(boat.entryId)},${csvField(boat.sailNumber)},${csvField(boat.boatName)},`);
    for (const fix of fixes) {
      out.bytes(names);
      out.isoTime(fix.t);
      out.char(COMMA);
      out.number(fix.lat);
      out.char(COMMA);
      out.number(fix.lon);
      out.char(COMMA);
      if (fix.sogKn !== null) out.number(fix.sogKn);
      out.char(COMMA);
      if (fix.cogDeg !== null) out.number(fix.cogDeg);
      out.bytes(LINE_END);
    }
  },
  passBreak: () => {},
  boatTail: () => {},
  tail: () => {},
};
