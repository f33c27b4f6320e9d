// The step passings the insights' mark roundings are made of, taken from the race
// analytics engine (one rule, one computation): each start group's, by start group id.

import type { PassingData } from "../../domain/detection-input.js";
import type { StepPassingsSource } from "../../insights/generator.js";
import type { ReadPools } from "../../store/read-replica.js";
import { type AnalyticsEngine, itemsIn } from "./race-analytics.js";

/** Refreshes `engine` for the race at `nowMs` (its dataAsOf is the generation's) and hands over its passings. */
export function insightPassings(engine: AnalyticsEngine, reads: ReadPools): StepPassingsSource {
  return async (race, nowMs) => {
    const analytics = await engine.refresh(race, nowMs, reads.readFrom());
    return new Map(
      analytics.groups.map((group) => [
        group.group.uuid,
        itemsIn(group.items, (boat) => boat.passings).map(({ boat, item }): PassingData => ({ entryId: boat.uuid, passing: item })),
      ]),
    );
  };
}
