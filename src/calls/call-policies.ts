// Each data call's policy: the scope it needs, the rate-limit bucket it counts
// against (limits/policy.ts), and the errors it answers besides the guard's. The guard enforces this
// table and the OpenAPI document describes it, so the two cannot disagree.

import type { DescMethod } from "@bufbuild/protobuf";
import { EventService } from "../../gen/racing/v1/event_pb.js";
import { IngestService } from "../../gen/racing/v1/ingest_pb.js";
import { LiveInsightsService } from "../../gen/racing/v1/live_insights_pb.js";
import { RaceAnalyticsService } from "../../gen/racing/v1/race_analytics_pb.js";
import { RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { ResultsService } from "../../gen/racing/v1/results_pb.js";
import { ScopeService } from "../../gen/racing/v1/scopes_pb.js";
import { TrackService } from "../../gen/racing/v1/track_pb.js";
import type { Scope } from "../auth/scopes.js";
import type { ErrorCode } from "../errors/codes.js";
import { bucketOf, type DataBucket } from "../limits/policy.js";

export interface CallPolicy {
  /** The scope the call needs; null: any valid token (the scope list). */
  scope: Scope | null;
  /** The rate-limit bucket it counts against, as the rate-limit policy assigns it by scope. */
  bucket: DataBucket;
  /** What the call itself may answer, after the guard let it through. */
  errors: readonly ErrorCode[];
}

const RACE_TRACKING: readonly ErrorCode[] = ["RACE_NOT_FOUND", "TRACKING_NOT_SHARED"];
/** A read of one start group: its id, and a window's times, may be wrong, or not of the race. */
const GROUP_TRACKING: readonly ErrorCode[] = ["API_PARAM_INVALID", ...RACE_TRACKING, "START_GROUP_NOT_FOUND"];

// The bucket is not a column: the rate-limit policy assigns it by the call's scope.
const TABLE: Array<[DescMethod, Omit<CallPolicy, "bucket">]> = [
  [EventService.method.listEvents, { scope: "events:read", errors: ["API_PARAM_INVALID"] }],
  [EventService.method.getEventLive, { scope: "events:read", errors: ["EVENT_NOT_FOUND"] }],
  [RaceLiveService.method.getRaceLive, { scope: "tracking:read", errors: RACE_TRACKING }],
  [LiveInsightsService.method.getLiveInsights, { scope: "tracking:read", errors: RACE_TRACKING }],
  [RaceLiveService.method.watchRaceLive, { scope: "tracking:read", errors: RACE_TRACKING }],
  [LiveInsightsService.method.watchLiveInsights, { scope: "tracking:read", errors: RACE_TRACKING }],
  [TrackService.method.getTrackPage, { scope: "tracking:read", errors: GROUP_TRACKING }],
  ...RaceAnalyticsService.methods.map((method): [DescMethod, Omit<CallPolicy, "bucket">] => [
    method,
    { scope: "tracking:read", errors: GROUP_TRACKING },
  ]),
  [TrackService.method.exportTrack, { scope: "tracking:read", errors: [...GROUP_TRACKING, "ENTRY_NOT_FOUND"] }],
  [ResultsService.method.getEventResults, { scope: "results:read", errors: ["EVENT_NOT_FOUND"] }],
  [ResultsService.method.getRaceResults, { scope: "results:read", errors: ["RACE_NOT_FOUND"] }],
  [ScopeService.method.listScopes, { scope: null, errors: [] }],
  // IngestService answers NOT_FOUND for another club's race or event, like reads,
  // INVALID_ARGUMENT / ALREADY_EXISTS for what it was sent, and FAILED_PRECONDITION for
  // recorded tracks of an event that may have been served.
  ...IngestService.methods.map((method): [DescMethod, Omit<CallPolicy, "bucket">] => [
    method,
    {
      scope: "tracking:write",
      errors:
        method === IngestService.method.updateEvent
          ? ["EVENT_NOT_FOUND", "API_PARAM_INVALID"]
          : method === IngestService.method.loadRecordedTracks
            ? ["RACE_NOT_FOUND", "API_PARAM_INVALID", "TRACKS_ALREADY_SERVED"]
            : ["RACE_NOT_FOUND", "API_PARAM_INVALID", "INGEST_CONFLICT"],
    },
  ]),
];

const POLICIES = new Map<DescMethod, CallPolicy>(TABLE.map(([method, policy]) => [method, { ...policy, bucket: bucketOf(policy.scope) }]));

/** The policy of a data call; undefined for a public one (reflection). */
export function findCallPolicy(method: DescMethod): CallPolicy | undefined {
  return POLICIES.get(method);
}

export function callPolicy(method: DescMethod): CallPolicy {
  const policy = POLICIES.get(method);
  if (!policy) throw new Error(`no call policy for ${method.parent.typeName}.${method.name}`);
  return policy;
}

/** Every error a guarded call may answer: the guard's, the call's own, and the read model's. */
export function callErrors(policy: CallPolicy): ErrorCode[] {
  const guard: ErrorCode[] = ["API_TOKEN_MISSING", "API_TOKEN_INVALID", "API_CLIENT_DISABLED", "API_CLIENT_EXPIRED", "API_IP_NOT_ALLOWED"];
  if (policy.scope) guard.push("API_SCOPE_MISSING");
  return [...guard, ...policy.errors, "RATE_LIMIT_EXCEEDED", "API_UNAVAILABLE", "INTERNAL_ERROR"];
}
