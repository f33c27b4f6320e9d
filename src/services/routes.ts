// The Connect routes of the API: which services a router serves, gRPC reflection included.
import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { EventService } from "../../gen/racing/v1/event_pb.js";
import { LiveInsightsService } from "../../gen/racing/v1/live_insights_pb.js";
import { RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { TrackService } from "../../gen/racing/v1/track_pb.js";
import { registerReflection } from "./reflection.js";

/** The racing.v1 services, in the order reflection lists them. */
export const racingServices: readonly DescService[] = [
  RaceLiveService,
  LiveInsightsService,
  TrackService,
  EventService,
];

export function connectRoutes(): (router: ConnectRouter) => void {
  return (router) => {
    // Empty implementations answer `unimplemented` until each RPC gets its handler.
    router.service(RaceLiveService, {});
    router.service(LiveInsightsService, {});
    router.service(TrackService, {});
    router.service(EventService, {});
    registerReflection(router, racingServices);
  };
}
