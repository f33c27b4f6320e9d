// The REST-to-RPC table: one row per /api/v1 path, read top to bottom.

import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { FastifyRequest } from "fastify";
import { EventService, type ListEventsResponse } from "../../gen/racing/v1/event_pb.js";
import { LiveInsightsService } from "../../gen/racing/v1/live_insights_pb.js";
import { RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { ResultsService } from "../../gen/racing/v1/results_pb.js";
import { ScopeService, type ListScopesResponse } from "../../gen/racing/v1/scopes_pb.js";
import { eventLiveJson } from "./event-live-json.js";
import { eventResultsJson, raceResultsResponseJson } from "./results-json.js";
import { insightsJson } from "./insights-json.js";
import { TrackService } from "../../gen/racing/v1/track_pb.js";
import { raceLiveJson } from "./race-live-json.js";
import { trackPageJson, trackPageRequest } from "./track-json.js";
import { ApiError } from "../errors/api-error.js";
import { restRoute, type RestRoute } from "./rpc-call.js";

export const REST_ROUTES: readonly RestRoute[] = [
  restRoute({
    path: "/events",
    rpc: EventService.method.listEvents,
    implementation: (services) => services.events.listEvents,
    request: (request) => ({ page: intParam(request, "page"), pageSize: intParam(request, "pageSize") }),
    response: eventsPage,
  }),
  restRoute({
    path: "/events/:eventId/live",
    rpc: EventService.method.getEventLive,
    implementation: (services) => services.events.getEventLive,
    request: (request) => ({ eventId: (request.params as { eventId: string }).eventId }),
    response: eventLiveJson,
  }),
  restRoute({
    path: "/events/:eventId/results",
    rpc: ResultsService.method.getEventResults,
    implementation: (services) => services.results.getEventResults,
    request: (request) => ({ eventId: (request.params as { eventId: string }).eventId }),
    response: eventResultsJson,
  }),
  restRoute({
    path: "/races/:raceId/live",
    rpc: RaceLiveService.method.getRaceLive,
    implementation: (services) => services.raceLive.getRaceLive,
    request: (request) => ({ raceId: (request.params as { raceId: string }).raceId }),
    response: raceLiveJson,
  }),
  restRoute({
    path: "/races/:raceId/live/insights",
    rpc: LiveInsightsService.method.getLiveInsights,
    implementation: (services) => services.liveInsights.getLiveInsights,
    // lang never answers 400: whatever it is, the service falls back to en.
    request: (request) => ({ raceId: (request.params as { raceId: string }).raceId, lang: firstValue((request.query as Record<string, unknown>).lang) }),
    response: insightsJson,
  }),
  restRoute({
    path: "/races/:raceId/track",
    rpc: TrackService.method.getTrackPage,
    implementation: (services) => services.track.getTrackPage,
    request: trackPageRequest,
    response: trackPageJson,
  }),
  restRoute({
    path: "/races/:raceId/results",
    rpc: ResultsService.method.getRaceResults,
    implementation: (services) => services.results.getRaceResults,
    request: (request) => ({ raceId: (request.params as { raceId: string }).raceId }),
    response: raceResultsResponseJson,
  }),
  restRoute({
    path: "/scopes",
    rpc: ScopeService.method.listScopes,
    implementation: (services) => services.scopes.listScopes,
    request: () => ({}),
    response: scopesJson,
  }),
];

function eventsPage(page: ListEventsResponse) {
  return {
    items: page.items.map((event) => ({
      id: event.id,
      name: event.name,
      startDate: dateTime(event.startDate),
      endDate: dateTime(event.endDate),
      raceCount: event.raceCount,
      trackingShared: event.trackingShared,
      delaySeconds: event.delaySeconds,
    })),
    nextPage: page.nextPage ?? null,
    totalItems: page.totalItems,
  };
}

function scopesJson(response: ListScopesResponse) {
  return { scopes: response.scopes.map((scope) => ({ name: scope.name, description: scope.description, granted: scope.granted })) };
}

/** ISO 8601 UTC with milliseconds, or null for an unset timestamp. */
export function dateTime(timestamp: Timestamp | undefined): string | null {
  return timestamp ? timestampDate(timestamp).toISOString() : null;
}

function firstValue(value: unknown): string {
  return typeof value === "string" ? value : Array.isArray(value) && typeof value[0] === "string" ? value[0] : "";
}

/** A query value that must be a whole number (int32); ranges are the RPC's rule. */
export function intParam(request: FastifyRequest, name: string): number | undefined {
  const value = (request.query as Record<string, string | string[] | undefined>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^[+-]?\d{1,10}$/.test(value) || Math.abs(Number(value)) > 2 ** 31 - 1) {
    throw new ApiError("API_PARAM_INVALID", { name });
  }
  return Number(value);
}
