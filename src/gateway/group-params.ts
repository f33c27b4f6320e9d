// The query parameters of the race reads (track, analytics, live at a past moment): the
// start group, and times (a window's since and until, a moment) as ISO 8601 UTC
// date-times, into the request message's fields. Translation only: whether the group,
// the window or the moment is allowed is the RPC's rule.

import { create } from "@bufbuild/protobuf";
import { TimestampSchema, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { FastifyRequest } from "fastify";
import { ApiError } from "../errors/api-error.js";

// RFC 3339 in UTC: seconds required, any fraction, `Z` (or an offset of zero).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|[+-]00:00)$/;

export const dateTimeParam = (description: string) => ({
  type: "string",
  format: "date-time",
  maxLength: 40,
  pattern: DATE_TIME.source,
  description,
  examples: ["2026-07-04T13:00:00Z"],
});

const START_GROUP_ID = {
  type: "string",
  format: "uuid",
  minLength: 36,
  maxLength: 36,
  description: "The start group to read; required when the race has more than one.",
};

/** A query of the start group alone. */
export const GROUP_QUERY = { type: "object", properties: { startGroupId: START_GROUP_ID } };

/** A query of the start group and a window, since required; shapes only. */
export function windowQuery(since: string, until: string) {
  return {
    type: "object",
    required: ["since"],
    properties: { startGroupId: START_GROUP_ID, since: dateTimeParam(since), until: dateTimeParam(until) },
  };
}

export function groupRequest(request: FastifyRequest): { raceId: string; startGroupId: string | undefined } {
  return {
    raceId: (request.params as { raceId: string }).raceId,
    startGroupId: (request.query as { startGroupId?: string }).startGroupId,
  };
}

export function windowRequest(request: FastifyRequest): {
  raceId: string;
  startGroupId: string | undefined;
  since: Timestamp;
  until: Timestamp | undefined;
} {
  const query = request.query as { since: string; until?: string };
  return {
    ...groupRequest(request),
    since: timestampParam(query.since, "since"),
    until: query.until === undefined ? undefined : timestampParam(query.until, "until"),
  };
}

/** An optional date-time query parameter (`at`, `from`) as a Timestamp. */
export function momentParam(request: FastifyRequest, name: string): Timestamp | undefined {
  const value = (request.query as Record<string, string | undefined>)[name];
  return value === undefined ? undefined : timestampParam(value, name);
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
