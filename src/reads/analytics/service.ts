// RaceAnalyticsService: a start group's analytics, its boats' legs, its manoeuvres and
// passings page by page, and the Watch stream. Visibility, guard and rate limit are
// decided per request; the analytics themselves are one shared computation per race
// per 2 s (the engine's refresh at now minus the delay), whose answer messages are
// made once and handed to every caller, so the gateway serialises, hashes and
// compresses each once; a past moment is its own computation (past-analytics.ts).
// Parameters are checked as the track's are (request-params.ts).

import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  type ListManoeuvresResponse,
  type RaceAnalytics,
  RaceAnalyticsService,
  WatchRaceAnalyticsResponseSchema,
} from "../../../gen/racing/v1/race_analytics_pb.js";
import { ANALYTICS_CACHE_CONTROL, ANALYTICS_MAX_AGE_MS, DATA_AS_OF_HEADER, IMMUTABLE_CACHE_CONTROL } from "../../caching/cache-policy.js";
import { SharedRead } from "../../caching/shared-read.js";
import { FEED_ASK_EVERY_MS, Feeds } from "../../calls/feeds.js";
import { guarded } from "../../calls/guarded.js";
import { guardedStream } from "../../calls/guarded-stream.js";
import { isPastMoment } from "../../domain/past-moment.js";
import { dataAsOf } from "../../domain/race-time.js";
import { requestedWindow, trackWindow } from "../../domain/track-window.js";
import type { Caller } from "../../auth/guard.js";
import type { RaceRecord } from "../../store/races.js";
import type { ServiceDeps } from "../deps.js";
import { checkStartGroupId, epochMs, invalid, startGroup } from "../request-params.js";
import { AnalyticsRead, readKey } from "./analytics-read.js";
import { manoeuvresPage } from "./answers.js";
import { PastAnalytics } from "./past-analytics.js";

/** A settled manoeuvres page is kept an hour, as a client's copy is, bounded by the items it holds. */
const KEPT_PAGE_MS = 3600_000;
const KEPT_PAGE_ITEMS = 500_000;

export function raceAnalyticsService(deps: ServiceDeps): ServiceImpl<typeof RaceAnalyticsService> {
  const engine = deps.analytics;
  // Races asked for within the last 2 s; a few hundred live at once is a busy day.
  const reads = new SharedRead<AnalyticsRead>({ name: "analytics", ttlMs: ANALYTICS_MAX_AGE_MS, max: 1000 });
  const current = (race: RaceRecord) =>
    reads.get(readKey(race), async () => {
      const analytics = await engine.refresh(race, Date.now(), deps.reads.readFrom());
      return new AnalyticsRead(race, analytics.dataAsOfMs, analytics.groups);
    });
  // Settled pages as their answer messages: the same object each time, so its bytes and ETag are made once.
  const kept = new SharedRead<ListManoeuvresResponse>({
    name: "analytics_settled",
    ttlMs: KEPT_PAGE_MS,
    maxSize: { total: KEPT_PAGE_ITEMS, sizeOf: (page) => 1 + page.manoeuvres.length + page.passings.length },
  });
  // Watchers read through the same shared read as pollers: one computation per race per 2 s in all.
  const feeds = new Feeds<RaceAnalytics>({ ...deps.streamTiming, askEveryMs: FEED_ASK_EVERY_MS }, deps.logger);

  const past = new PastAnalytics(deps.reads);

  /** The race and group a request names, checked in the track's order. */
  const target = async (caller: Caller, request: { raceId: string; startGroupId?: string }) => {
    checkStartGroupId(request.startGroupId);
    const race = await deps.races.trackingRace(caller, request.raceId);
    return { race, group: startGroup(race, request.startGroupId) };
  };
  /** The race and group a request names, and the shared read. */
  const groupRead = async (caller: Caller, request: { raceId: string; startGroupId?: string }) => {
    const { race, group } = await target(caller, request);
    return { race, group, read: await current(race) };
  };
  const dated = (context: HandlerContext, read: AnalyticsRead, cacheControl: string) => {
    context.responseHeader.set(DATA_AS_OF_HEADER, read.dataAsOf);
    context.responseHeader.set("cache-control", cacheControl);
  };

  return {
    getRaceAnalytics: guarded(deps, RaceAnalyticsService.method.getRaceAnalytics, async (request, caller, context) => {
      checkStartGroupId(request.startGroupId);
      const atMs = epochMs(request.at, "at");
      if (atMs === undefined) {
        const { group, read } = await groupRead(caller, request);
        dated(context, read, ANALYTICS_CACHE_CONTROL);
        return read.of(group).response;
      }
      const { race, group } = await target(caller, request);
      const nowMs = Date.now();
      if (!isPastMoment(atMs, dataAsOf(nowMs, race.event.delaySeconds))) throw invalid("at");
      const { read, settled } = await past.at(race, atMs, nowMs);
      dated(context, read, settled ? IMMUTABLE_CACHE_CONTROL : ANALYTICS_CACHE_CONTROL);
      return read.of(group).response;
    }),
    getLegs: guarded(deps, RaceAnalyticsService.method.getLegs, async (request, caller, context) => {
      const { group, read } = await groupRead(caller, request);
      dated(context, read, ANALYTICS_CACHE_CONTROL);
      return read.of(group).legs;
    }),
    listManoeuvres: guarded(deps, RaceAnalyticsService.method.listManoeuvres, async (request, caller, context) => {
      checkStartGroupId(request.startGroupId);
      const requested = requestedWindow(epochMs(request.since, "since"), epochMs(request.until, "until"));
      if (typeof requested === "string") throw invalid(requested);
      const { race, group, read } = await groupRead(caller, request);
      // The window is cut at the shared read's dataAsOf: a page holds nothing the read has not judged.
      const window = trackWindow(requested, read.dataAsOfMs, group.gunMs);
      if (typeof window === "string") throw invalid(window);
      const analytics = read.of(group).analytics;
      // No manoeuvre or passing before finalBeforeMs can still appear or change; without a gun, setting one could.
      if (group.gunMs !== null && window.untilMs <= analytics.finalBeforeMs) {
        dated(context, read, IMMUTABLE_CACHE_CONTROL);
        const key = `${readKey(race)}/${window.sinceMs}/${window.untilMs}`;
        return kept.get(key, async () => manoeuvresPage(race, analytics, window));
      }
      dated(context, read, ANALYTICS_CACHE_CONTROL);
      return manoeuvresPage(race, analytics, window);
    }),
    watchRaceAnalytics: guardedStream(
      deps,
      RaceAnalyticsService.method.watchRaceAnalytics,
      async (request, caller) => {
        const { race, group } = await groupRead(caller, request);
        const read = async () => {
          const stored = await deps.races.race(race.uuid);
          // A group taken out of the race since the stream opened goes on as the race was.
          const now = stored?.startGroups.some((g) => g.uuid === group.uuid) ? stored : race;
          const shared = await current(now);
          return { id: String(shared.dataAsOfMs), value: shared.of(group).message };
        };
        return feeds.subscribe(`${race.uuid}/${group.uuid}`, read, request.resumeAfter);
      },
      (request, caller) => deps.races.trackingRace(caller, request.raceId),
      (event) =>
        create(WatchRaceAnalyticsResponseSchema, {
          event:
            "value" in event
              ? { case: "analytics", value: { eventId: event.value.id, raceAnalytics: event.value.value } }
              : { case: "heartbeat", value: {} },
        }),
    ),
  };
}
