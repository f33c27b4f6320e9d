// The JSON Schemas of the v1 bodies. Fastify compiles them into the serialisers that
// write each answer (fast-json-stringify) and @fastify/swagger publishes them as the
// components of /api/v1/openapi.json, so the document describes the bytes we send.
// String lengths are the read model's column widths (store/migrations.ts).

import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import { SCOPES } from "../auth/scopes.js";
import { KIND_NAMES } from "./insights-json.js";
import { STATUS_NAMES } from "./results-json.js";
import { STATE_NAMES } from "./race-live-json.js";

export type JsonSchema = Record<string, unknown>;

/** A reference to a component schema of this module, by its $id. */
export const ref = (id: string): JsonSchema => ({ $ref: `${id}#` });

const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type, "null"] });

export const UUID: JsonSchema = { type: "string", format: "uuid", minLength: 36, maxLength: 36 };
/** Every date-time we write: ISO 8601 UTC with milliseconds, as Date.toISOString() does. */
const DATE_TIME: JsonSchema = { type: "string", format: "date-time", maxLength: 24, example: "2026-07-04T13:05:00.000Z" };
const INT32: JsonSchema = { type: "integer", format: "int32", minimum: 0, maximum: 2 ** 31 - 1 };
/** A place, 1 = first, or null. */
const RANK = (description: string): JsonSchema => ({ ...INT32, type: ["integer", "null"], minimum: 1, description });
const DELAY_SECONDS: JsonSchema = {
  type: "integer",
  format: "int32",
  minimum: 0,
  maximum: 600,
  description: "The event's delay: every race answer is cut at now minus this.",
};
const NAME = (maxLength: number): JsonSchema => ({ type: "string", minLength: 1, maxLength });
const SAIL_NUMBER: JsonSchema = { ...NAME(50), description: "As entered on the entry.", example: "GBR 1234" };
const BOAT_NAME: JsonSchema = { ...NAME(200), description: "As entered on the entry." };
const SECONDS = (description: string): JsonSchema => ({ type: ["number", "null"], format: "double", description });
const DEGREES: JsonSchema = { type: "integer", format: "int32", minimum: 0, maximum: 359 };
const START_GROUP_STATE: JsonSchema = {
  type: "string",
  enum: Object.values(STATE_NAMES).filter((name) => name !== "Unspecified"),
  description: "Scheduled, Started, Finished, Postponed or Abandoned.",
};

/**
 * `required` lists every property: the API writes nullable fields as null, never leaves
 * them out. A nullable property defaults to null, so the serialiser writes an unset
 * proto3 optional field as null and the mappers pass such fields as they are.
 */
function object(properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  const withNulls = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [name, isNullable(schema) ? { ...schema, default: null } : schema]),
  );
  return { type: "object", required: Object.keys(properties), properties: withNulls, ...extra };
}

function isNullable(schema: JsonSchema): boolean {
  return Array.isArray(schema.type) && schema.type.includes("null");
}

const component = (id: string, schema: JsonSchema): JsonSchema => ({ $id: id, ...schema });

const eventSummary = component(
  "EventSummary",
  object({
    id: UUID,
    name: NAME(300),
    startDate: nullable({ ...DATE_TIME, description: "Null for an event without a start date (listed last)." }),
    endDate: nullable(DATE_TIME),
    raceCount: INT32,
    trackingShared: { type: "boolean", description: "Whether the race endpoints show this event's tracking (opt-in)." },
    delaySeconds: DELAY_SECONDS,
  }),
);

const eventsPage = component(
  "EventsPage",
  object({
    items: {
      type: "array",
      maxItems: 100,
      items: ref("EventSummary"),
      description: "Newest startDate first, events without a start date last, ties by id.",
    },
    nextPage: {
      type: ["integer", "null"],
      format: "int32",
      minimum: 2,
      maximum: 1000,
      description: "The page to ask for next; null on the last page.",
    },
    totalItems: { ...INT32, description: "Every event the club may see, also beyond the 1000 reachable by paging." },
  }),
);

const startGroupStatus = component(
  "StartGroupStatus",
  object({
    startGroupId: UUID,
    name: NAME(200),
    state: START_GROUP_STATE,
    startTimeUtc: nullable({ ...DATE_TIME, description: "The gun; null while none is set." }),
    finishTimeUtc: nullable(DATE_TIME),
  }),
);

const raceStatus = component(
  "RaceStatus",
  object({
    raceId: UUID,
    raceNo: INT32,
    name: NAME(200),
    isLive: { type: "boolean", description: "The race's broadcast-active flag: the race to follow." },
    startGroups: { type: "array", items: ref("StartGroupStatus") },
  }),
);

const eventLive = component(
  "EventLive",
  object({
    eventId: UUID,
    name: NAME(300),
    startDate: nullable(DATE_TIME),
    endDate: nullable(DATE_TIME),
    trackingShared: { type: "boolean" },
    delaySeconds: DELAY_SECONDS,
    races: { type: "array", items: ref("RaceStatus"), description: "By race number." },
  }),
);

/**
 * Written inline rather than as a component: a reading and null are then told apart by
 * type, where an `anyOf` would be chosen by validation, before a null default applies.
 */
const WIND = object({
  twd: { ...DEGREES, description: "True wind direction, degrees." },
  tws: SECONDS("True wind speed in knots; null: the reading has a direction only."),
  measuredAtUtc: DATE_TIME,
});

const liveBoat = component(
  "LiveBoat",
  object({
    entryId: { ...UUID, description: "The same id as in the track and results endpoints." },
    sailNumber: SAIL_NUMBER,
    boatName: BOAT_NAME,
    lat: { type: "number", format: "double", minimum: -90, maximum: 90, description: "WGS84." },
    lon: { type: "number", format: "double", minimum: -180, maximum: 180, description: "WGS84." },
    sogKn: SECONDS("Speed over ground, knots; null when the phone did not report it."),
    cogDeg: SECONDS("Course over ground, degrees; null when not reported."),
    fixTimeUtc: { ...DATE_TIME, description: "The phone's own sample time, never after dataAsOf." },
  }),
);

const liveOrderRow = component(
  "LiveOrderRow",
  object({
    entryId: UUID,
    rank: RANK("1 = leading now; null: unranked."),
    elapsedSeconds: SECONDS("As the live leaderboard computed it then."),
    correctedSeconds: SECONDS("As the live leaderboard computed it then."),
    deltaSeconds: SECONDS("As the live leaderboard computed it then."),
    finishTimeUtc: nullable({ ...DATE_TIME, description: "Phone-recorded finish, once at or before dataAsOf." }),
  }),
);

const courseStep = component(
  "CourseStep",
  object({
    kind: {
      type: "string",
      enum: ["start", "mark", "gate", "finish"],
      description: "A start or finish line has its two ends, a gate two marks, a rounding mark one.",
    },
    label: { ...nullable(NAME(100)), description: "e.g. Windward; null when unlabelled." },
    marks: {
      type: "array",
      items: object({
        key: NAME(100),
        lat: { type: "number", format: "double", minimum: -90, maximum: 90, description: "WGS84." },
        lon: { type: "number", format: "double", minimum: -180, maximum: 180, description: "WGS84." },
      }),
    },
  }),
);

const startGroupLive = component(
  "StartGroupLive",
  object({
    startGroupId: UUID,
    name: NAME(200),
    state: START_GROUP_STATE,
    startTimeUtc: nullable(DATE_TIME),
    finishTimeUtc: nullable(DATE_TIME),
    courseVersion: INT32,
    wind: { ...nullable(WIND), description: "The newest committee reading at or before dataAsOf; null when none." },
    boats: { type: "array", items: ref("LiveBoat"), description: "Approved entries with a fix inside the capture window, by sail number." },
    liveOrder: {
      type: ["array", "null"],
      items: ref("LiveOrderRow"),
      description:
        "Unofficial: never present it as a result. By rank, unranked last; null while the race is not live or no order is known at dataAsOf.",
    },
    liveOrderAsOf: nullable({ ...DATE_TIME, description: "Null exactly when liveOrder is null." }),
    course: {
      type: "array",
      items: ref("CourseStep"),
      description:
        "The course of courseVersion, step by step in sailing order, to draw under the boats; empty when none is applied. An addition to the spec's object.",
    },
  }),
);

const raceLive = component(
  "RaceLive",
  object({
    raceId: UUID,
    eventId: UUID,
    raceNo: INT32,
    name: NAME(200),
    isLive: { type: "boolean" },
    delaySeconds: DELAY_SECONDS,
    dataAsOf: {
      ...DATE_TIME,
      description: "Now minus delaySeconds at the shared read; nothing in the body is newer. Also the X-Data-As-Of header.",
    },
    startGroups: { type: "array", items: ref("StartGroupLive") },
  }),
);

const insightBoat = component("InsightBoat", object({ entryId: UUID, sailNumber: SAIL_NUMBER, boatName: BOAT_NAME }));

const insight = component(
  "Insight",
  object({
    id: {
      type: "string",
      pattern: "^[0-9a-f]{16}$",
      minLength: 16,
      maxLength: 16,
      description: "Stable: the same fact keeps this id on every call; show each id once.",
    },
    kind: { type: "string", enum: Object.values(KIND_NAMES).filter((name) => name !== "unspecified") },
    startGroupId: UUID,
    startGroupName: NAME(200),
    atUtc: { ...DATE_TIME, description: "When the event itself happened." },
    text: {
      type: "string",
      minLength: 1,
      maxLength: 160,
      description: "One sentence in lang; may be rephrased later under the same id. Do not re-translate.",
    },
    source: { type: "string", enum: ["model", "template"] },
    boats: {
      type: "array",
      maxItems: 2,
      items: ref("InsightBoat"),
      description: "leadChange: [new leader, previous leader]; windShift: []; otherwise [boat].",
    },
    markLabel: { type: ["string", "null"], maxLength: 100, description: "markRounding only: the course step's label, or its mark key." },
    rank: RANK("gain: the live place now; finish: the unofficial live place if known."),
    placesGained: { ...INT32, type: ["integer", "null"], minimum: 2, description: "gain only." },
    twdFrom: { ...DEGREES, type: ["integer", "null"], description: "windShift only." },
    twdTo: { ...DEGREES, type: ["integer", "null"], description: "windShift only." },
    twsFrom: SECONDS("windShift only, knots; null: that reading had a direction only."),
    twsTo: SECONDS("windShift only, knots; null: that reading had a direction only."),
  }),
);

const insights = component(
  "LiveInsights",
  object({
    raceId: UUID,
    eventId: UUID,
    isLive: { type: "boolean", description: "False: insights is empty and generatedAtUtc null." },
    lang: { type: "string", enum: ["en", "tr", "de", "fr", "es", "it", "ru", "el", "nb"], description: "The language the text is in." },
    delaySeconds: DELAY_SECONDS,
    dataAsOf: { ...DATE_TIME, description: "The generation's cut-off; no fact is newer. Also the X-Data-As-Of header." },
    generatedAtUtc: nullable(DATE_TIME),
    insights: { type: "array", maxItems: 30, items: ref("Insight"), description: "Facts of the 15 minutes before dataAsOf, newest first." },
  }),
);

const trackBoat = component(
  "TrackBoat",
  object(
    {
      entryId: UUID,
      sailNumber: SAIL_NUMBER,
      boatName: BOAT_NAME,
      t: {
        type: "array",
        items: { type: "integer", format: "int64", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        description: "Epoch milliseconds, strictly ascending, about 1 Hz.",
      },
      lat: {
        type: "array",
        items: { type: "number", format: "double", minimum: -90, maximum: 90 },
        description: "WGS84; index i belongs to t[i].",
      },
      lon: {
        type: "array",
        items: { type: "number", format: "double", minimum: -180, maximum: 180 },
        description: "WGS84; index i belongs to t[i].",
      },
      sogKn: {
        type: "array",
        items: { type: ["number", "null"], format: "double" },
        description: "Knots; null where the phone did not report it.",
      },
      cogDeg: {
        type: "array",
        items: { type: ["number", "null"], format: "double" },
        description: "Degrees; null where the phone did not report it.",
      },
    },
    { description: "All five arrays have the same length and are index-aligned." },
  ),
);

const trackPage = component(
  "TrackPage",
  object({
    raceId: UUID,
    startGroupId: UUID,
    since: {
      ...DATE_TIME,
      description:
        "The request's since, in this form (UTC, milliseconds): an offset of zero is written Z, and a finer fraction is rounded up to the millisecond, which selects exactly the same fixes.",
    },
    until: { ...DATE_TIME, description: "The requested until, cut at since + 10 min and at now minus delaySeconds; always after since." },
    nextSince: nullable({
      ...DATE_TIME,
      description: "Pass as since for the next page; null once the capture window (gun + 3 h) has closed.",
    }),
    delaySeconds: DELAY_SECONDS,
    boats: { type: "array", items: ref("TrackBoat"), description: "Boats with at least one point in [since, until), by sail number." },
  }),
);

const resultRow = component(
  "ResultRow",
  object({
    entryId: UUID,
    sailNumber: SAIL_NUMBER,
    boatName: BOAT_NAME,
    rank: RANK("Official place; null when unranked (DNF, DNS, ...)."),
    status: {
      type: "string",
      minLength: 1,
      maxLength: 8,
      description: "Scoring code as published: OK, DNF, DNS, DSQ, OCS, RET, ...",
      example: "OK",
    },
    elapsedSeconds: SECONDS("Null when not published."),
    correctedSeconds: SECONDS("Handicap time; null when not published."),
    points: SECONDS("Null when not published."),
  }),
);

const startGroupResults = component(
  "StartGroupResults",
  object({
    startGroupId: UUID,
    name: NAME(200),
    status: {
      type: "string",
      enum: Object.values(STATUS_NAMES).filter((name) => name !== "unspecified"),
      description: "provisional: may still change (protests, redress).",
    },
    publishedAtUtc: DATE_TIME,
    rows: { type: "array", items: ref("ResultRow"), description: "By rank, unranked last, then by sail number." },
  }),
);

const raceResults = component(
  "RaceResults",
  object({
    raceId: UUID,
    eventId: UUID,
    raceNo: INT32,
    name: NAME(200),
    startGroups: {
      type: "array",
      items: ref("StartGroupResults"),
      description: "Only groups with published results: the official results, never the live order.",
    },
  }),
);

const eventResults = component(
  "EventResults",
  object({
    eventId: UUID,
    name: NAME(300),
    races: { type: "array", items: ref("RaceResults"), description: "Every race by race number, also those without published results." },
  }),
);

const scopeNames = Object.keys(SCOPES);
const scopeList = component(
  "ScopeList",
  object({
    scopes: {
      type: "array",
      maxItems: scopeNames.length,
      items: object({
        name: { type: "string", enum: scopeNames },
        description: { type: "string", maxLength: 200 },
        granted: { type: "boolean", description: "Whether the calling token holds it." },
      }),
    },
  }),
);

// IngestService's own codes never reach the REST surface.
const errorCodes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => !("ingestOnly" in ERROR_CODES[code]));
const PARAMS: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    name: { type: "string", maxLength: 64, description: "API_PARAM_INVALID: the parameter at fault." },
    scope: { type: "string", maxLength: 1000, description: "API_SCOPE_MISSING, API_SCOPE_INVALID: the scope at fault." },
  },
  description: "Present only for codes that carry parameters.",
};

export const problem = component("Problem", {
  type: "object",
  description: "RFC 9457 problem details. There is no title or detail: code is the contract, and type links to its documentation.",
  required: ["type", "status", "code", "traceId"],
  properties: {
    type: { type: "string", format: "uri", maxLength: 2048, description: "{errors_url}#<code>: the code's documentation." },
    status: { type: "integer", format: "int32", minimum: 400, maximum: 599 },
    code: { type: "string", enum: errorCodes },
    params: PARAMS,
    traceId: {
      type: "string",
      pattern: "^[0-9a-f]{32}$",
      minLength: 32,
      maxLength: 32,
      description: "Also the X-Trace-Id header; quote it when reporting a problem.",
    },
  },
});

const tokenResponse = component(
  "TokenResponse",
  object({
    access_token: { type: "string", maxLength: 4096, description: "A JWT (RFC 9068); send it as Authorization: Bearer." },
    token_type: { type: "string", enum: ["Bearer"] },
    expires_in: { type: "integer", format: "int32", minimum: 1, maximum: 86_400, description: "Seconds the token stays valid." },
    scope: { type: "string", maxLength: 1000, description: "The granted scopes, space-separated." },
  }),
);

/** Not a component: each token error answer narrows it to its own codes (route-schemas.ts). */
export const tokenError: JsonSchema = {
  type: "object",
  description: "RFC 6749 section 5.2 error, with the API's code next to it.",
  required: ["error", "code"],
  properties: {
    error: {
      type: "string",
      enum: [
        "invalid_request",
        "unsupported_grant_type",
        "invalid_client",
        "invalid_scope",
        "unauthorized_client",
        "slow_down",
        "temporarily_unavailable",
        "server_error",
      ],
    },
    code: { type: "string", enum: errorCodes },
    params: PARAMS,
  },
};

/** Every component, for app.addSchema: the serialisers and the document resolve `ref()`s against them. */
export const COMPONENT_SCHEMAS: readonly JsonSchema[] = [
  eventSummary,
  eventsPage,
  startGroupStatus,
  raceStatus,
  eventLive,
  liveBoat,
  liveOrderRow,
  courseStep,
  startGroupLive,
  raceLive,
  insightBoat,
  insight,
  insights,
  trackBoat,
  trackPage,
  resultRow,
  startGroupResults,
  raceResults,
  eventResults,
  scopeList,
  problem,
  tokenResponse,
];
