// Which events a caller may read: the events list's rule (store/events.ts
// VISIBLE_TO_CLUB) for a single event. An event that does not exist, is not a UUID,
// is unpublished, legacy, or neither the caller's club's nor co-hosted by it is
// EVENT_NOT_FOUND, all alike.

import type { Caller } from "../auth/guard.js";
import { isUuid } from "../domain/uuid.js";
import { ApiError } from "../errors/api-error.js";
import { findVisibleEvent, type EventDetailRecord } from "../store/events.js";
import type { Pool } from "../store/pool.js";

export async function visibleEvent(pool: Pool, caller: Caller, eventId: string): Promise<EventDetailRecord> {
  const event = isUuid(eventId) ? await findVisibleEvent(pool, caller.clubId, eventId.toLowerCase()) : null;
  if (!event) throw new ApiError("EVENT_NOT_FOUND");
  return event;
}
