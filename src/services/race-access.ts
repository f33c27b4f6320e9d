// Which races a caller may read: one rule for every race endpoint. A race that does
// not exist, is not a UUID, belongs to an event that is unpublished, legacy, or
// neither the caller's club's nor co-hosted by it is RACE_NOT_FOUND (all alike); a
// visible race of an event that does not share tracking is TRACKING_NOT_SHARED for
// the tracking endpoints (live, insights, track), and served by the others (results).

import { LRUCache } from "lru-cache";
import type { Caller } from "../auth/guard.js";
import { ApiError } from "../errors/api-error.js";
import { findRace, type RaceRecord } from "../store/races.js";
import type { Pool } from "../store/pool.js";

/** Races are re-read at most this often: sharing, delay and group states change rarely. */
export const RACE_MAX_AGE_MS = 2000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id is a UUID at all; anything else is answered as not found, never 400. */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

export class RaceDirectory {
  private readonly cache = new LRUCache<string, { race: RaceRecord | null }>({ max: 10_000, ttl: RACE_MAX_AGE_MS });
  private readonly loading = new Map<string, Promise<RaceRecord | null>>();

  constructor(private readonly pool: Pool) {}

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

  private async race(uuid: string): Promise<RaceRecord | null> {
    const cached = this.cache.get(uuid);
    if (cached) return cached.race;
    let load = this.loading.get(uuid);
    if (!load) {
      load = findRace(this.pool, uuid)
        .then((race) => {
          this.cache.set(uuid, { race });
          return race;
        })
        .finally(() => this.loading.delete(uuid));
      this.loading.set(uuid, load);
    }
    return load;
  }
}

/** The visibility rule on a race already read; store/events.ts VISIBLE_TO_CLUB is its SQL form. */
function visibleTo(race: RaceRecord, caller: Caller): boolean {
  const { event } = race;
  return event.published && !event.legacy && (event.clubId === caller.clubId || event.coHostClubIds.includes(caller.clubId));
}
