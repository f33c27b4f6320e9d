// RaceLiveService: the live race feed, polled and watched, and the race at a past
// moment and its replay. Visibility, guard and rate limit are decided per request; the
// answer itself is one shared read per race per 2 s, cut once at dataAsOf (now minus
// the event's delay) and returned as the same message object to every caller, so the
// gateway serialises, hashes and compresses it once. A past moment is one shared read
// per race and moment (past-live.ts), and a replay steps through those (replay.ts).

import { create } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { type GetRaceLiveResponse, RaceLiveService, WatchRaceLiveResponseSchema } from "../../gen/racing/v1/race_live_pb.js";
import { isPastMoment, replaySpeed, replayStart } from "../domain/past-moment.js";
import { dataAsOf } from "../domain/race-time.js";
import type { RaceRecord } from "../store/races.js";
import { FEED_ASK_EVERY_MS, Feeds } from "../calls/feeds.js";
import { guarded } from "../calls/guarded.js";
import { guardedStream } from "../calls/guarded-stream.js";
import { Replay } from "../calls/replay.js";
import type { ServiceDeps } from "./deps.js";
import { SharedRead } from "../caching/shared-read.js";
import { DATA_AS_OF_HEADER, IMMUTABLE_CACHE_CONTROL, LIVE_CACHE_CONTROL, LIVE_MAX_AGE_MS } from "../caching/cache-policy.js";
import { type LiveRead, readRaceLive } from "./live-answer.js";
import { PastLive } from "./past-live.js";
import { epochMs, invalid } from "./request-params.js";

export function raceLiveService(deps: ServiceDeps): ServiceImpl<typeof RaceLiveService> {
  // Races polled within the last 2 s; a few hundred live at once is a busy day.
  const reads = new SharedRead<LiveRead>({ name: "live", ttlMs: LIVE_MAX_AGE_MS, max: 1000 });
  const current = (race: RaceRecord) => reads.get(race.uuid, () => readRaceLive(deps.reads.pool(), race, Date.now()));
  const past = new PastLive(deps.reads);
  // Watchers read through the same shared read as pollers: one read per race per 2 s in all.
  const feeds = new Feeds<GetRaceLiveResponse>({ ...deps.streamTiming, askEveryMs: FEED_ASK_EVERY_MS }, deps.logger);
  /** The race as stored now (re-read at most every 2 s), or as it was when the stream opened. */
  const stored = async (race: RaceRecord) => (await deps.races.race(race.uuid)) ?? race;
  const watchLive = (race: RaceRecord, resumeAfter: string) =>
    feeds.subscribe(
      race.uuid,
      async () => {
        const { answer } = await current(await stored(race));
        return { id: String(timestampMs(answer.raceLive!.dataAsOf!)), value: answer };
      },
      resumeAfter,
    );
  return {
    getRaceLive: guarded(deps, RaceLiveService.method.getRaceLive, async (request, caller, context) => {
      const atMs = epochMs(request.at, "at");
      // Visibility first, per request: a cached answer is never a reason to show a race.
      const race = await deps.races.trackingRace(caller, request.raceId);
      if (atMs === undefined) {
        const { answer, dataAsOf } = await current(race);
        context.responseHeader.set(DATA_AS_OF_HEADER, dataAsOf);
        context.responseHeader.set("cache-control", LIVE_CACHE_CONTROL);
        return answer;
      }
      const nowMs = Date.now();
      if (!isPastMoment(atMs, dataAsOf(nowMs, race.event.delaySeconds))) throw invalid("at");
      const { read, settled } = await past.at(race, atMs, nowMs);
      context.responseHeader.set(DATA_AS_OF_HEADER, read.dataAsOf);
      context.responseHeader.set("cache-control", settled ? IMMUTABLE_CACHE_CONTROL : LIVE_CACHE_CONTROL);
      return read.answer;
    }),
    watchRaceLive: guardedStream(
      deps,
      RaceLiveService.method.watchRaceLive,
      async (request, caller) => {
        // Parameters wrong whatever the race first, as the track's are.
        const fromMs = epochMs(request.from, "from");
        const speed = replaySpeed(request.speed);
        if (speed === null || (fromMs === undefined && request.speed !== undefined)) throw invalid("speed");
        const race = await deps.races.trackingRace(caller, request.raceId);
        if (fromMs === undefined) return watchLive(race, request.resumeAfter);
        if (!isPastMoment(fromMs, dataAsOf(Date.now(), race.event.delaySeconds))) throw invalid("from");
        const source = {
          at: async (atMs: number) => {
            const { read } = await past.at(await stored(race), atMs, Date.now());
            return { id: String(atMs), value: read.answer };
          },
          cutoffMs: async () => dataAsOf(Date.now(), (await stored(race)).event.delaySeconds),
          live: (resumeAfter: string) => watchLive(race, resumeAfter),
        };
        const startMs = replayStart(fromMs, request.resumeAfter);
        return new Replay(source, { startMs, speed, resumeAfter: request.resumeAfter, timing: deps.streamTiming, logger: deps.logger });
      },
      (request, caller) => deps.races.trackingRace(caller, request.raceId),
      (event) =>
        create(WatchRaceLiveResponseSchema, {
          event:
            "value" in event
              ? { case: "live", value: { eventId: event.value.id, raceLive: event.value.value.raceLive } }
              : { case: "heartbeat", value: {} },
        }),
    ),
  };
}
