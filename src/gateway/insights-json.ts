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
    // The message's fields as they are (the schema writes unset ones as null), but for the enums and the time.
    insights: response.insights.map((insight) => ({
      ...insight,
      kind: KIND_NAMES[insight.kind],
      atUtc: dateTime(insight.atUtc),
      source: insight.source === InsightSource.MODEL ? "model" : "template",
    })),
  };
}
