// Which races a caller may read: one rule for every race endpoint. A race that does
// not exist, is not a UUID, belongs to an event that is unpublished, legacy, or
// neither the caller's club's nor co-hosted by it is RACE_NOT_FOUND (all alike); a
// visible race of an event that does not share tracking is TRACKING_NOT_SHARED for
// the tracking endpoints (live, insights, track), and served by the others (results).

import { SharedRead } from "../caching/shared-read.js";
import type { Caller } from "../auth/guard.js";
import { isUuid } from "../domain/uuid.js";
import { ApiError } from "../errors/api-error.js";
import { findRace, type RaceRecord } from "../store/races.js";
import type { ReadPools } from "../store/read-replica.js";

/** Races are re-read at most this often: sharing, delay and group states change rarely. */
export const RACE_MAX_AGE_MS = 2000;

export class RaceDirectory {
  private readonly races = new SharedRead<{ race: RaceRecord | null }>({ name: "race_visibility", ttlMs: RACE_MAX_AGE_MS, max: 10_000 });

  constructor(private readonly reads: ReadPools) {}

  /** The race if `caller` may see it (sharing aside); otherwise RACE_NOT_FOUND. */
  async visibleRace(caller: Caller, raceId: string): Promise<RaceRecord> {
    const race = isUuid(raceId) ? await this.race(raceId.toLowerCase()) : null;
    if (!race || !visibleTo(race, caller)) throw new ApiError("RACE_NOT_FOUND");
    return race;
  }

  /** The race if `caller` may read its tracking data; otherwise the spec's 404. */
  async trackingRace(caller: Caller, raceId: string): Promise<RaceRecord> {
    const race = await this.visibleRace(caller, raceId);
    if (!race.event.trackingShared) throw new ApiError("TRACKING_NOT_SHARED");
    return race;
  }

  /** The race as now stored (short-lived cache), whoever asks; null when it is gone. */
  async race(uuid: string): Promise<RaceRecord | null> {
    return (await this.races.get(uuid, async () => ({ race: await findRace(this.reads.pool(), uuid) }))).race;
  }
}

/** The visibility rule on a race already read; store/events.ts VISIBLE_TO_CLUB is its SQL form. */
function visibleTo(race: RaceRecord, caller: Caller): boolean {
  const { event } = race;
  return event.published && !event.legacy && (event.clubId === caller.clubId || event.coHostClubIds.includes(caller.clubId));
}
