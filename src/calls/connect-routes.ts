// The Connect routes of the API: each racing.v1 service served by its implementation
// (built by the composition root), gRPC reflection included, and every handler opened
// and corrected the same way for every listener.

import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter, ServiceImpl } from "@connectrpc/connect";
import { EventService } from "../../gen/racing/v1/event_pb.js";
import { IngestService } from "../../gen/racing/v1/ingest_pb.js";
import { LiveInsightsService } from "../../gen/racing/v1/live_insights_pb.js";
import { RaceAnalyticsService } from "../../gen/racing/v1/race_analytics_pb.js";
import { RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { ResultsService } from "../../gen/racing/v1/results_pb.js";
import { ScopeService } from "../../gen/racing/v1/scopes_pb.js";
import { TrackService } from "../../gen/racing/v1/track_pb.js";
import { registerReflection } from "./reflection.js";
import { withBidiNeedsHttp2 } from "./bidi-over-http1.js";
import { STRICT_JSON_OPTIONS, withUndecodableAsInvalidArgument } from "./undecodable-requests.js";
import { admittedFirst, type CallOpener } from "./admission.js";
import { withUnreadBodyDrained } from "./unread-bodies.js";

/** The racing.v1 services, in the order reflection lists them. */
export const racingServices: readonly DescService[] = [
  RaceLiveService,
  LiveInsightsService,
  TrackService,
  RaceAnalyticsService,
  EventService,
  ResultsService,
  ScopeService,
  IngestService,
];

/**
 * How both listeners read requests. At most 8 MiB per message (each message of a stream
 * alike); a larger one is RESOURCE_EXHAUSTED before it is parsed: room for the biggest
 * AppendFixes batch (20,000 fixes, about 1.3 MB as Connect JSON), while reads send a few
 * bytes. A JSON field the message does not have is INVALID_ARGUMENT, not ignored: a
 * misspelt `boats` would otherwise be a batch of nothing, answered as a success. JSON
 * that is not UTF-8 is INVALID_ARGUMENT too, as a protobuf string that is not already is.
 */
export const READ_OPTIONS = { readMaxBytes: 8 * 1024 * 1024, jsonOptions: { ignoreUnknownFields: false, ...STRICT_JSON_OPTIONS } } as const;

/** One implementation of each service, shared by every surface (Connect, gRPC, REST gateway). */
export interface Services {
  events: ServiceImpl<typeof EventService>;
  raceLive: ServiceImpl<typeof RaceLiveService>;
  liveInsights: ServiceImpl<typeof LiveInsightsService>;
  track: ServiceImpl<typeof TrackService>;
  analytics: ServiceImpl<typeof RaceAnalyticsService>;
  results: ServiceImpl<typeof ResultsService>;
  scopes: ServiceImpl<typeof ScopeService>;
  /** Not on the REST surface: gRPC, gRPC-Web and Connect only. */
  ingest: ServiceImpl<typeof IngestService>;
}

/** What the routes are served with: the services, and the opening of each call (admission.ts). */
export interface RouteDeps {
  services: Services;
  openCall: CallOpener;
}

export function connectRoutes({ services, openCall }: RouteDeps): (router: ConnectRouter) => void {
  const opened = admittedFirst(openCall);
  return (router) => {
    router.service(RaceLiveService, services.raceLive);
    router.service(LiveInsightsService, services.liveInsights);
    router.service(TrackService, services.track);
    router.service(RaceAnalyticsService, services.analytics);
    router.service(EventService, services.events);
    router.service(ResultsService, services.results);
    router.service(ScopeService, services.scopes);
    router.service(IngestService, services.ingest);
    registerReflection(router, racingServices);
    // Every listener serves these handlers: opened and corrected here, the answer is
    // the same on all.
    const handlers = router.handlers.map((handler) =>
      withBidiNeedsHttp2(withUnreadBodyDrained(withUndecodableAsInvalidArgument(opened(handler)))),
    );
    router.handlers.splice(0, router.handlers.length, ...handlers);
  };
}
