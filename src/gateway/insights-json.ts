// GetLiveInsightsResponse as the spec's insights response object: every field, nulls present.

import { InsightKind, InsightSource, type GetLiveInsightsResponse } from "../../gen/racing/v1/live_insights_pb.js";
import { dateTime } from "./date-time-json.js";

export const KIND_NAMES: Record<InsightKind, string> = {
  [InsightKind.UNSPECIFIED]: "unspecified",
  [InsightKind.LEAD_CHANGE]: "leadChange",
  [InsightKind.MARK_ROUNDING]: "markRounding",
  [InsightKind.GAIN]: "gain",
  [InsightKind.FINISH]: "finish",
  [InsightKind.WIND_SHIFT]: "windShift",
};

export function insightsJson(response: GetLiveInsightsResponse) {
  return {
    raceId: response.raceId,
    eventId: response.eventId,
    isLive: response.isLive,
    lang: response.lang,
    delaySeconds: response.delaySeconds,
    dataAsOf: dateTime(response.dataAsOf),
    generatedAtUtc: dateTime(response.generatedAtUtc),
    insights: response.insights.map((insight) => ({
      id: insight.id,
      kind: KIND_NAMES[insight.kind],
      startGroupId: insight.startGroupId,
      startGroupName: insight.startGroupName,
      atUtc: dateTime(insight.atUtc),
      text: insight.text,
      source: insight.source === InsightSource.MODEL ? "model" : "template",
      boats: insight.boats.map((boat) => ({ entryId: boat.entryId, sailNumber: boat.sailNumber, boatName: boat.boatName })),
      markLabel: insight.markLabel ?? null,
      rank: insight.rank ?? null,
      placesGained: insight.placesGained ?? null,
      twdFrom: insight.twdFrom ?? null,
      twdTo: insight.twdTo ?? null,
      twsFrom: insight.twsFrom ?? null,
      twsTo: insight.twsTo ?? null,
    })),
  };
}
