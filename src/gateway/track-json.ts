// GET /api/v1/races/{raceId}/track: query parameters into a GetTrackPageRequest, and
// the page's own writer of its v1 JSON. Translation only: whether a window is allowed
// (since before the cut-off, until after since, the group) is the RPC's rule, so
// Connect and gRPC callers get the same answers.

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { TimestampSchema, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { FastifyRequest } from "fastify";
import type { GetTrackPageRequestSchema } from "../../gen/racing/v1/track_pb.js";
import { ApiError } from "../errors/api-error.js";
import { writeWindowColumns } from "./column-text.js";

type TrackQuery = { startGroupId?: string; since: string; until?: string };

// RFC 3339 in UTC: seconds required, any fraction, `Z` (or an offset of zero).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|[+-]00:00)$/;

const dateTimeParam = (description: string) => ({
  type: "string",
  format: "date-time",
  maxLength: 40,
  pattern: DATE_TIME.source,
  description,
  examples: ["2026-07-04T13:00:00Z"],
});

/** Shapes only: whether the window is allowed is the RPC's rule. */
export const TRACK_QUERY = {
  type: "object",
  required: ["since"],
  properties: {
    startGroupId: {
      type: "string",
      format: "uuid",
      minLength: 36,
      maxLength: 36,
      description: "The start group to read; required when the race has more than one.",
    },
    since: dateTimeParam(
      "Inclusive lower bound, ISO 8601 UTC (Z or an offset of zero, 0-9 fraction digits; a finer fraction than milliseconds is rounded up to the millisecond). Must be before now minus the event's delay. To page, pass the previous nextSince.",
    ),
    until: dateTimeParam(
      "Exclusive upper bound, after since (both rounded up to the millisecond). Default and maximum: since + 10 minutes; cut silently at now minus the event's delay.",
    ),
  },
};

export function trackPageRequest(request: FastifyRequest): MessageInitShape<typeof GetTrackPageRequestSchema> {
  const query = request.query as TrackQuery;
  return {
    raceId: (request.params as { raceId: string }).raceId,
    startGroupId: query.startGroupId,
    since: timestampParam(query.since, "since"),
    until: query.until === undefined ? undefined : timestampParam(query.until, "until"),
  };
}

/** An ISO 8601 UTC date-time as a Timestamp, exactly (nanoseconds kept); a calendar overflow is API_PARAM_INVALID. */
function timestampParam(value: string, name: string): Timestamp {
  const match = DATE_TIME.exec(value);
  if (!match) throw new ApiError("API_PARAM_INVALID", { name });
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second);
  // A calendar overflow (month 13, 31 April, hour 24, second 60) shows as a different date.
  if (
    year < 1 ||
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    date.getUTCHours() !== hour ||
    date.getUTCMinutes() !== minute ||
    date.getUTCSeconds() !== second
  ) {
    throw new ApiError("API_PARAM_INVALID", { name });
  }
  return create(TimestampSchema, { seconds: BigInt(date.getTime() / 1000), nanos: Number((match[7] ?? "").padEnd(9, "0")) });
}

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
