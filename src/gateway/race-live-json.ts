// STUB: replaced by the live endpoint's JSON mapping.
import type { GetRaceLiveResponse } from "../../gen/racing/v1/race_live_pb.js";

export function raceLiveJson(response: GetRaceLiveResponse): unknown {
  return { raceId: response.raceLive?.raceId };
}
