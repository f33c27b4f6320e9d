// EventService: the events list, the one paginated endpoint.

import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { EventService } from "../../gen/racing/v1/event_pb.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, nextPage, pageWindow } from "../domain/paging.js";
import { ApiError } from "../errors/api-error.js";
import { countVisibleEvents, visibleEvents, type EventRecord } from "../store/events.js";
import type { Pool } from "../store/pool.js";
import { guarded, type GuardedDeps } from "./guarded.js";

/** The list changes when a club edits its events: a short private freshness, then revalidate with the ETag. */
export const EVENTS_CACHE_CONTROL = "private, max-age=30";

export function eventService(deps: GuardedDeps & { pool: Pool }): ServiceImpl<typeof EventService> {
  return {
    listEvents: guarded(deps, { scope: "events:read", bucket: "general" }, async (request, caller, context) => {
      const page = request.page ?? 1;
      if (page < 1) throw new ApiError("API_PARAM_INVALID", { name: "page" });
      const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
      if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new ApiError("API_PARAM_INVALID", { name: "pageSize" });

      const totalItems = await countVisibleEvents(deps.pool, caller.clubId);
      const { offset, limit } = pageWindow(page, pageSize);
      const items = limit > 0 ? await visibleEvents(deps.pool, caller.clubId, offset, limit) : [];
      context.responseHeader.set("cache-control", EVENTS_CACHE_CONTROL);
      return { items: items.map(toMessage), nextPage: nextPage(page, pageSize, totalItems) ?? undefined, totalItems };
    }),
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
