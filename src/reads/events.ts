// EventService: the events list, the one paginated endpoint, and one event's live
// status (its races and start groups, for an overlay to find the race to follow).

import { timestampFromDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { EventService } from "../../gen/racing/v1/event_pb.js";
import { EVENT_LIVE_CACHE_CONTROL, EVENTS_CACHE_CONTROL } from "../caching/cache-policy.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, nextPage, pageWindow } from "../domain/paging.js";
import { ApiError } from "../errors/api-error.js";
import { countVisibleEvents, visibleEvents, type EventDetailRecord, type EventRecord } from "../store/events.js";
import type { ReadPools } from "../store/read-replica.js";
import { visibleEvent } from "./event-access.js";
import { guarded, type GuardedDeps } from "../calls/guarded.js";
import { STATE_ENUMS } from "../messages/enum-words.js";

export function eventService(deps: GuardedDeps & { reads: ReadPools }): ServiceImpl<typeof EventService> {
  return {
    listEvents: guarded(deps, EventService.method.listEvents, async (request, caller, context) => {
      const page = request.page ?? 1;
      if (page < 1) throw new ApiError("API_PARAM_INVALID", { name: "page" });
      const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
      if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new ApiError("API_PARAM_INVALID", { name: "pageSize" });

      const pool = deps.reads.pool();
      const totalItems = await countVisibleEvents(pool, caller.clubId);
      const { offset, limit } = pageWindow(page, pageSize);
      const items = limit > 0 ? await visibleEvents(pool, caller.clubId, offset, limit) : [];
      context.responseHeader.set("cache-control", EVENTS_CACHE_CONTROL);
      return { items: items.map(toMessage), nextPage: nextPage(page, pageSize, totalItems) ?? undefined, totalItems };
    }),
    getEventLive: guarded(deps, EventService.method.getEventLive, async (request, caller, context) => {
      const event = await visibleEvent(deps.reads.pool(), caller, request.eventId);
      context.responseHeader.set("cache-control", EVENT_LIVE_CACHE_CONTROL);
      return { eventLive: eventLiveMessage(event) };
    }),
  };
}

/** The event's races and groups as stored: no delay applied (the race endpoints apply it). */
function eventLiveMessage(event: EventDetailRecord) {
  return {
    eventId: event.uuid,
    name: event.name,
    startDate: event.startDate ? timestampFromDate(event.startDate) : undefined,
    endDate: event.endDate ? timestampFromDate(event.endDate) : undefined,
    trackingShared: event.trackingShared,
    delaySeconds: event.delaySeconds,
    races: event.races.map((race) => ({
      raceId: race.uuid,
      raceNo: race.raceNo,
      name: race.name,
      isLive: race.isLive,
      startGroups: race.startGroups.map((group) => ({
        startGroupId: group.uuid,
        name: group.name,
        state: STATE_ENUMS[group.state],
        startTimeUtc: group.gunMs === null ? undefined : timestampFromMs(group.gunMs),
        finishTimeUtc: group.finishMs === null ? undefined : timestampFromMs(group.finishMs),
      })),
    })),
  };
}

function toMessage(event: EventRecord) {
  return {
    id: event.uuid,
    name: event.name,
    startDate: event.startDate ? timestampFromDate(event.startDate) : undefined,
    endDate: event.endDate ? timestampFromDate(event.endDate) : undefined,
    raceCount: event.raceCount,
    trackingShared: event.trackingShared,
    delaySeconds: event.delaySeconds,
  };
}
