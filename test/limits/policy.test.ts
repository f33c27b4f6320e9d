import { describe, expect, it } from "vitest";
import { EventService } from "../../gen/racing/v1/event_pb.js";
import { IngestService } from "../../gen/racing/v1/ingest_pb.js";
import { LiveInsightsService } from "../../gen/racing/v1/live_insights_pb.js";
import { RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { ResultsService } from "../../gen/racing/v1/results_pb.js";
import { ScopeService } from "../../gen/racing/v1/scopes_pb.js";
import { TrackService } from "../../gen/racing/v1/track_pb.js";
import { ERROR_CODES } from "../../src/errors/codes.js";
import { clubLimits, standing } from "../../src/limits/policy.js";
import { callPolicy } from "../../src/calls/call-policies.js";

describe("the rate-limit policy", () => {
  it("counts the tracking:read calls, streams included, against the tracking bucket and every other data call against general", () => {
    const tracking = [
      RaceLiveService.method.getRaceLive,
      RaceLiveService.method.watchRaceLive,
      LiveInsightsService.method.getLiveInsights,
      LiveInsightsService.method.watchLiveInsights,
      TrackService.method.getTrackPage,
    ];
    const general = [
      EventService.method.listEvents,
      EventService.method.getEventLive,
      ResultsService.method.getEventResults,
      ResultsService.method.getRaceResults,
      ScopeService.method.listScopes,
    ];
    for (const method of tracking) expect(callPolicy(method).bucket, method.name).toBe("tracking");
    for (const method of general) expect(callPolicy(method).bucket, method.name).toBe("general");
  });

  it("counts every IngestService call against the ingest bucket", () => {
    for (const method of IngestService.methods) expect(callPolicy(method).bucket, method.name).toBe("ingest");
  });

  it("gives a club 60 general, 120 tracking and 6000 ingest calls a minute unless it set its own", () => {
    const unset = { rateLimitPerMinute: null, trackingRateLimitPerMinute: null, ingestRateLimitPerMinute: null };
    expect(clubLimits(unset)).toEqual({ general: 60, tracking: 120, ingest: 6000 });
    expect(clubLimits({ ...unset, rateLimitPerMinute: 600 })).toEqual({ general: 600, tracking: 120, ingest: 6000 });
    expect(clubLimits({ ...unset, trackingRateLimitPerMinute: 5 })).toEqual({ general: 60, tracking: 5, ingest: 6000 });
    expect(clubLimits({ ...unset, ingestRateLimitPerMinute: 30_000 })).toEqual({ general: 60, tracking: 120, ingest: 30_000 });
  });

  it("refuses the call past the limit, never the one that reaches it", () => {
    expect(standing("general", 3, 3, 30_000, 60)).toEqual({ bucket: "general", limit: 3, remaining: 0, resetSeconds: 30, allowed: true });
    expect(standing("general", 3, 4, 30_000, 60)).toMatchObject({ remaining: 0, allowed: false });
    // The reset is whole seconds within the window: never 0, never past its end.
    expect(standing("general", 3, 1, 10, 60).resetSeconds).toBe(1);
    expect(standing("general", 3, 1, 61_000, 60).resetSeconds).toBe(60);
  });

  it("makes a 429 say Retry-After: 60", () => {
    expect(ERROR_CODES.RATE_LIMIT_EXCEEDED.retryAfterSeconds).toBe(60);
  });
});
