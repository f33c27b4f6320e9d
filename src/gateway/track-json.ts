// STUB: replaced by the track endpoint's request and JSON mapping.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { FastifyRequest } from "fastify";
import type { GetTrackPageRequestSchema, GetTrackPageResponse } from "../../gen/racing/v1/track_pb.js";

export function trackPageRequest(request: FastifyRequest): MessageInitShape<typeof GetTrackPageRequestSchema> {
  return { raceId: (request.params as { raceId: string }).raceId };
}

export function trackPageJson(response: GetTrackPageResponse): unknown {
  return { raceId: response.raceId };
}
