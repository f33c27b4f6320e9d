// The REST-to-RPC table: one row per /api/v1 path, read top to bottom. Each answer is
// the v1 JSON of the RPC's response message, derived from its descriptor with its
// schema (v1-json.ts, v1-schema.ts, rest-annotations.ts): a new endpoint is a proto
// message and a row here.

import type { FastifyRequest } from "fastify";
import { EventService } from "../../gen/racing/v1/event_pb.js";
import { GetLiveInsightsResponseSchema, LiveInsightsService } from "../../gen/racing/v1/live_insights_pb.js";
import { RaceAnalyticsSchema, RaceAnalyticsService } from "../../gen/racing/v1/race_analytics_pb.js";
import { RaceLiveSchema, RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { ResultsService } from "../../gen/racing/v1/results_pb.js";
import { ScopeService } from "../../gen/racing/v1/scopes_pb.js";
import { TrackService } from "../../gen/racing/v1/track_pb.js";
import {
  ANALYTICS_CACHE_CONTROL,
  EVENT_LIVE_CACHE_CONTROL,
  EVENTS_CACHE_CONTROL,
  EXPORT_SETTLED_CACHE_CONTROL,
  IMMUTABLE_CACHE_CONTROL,
  INSIGHTS_CACHE_CONTROL_PATTERN,
  INSIGHTS_MAX_AGE_S,
  LIVE_CACHE_CONTROL,
  NEAR_NOW_CACHE_CONTROL,
  RESULTS_CACHE_CONTROL,
  SCOPES_CACHE_CONTROL,
} from "../caching/cache-policy.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../domain/paging.js";
import { restRoute, type Query, type RestRoute } from "./rpc-call.js";
import { streamRoute, type StreamRoute } from "./sse.js";
import { MAX_REPLAY_SPEED, MIN_REPLAY_SPEED } from "../domain/past-moment.js";
import { dateTimeParam, GROUP_QUERY, groupRequest, momentParam, windowQuery, windowRequest } from "./group-params.js";
import { stringifyTrackPage, TRACK_QUERY } from "./track-json.js";
import { trackExportRoute, type DownloadRoute } from "./download.js";
import { EXPORTS_PER_CLIENT } from "../limits/policy.js";
import { DEFAULT_MAX_SPEED_KN } from "../domain/analytics/kinematics.js";

const RACE_ID = {
  type: "object",
  required: ["raceId"],
  properties: {
    raceId: {
      type: "string",
      description: "UUID of the race, from the event live status. Any other value, malformed ones included, answers 404 RACE_NOT_FOUND.",
    },
  },
};
const EVENT_ID = {
  type: "object",
  required: ["eventId"],
  properties: {
    eventId: {
      type: "string",
      description: "UUID of the event, from the events list. Any other value, malformed ones included, answers 404 EVENT_NOT_FOUND.",
    },
  },
};
const raceId = (request: FastifyRequest) => ({ raceId: (request.params as { raceId: string }).raceId });
const eventId = (request: FastifyRequest) => ({ eventId: (request.params as { eventId: string }).eventId });

const lastEventId = (request: FastifyRequest) => (request.headers as { "last-event-id"?: string })["last-event-id"] ?? "";
const LANG_QUERY = {
  type: "object",
  properties: {
    lang: {
      type: "string",
      description:
        "en, tr, de, fr, es, it, ru, el or nb; case-insensitive, a region suffix (en-GB) is dropped. Anything else, or none, is en: lang never answers 400.",
      examples: ["de"],
    },
  },
};
// lang never answers 400: a repeated one counts once, and any value falls back to en in the service.
const firstLang = (query: Query) => {
  if (Array.isArray(query.lang)) query.lang = query.lang[0];
};
const lang = (request: FastifyRequest) => (request.query as { lang?: string }).lang ?? "";

const AT =
  "A past moment, ISO 8601 UTC (rounded up to the millisecond): the answer as it was then, its dataAsOf this time. Must be before the current dataAsOf (now minus the event's delay); any earlier time is allowed. Left out: now.";
const LIVE_QUERY = { type: "object", properties: { at: dateTimeParam(AT) } };
const REPLAY_QUERY = {
  type: "object",
  properties: {
    from: dateTimeParam(
      "Replay from this past moment, ISO 8601 UTC: the states of a 2-second grid from the one at or before it. Must be before the current dataAsOf. Left out: the live stream.",
    ),
    speed: {
      type: "number",
      minimum: MIN_REPLAY_SPEED,
      maximum: MAX_REPLAY_SPEED,
      description: `Replay speed with from: race seconds per second, ${MIN_REPLAY_SPEED} to ${MAX_REPLAY_SPEED} (fractions allowed). Default ${MIN_REPLAY_SPEED}.`,
      examples: [10],
    },
  },
};
const PAST_MOMENT_CACHE = `A past moment at least 2 minutes before the delayed cut-off never changes: sent ${IMMUTABLE_CACHE_CONTROL}, and kept server-side.`;

const ANALYTICS_GROUP = `One start group's (startGroupId, which may be left out only when the race has one), computed from the tracks up to dataAsOf (now minus the event's delay) inside each boat's capture window; fixes that would need more than ${DEFAULT_MAX_SPEED_KN} knots are left out and counted per boat.`;
const MANOEUVRES_QUERY = windowQuery(
  "Inclusive lower bound, ISO 8601 UTC, as on the track (rounded up to the millisecond). Must be before dataAsOf. To page, pass the previous nextSince.",
  "Exclusive upper bound, after since. Default and maximum: since + 10 minutes; cut silently at dataAsOf.",
);

export const REST_ROUTES: readonly RestRoute[] = [
  restRoute({
    path: "/events",
    rpc: EventService.method.listEvents,
    implementation: (services) => services.events.listEvents,
    tag: "Events",
    summary: "List the club's events",
    description:
      "The events this client's club owns or co-hosts, newest start date first, events without a start date last, ties by id; a new event does not reshuffle the others. At most 1000 events are reachable by paging.",
    querystring: {
      type: "object",
      properties: {
        page: { type: "integer", format: "int32", minimum: 1, maximum: 2 ** 31 - 1, default: 1, description: "Page number, from 1." },
        pageSize: {
          type: "integer",
          format: "int32",
          minimum: 1,
          maximum: MAX_PAGE_SIZE,
          default: DEFAULT_PAGE_SIZE,
          description: "Events per page.",
        },
      },
    },
    request: (request) => request.query as { page: number; pageSize: number },
    cacheControl: { enum: [EVENTS_CACHE_CONTROL] },
  }),
  restRoute({
    path: "/events/:eventId/live",
    rpc: EventService.method.getEventLive,
    implementation: (services) => services.events.getEventLive,
    tag: "Events",
    summary: "Event live status: which race to follow",
    description:
      "The event's races by race number, each with its broadcast-active flag and its start groups' states, gun and finish times.",
    params: EVENT_ID,
    request: eventId,
    responseBody: "eventLive",
    cacheControl: { enum: [EVENT_LIVE_CACHE_CONTROL] },
  }),
  restRoute({
    path: "/events/:eventId/results",
    rpc: ResultsService.method.getEventResults,
    implementation: (services) => services.results.getEventResults,
    tag: "Results",
    summary: "Official results of an event",
    description:
      "The results the club published for every race of the event (provisional or final), never the unofficial live order. Results are not tracking data: they are served whether or not the event shares tracking.",
    params: EVENT_ID,
    request: eventId,
    responseBody: "eventResults",
    cacheControl: { enum: [RESULTS_CACHE_CONTROL] },
  }),
  restRoute({
    path: "/races/:raceId/live",
    rpc: RaceLiveService.method.getRaceLive,
    implementation: (services) => services.raceLive.getRaceLive,
    tag: "Races",
    summary: "Race live: positions, wind and live order",
    description: `Each start group's newest position, speed and heading per boat, the newest committee wind reading and the unofficial live order, as of dataAsOf (now minus the event's delay). One shared read per race every 2 seconds: poll with If-None-Match.

With at: the race as it was at that past moment, as a live answer then held it: boats at their newest fix up to it, the wind, course and live order in force then, the groups' states by their gun and finish times. Not kept in history, so shown as they are now: names, sail numbers, which entries are approved and have a phone, the delay, isLive (and so whether liveOrder is shown), a Postponed or Abandoned state. ${PAST_MOMENT_CACHE}`,
    params: RACE_ID,
    querystring: LIVE_QUERY,
    request: (request) => ({ ...raceId(request), at: momentParam(request, "at") }),
    responseBody: "raceLive",
    cacheControl: {
      enum: [LIVE_CACHE_CONTROL, IMMUTABLE_CACHE_CONTROL],
      description: `${LIVE_CACHE_CONTROL}; ${IMMUTABLE_CACHE_CONTROL} for a settled past moment (at at least 2 minutes before the delayed cut-off).`,
    },
    dataAsOf: true,
  }),
  restRoute({
    path: "/races/:raceId/live/insights",
    rpc: LiveInsightsService.method.getLiveInsights,
    implementation: (services) => services.liveInsights.getLiveInsights,
    tag: "Races",
    summary: "Live insights: commentary lines",
    description:
      "Lead changes, mark roundings, places gained, finishes and wind shifts of the last 15 minutes, newest first, each with a sentence in the requested language and machine-readable fields. Generated at most once a minute per race: poll every 15 to 60 seconds.",
    params: RACE_ID,
    querystring: LANG_QUERY,
    normalizeQuery: firstLang,
    request: (request) => ({ ...raceId(request), lang: lang(request) }),
    cacheControl: {
      pattern: INSIGHTS_CACHE_CONTROL_PATTERN,
      description: `Private; max-age is the seconds until the next generation, at most ${INSIGHTS_MAX_AGE_S}.`,
    },
    dataAsOf: true,
  }),
  restRoute({
    path: "/races/:raceId/track",
    rpc: TrackService.method.getTrackPage,
    implementation: (services) => services.track.getTrackPage,
    tag: "Races",
    summary: "Track history, one page of up to 10 minutes",
    description: `The raw position history (about 1 Hz) of one start group in [since, until), as parallel arrays per boat. Page forward with since = nextSince until nextSince is null. A window ending at least 2 minutes before the delayed cut-off never changes: it is sent immutable, for an hour. A start group with no gun time yet has no such window: setting the gun can still fill any of its windows, so each is sent ${NEAR_NOW_CACHE_CONTROL}, however old.`,
    params: RACE_ID,
    querystring: TRACK_QUERY,
    request: windowRequest,
    cacheControl: {
      enum: [IMMUTABLE_CACHE_CONTROL, NEAR_NOW_CACHE_CONTROL],
      description: `${IMMUTABLE_CACHE_CONTROL} for a window ending at least 2 minutes before the delayed cut-off of a start group with a gun time; otherwise ${NEAR_NOW_CACHE_CONTROL}, also for every window of a group with no gun time yet (setting the gun can fill it).`,
    },
    dataAsOf: true,
    stringify: stringifyTrackPage,
  }),
  restRoute({
    path: "/races/:raceId/analytics",
    rpc: RaceAnalyticsService.method.getRaceAnalytics,
    implementation: (services) => services.analytics.getRaceAnalytics,
    tag: "Races",
    summary: "Race analytics: order on the water, gaps, VMG",
    description: `${ANALYTICS_GROUP} The legs of the course under the newest wind, and every boat by course progress with its leg, distance to the next mark, distance and time behind the leader, speed, course, VMG, true wind angle, start and finish times, whether it is stale and its last manoeuvre. The order is unofficial, never a result. Computed once per race every 2 seconds: poll with If-None-Match.

With at: the analytics as they were at that past moment, computed afresh from the stored rows up to it (at most two such computations at a time per server; others wait their turn). ${PAST_MOMENT_CACHE}`,
    params: RACE_ID,
    querystring: { type: "object", properties: { ...GROUP_QUERY.properties, at: dateTimeParam(AT) } },
    request: (request) => ({ ...groupRequest(request), at: momentParam(request, "at") }),
    responseBody: "raceAnalytics",
    cacheControl: {
      enum: [ANALYTICS_CACHE_CONTROL, IMMUTABLE_CACHE_CONTROL],
      description: `${ANALYTICS_CACHE_CONTROL}; ${IMMUTABLE_CACHE_CONTROL} for a settled past moment.`,
    },
    dataAsOf: true,
  }),
  restRoute({
    path: "/races/:raceId/analytics/legs",
    rpc: RaceAnalyticsService.method.getLegs,
    implementation: (services) => services.analytics.getLegs,
    tag: "Races",
    summary: "Race analytics per leg: times, speeds, tacks, ranks",
    description: `${ANALYTICS_GROUP} Each boat's legs so far: start and end times, duration, distance sailed, average speed and VMG, tacks and gybes, and its rank and gap to the first boat at the leg's end. From the same computation as /analytics, every 2 seconds.`,
    params: RACE_ID,
    querystring: GROUP_QUERY,
    request: groupRequest,
    cacheControl: { enum: [ANALYTICS_CACHE_CONTROL] },
    dataAsOf: true,
  }),
  restRoute({
    path: "/races/:raceId/analytics/manoeuvres",
    rpc: RaceAnalyticsService.method.listManoeuvres,
    implementation: (services) => services.analytics.listManoeuvres,
    tag: "Races",
    summary: "Manoeuvres and mark passings, one page of up to 10 minutes",
    description: `${ANALYTICS_GROUP} The tacks, gybes and penalty turns (each with its position, courses before and after, duration and loss) and the step passings timed in [since, until). Page forward with since = nextSince until nextSince is null. A manoeuvre is reported once its loss is known, 30 seconds after its end: a window ending before the moment up to which nothing can still appear or change (a few minutes before dataAsOf) never changes and is sent immutable, for an hour; a later one ${ANALYTICS_CACHE_CONTROL}.`,
    params: RACE_ID,
    querystring: MANOEUVRES_QUERY,
    request: windowRequest,
    cacheControl: {
      enum: [IMMUTABLE_CACHE_CONTROL, ANALYTICS_CACHE_CONTROL],
      description: `${IMMUTABLE_CACHE_CONTROL} for a settled window of a start group with a gun time; otherwise ${ANALYTICS_CACHE_CONTROL}.`,
    },
    dataAsOf: true,
  }),
  restRoute({
    path: "/races/:raceId/results",
    rpc: ResultsService.method.getRaceResults,
    implementation: (services) => services.results.getRaceResults,
    tag: "Results",
    summary: "Official results of a race",
    description: "The results the club published for the race's start groups (provisional or final), never the unofficial live order.",
    params: RACE_ID,
    request: raceId,
    responseBody: "raceResults",
    cacheControl: { enum: [RESULTS_CACHE_CONTROL] },
  }),
  restRoute({
    path: "/scopes",
    rpc: ScopeService.method.listScopes,
    implementation: (services) => services.scopes.listScopes,
    tag: "Access",
    summary: "The API's scopes, and which ones this token holds",
    description: "Every scope of the API with what it grants, and whether the calling token holds it.",
    request: () => ({}),
    cacheControl: { enum: [SCOPES_CACHE_CONTROL] },
  }),
];

/** The Watch streams as Server-Sent Events (sse.ts). */
export const STREAM_ROUTES: readonly StreamRoute[] = [
  streamRoute({
    path: "/races/:raceId/live/stream",
    rpc: RaceLiveService.method.watchRaceLive,
    implementation: (services) => services.raceLive.watchRaceLive,
    tag: "Races",
    summary: "Race live, pushed: a stream of race live states",
    description: `The race live object now, then each new one as the shared read produces it (at most every 2 seconds), instead of polling.

Replay with from (and speed): the race from that past moment, one state per 2 seconds of race time (the live answer with at for each moment of a 2-second grid, its id the moment in epoch ms), every 2/speed seconds, as a live viewer saw it. The replay never looks past the delayed cut-off: once it catches up, the stream goes on as the live stream. Reconnect to the same URL with Last-Event-ID (as EventSource does) and the replay continues with the next moment. States are shared by every viewer at the same moment.`,
    params: RACE_ID,
    querystring: REPLAY_QUERY,
    request: (request) => ({
      ...raceId(request),
      resumeAfter: lastEventId(request),
      from: momentParam(request, "from"),
      speed: (request.query as { speed?: number }).speed,
    }),
    eventName: "live",
    body: RaceLiveSchema,
    event: ({ event }) => (event.case === "live" ? { id: event.value.eventId, body: event.value.raceLive! } : null),
  }),
  streamRoute({
    path: "/races/:raceId/analytics/stream",
    rpc: RaceAnalyticsService.method.watchRaceAnalytics,
    implementation: (services) => services.analytics.watchRaceAnalytics,
    tag: "Races",
    summary: "Race analytics, pushed: a stream of analytics states",
    description:
      "The start group's analytics now, then each new state as the shared computation produces it (at most every 2 seconds), instead of polling.",
    params: RACE_ID,
    querystring: GROUP_QUERY,
    request: (request) => ({ ...groupRequest(request), resumeAfter: lastEventId(request) }),
    eventName: "analytics",
    body: RaceAnalyticsSchema,
    event: ({ event }) => (event.case === "analytics" ? { id: event.value.eventId, body: event.value.raceAnalytics! } : null),
  }),
  streamRoute({
    path: "/races/:raceId/live/insights/stream",
    rpc: LiveInsightsService.method.watchLiveInsights,
    implementation: (services) => services.liveInsights.watchLiveInsights,
    tag: "Races",
    summary: "Live insights, pushed: a stream of insights answers",
    description: "The insights answer now, then the answer of each new generation (at most one a minute), instead of polling.",
    params: RACE_ID,
    querystring: LANG_QUERY,
    normalizeQuery: firstLang,
    request: (request) => ({ ...raceId(request), lang: lang(request), resumeAfter: lastEventId(request) }),
    eventName: "insights",
    body: GetLiveInsightsResponseSchema,
    event: ({ event }) => (event.case === "insights" ? { id: event.value.eventId, body: event.value.answer! } : null),
  }),
];

/** Files streamed by a server-streaming RPC (download.ts). */
export const DOWNLOAD_ROUTES: readonly DownloadRoute[] = [
  trackExportRoute({
    tag: "Races",
    summary: "Track export: a start group's whole track as a GPX, KML, GeoJSON or CSV file",
    description: `Every fix the track pages of the start group serve (its capture window, gun - 5 minutes to gun + 3 hours or a boat's own finish, cut at the delayed cut-off), all boats or one entry, in one file a browser link downloads. GPX 1.1: a trk per boat named by sail number and boat name, speed (m/s) and course (degrees) in Garmin's TrackPointExtension v2, the course's marks as wpt. KML 2.2: a gx:Track per boat (Google Earth animates it), the marks as placemarks. GeoJSON (RFC 7946): a LineString feature per boat with properties coordTimes, sogKn and cogDeg (index-aligned with its coordinates; null where not reported), the marks as Point features. CSV (RFC 4180): a header row, then a row per fix (entryId, sailNumber, boatName, timeUtc, lat, lon, sogKn, cogDeg); a speed or course not reported is an empty cell. The marks are those of the course in force at the file's end. Streamed as it is read and compressed (br, gzip) when Accept-Encoding takes it. Opening counts as one call against the tracking bucket; a client runs at most ${EXPORTS_PER_CLIENT} exports at once per server (429 RATE_LIMIT_EXCEEDED beyond). A failure after the file has begun ends the connection without the file's end, so it is never mistaken for a whole file.`,
    params: RACE_ID,
    cacheControl: {
      enum: [EXPORT_SETTLED_CACHE_CONTROL, NEAR_NOW_CACHE_CONTROL],
      description: `${EXPORT_SETTLED_CACHE_CONTROL} (with an ETag) once the start group's capture window closed at least 2 minutes before the delayed cut-off: the file never changes; otherwise ${NEAR_NOW_CACHE_CONTROL}, without an ETag.`,
    },
  }),
];
