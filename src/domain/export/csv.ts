// CSV (RFC 4180): a header row, then one row per fix, CRLF line ends, a field quoted
// when it holds a comma, a quote or a line break. A speed or course the phone did not
// report is an empty cell. The course's marks have no place in a table of fixes. Pure.

import { isoTime, type TrackFileWriter } from "./track-file.js";

export const CSV_COLUMNS = ["entryId", "sailNumber", "boatName", "timeUtc", "lat", "lon", "sogKn", "cogDeg"] as const;

/** A field as RFC 4180 writes it. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const cell = (value: number | null) => (value === null ? "" : String(value));

export const csvWriter: TrackFileWriter = {
  passes: 1,
  head: () => `${CSV_COLUMNS.join(",")}\r\n`,
  boatHead: () => "",
  fixes(boat, fixes) {
    // The boat's three cells are the same on each of its rows.
    const names = `${csvField(boat.entryId)},${csvField(boat.sailNumber)},${csvField(boat.boatName)},`;
    let text = "";
    for (const fix of fixes) text += `${names}${isoTime(fix.t)},${fix.lat},${fix.lon},${cell(fix.sogKn)},${cell(fix.cogDeg)}\r\n`;
    return text;
  },
  passBreak: () => "",
  boatTail: () => "",
  tail: () => "",
};
