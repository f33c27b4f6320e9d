// GET /api/v1/races/{raceId}/track: its query parameters (group-params.ts reads them
// into a GetTrackPageRequest), and the page's own writer of its v1 JSON. Translation
// only: whether a window is allowed (since before the cut-off, until after since, the
// group) is the RPC's rule, so Connect and gRPC callers get the same answers.

import { writeWindowColumns } from "./column-text.js";
import { windowQuery } from "./group-params.js";

/** Shapes only: whether the window is allowed is the RPC's rule. */
export const TRACK_QUERY = windowQuery(
  "Inclusive lower bound, ISO 8601 UTC (Z or an offset of zero, 0-9 fraction digits; a finer fraction than milliseconds is rounded up to the millisecond). Must be before now minus the event's delay. To page, pass the previous nextSince.",
  "Exclusive upper bound, after since (both rounded up to the millisecond). Default and maximum: since + 10 minutes; cut silently at now minus the event's delay.",
);

/** What stringifyTrackPage reads of a page's v1 JSON (v1-json.ts): the head as it is, and each boat's names and columns. */
interface TrackPageJson {
  startGroupId: string;
  since: string;
  boats: Array<Record<"entryId" | "sailNumber" | "boatName", string> & Record<(typeof COLUMNS)[number], readonly number[]>>;
}

/** The columns of a track boat, written in this order after its names. */
const COLUMNS = ["t", "lat", "lon", "sogKn", "cogDeg"] as const;

/**
 * The route's writer of the page's v1 JSON, where the spec needs more than the
 * descriptor: its packed columns hold NaN for "not reported", written as null. A page
 * is up to 30,000 fixes in five number arrays, written on
 * the event loop, and a window near the cut-off is asked for again every few seconds
 * with a few more fixes per boat: each column's text written before is reused
 * (column-text.ts), and what is new is written by V8's JSON.stringify, about 4 times
 * faster than the schema's compiled serialiser (measured on a 30,000-fix page: 12.5
 * against 53 ms). That also writes NaN, the proto's "not reported", as the spec's null
 * (ECMA-262: a number that is not finite is serialised as null). The bytes are
 * JSON.stringify's of the whole page.
 */
export function stringifyTrackPage(json: unknown): string {
  const { boats, ...head } = json as TrackPageJson;
  // A window is its start group and since, as the request spelt it; a column, its boat and name.
  const written = writeWindowColumns(`${head.startGroupId} ${head.since}`, (columns) =>
    boats.map((boat) => {
      const names = JSON.stringify({ entryId: boat.entryId, sailNumber: boat.sailNumber, boatName: boat.boatName });
      const texts = COLUMNS.map((name) => `"${name}":${columns.text(`${boat.entryId} ${name}`, boat[name])}`);
      return `${names.slice(0, -1)},${texts.join(",")}}`;
    }),
  );
  return `${JSON.stringify(head).slice(0, -1)},"boats":[${written.join(",")}]}`;
}
