// LiveInsightsService.GetLiveInsights: the commentary feed. Visibility, guard and rate
// limit per request; the answer per race and language is built once per generation
// and kept until the next generation is due, so polling costs no database work.

import { create } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  GetLiveInsightsResponseSchema,
  type GetLiveInsightsResponse,
  LiveInsightsService,
  WatchLiveInsightsResponseSchema,
} from "../../gen/racing/v1/live_insights_pb.js";
import { dataAsOf } from "../domain/race-time.js";
import { GENERATION_INTERVAL_MS, type InsightsGenerator, type InsightsState } from "../insights/generator.js";
import { normalizeLang, type Lang } from "../insights/languages.js";
import type { RaceRecord } from "../store/races.js";
import { guarded } from "../calls/guarded.js";
import { FEED_ASK_EVERY_MS, Feeds } from "../calls/feeds.js";
import { guardedStream } from "../calls/guarded-stream.js";
import type { ServiceDeps } from "./deps.js";
import { SharedRead } from "../caching/shared-read.js";
import { DATA_AS_OF_HEADER, insightsCacheControl } from "../caching/cache-policy.js";
import { INSIGHT_KIND_ENUMS, INSIGHT_SOURCE_ENUMS } from "../messages/enum-words.js";

interface Answer {
  message: GetLiveInsightsResponse;
  /** When the answer stops being current: the next generation is due (epoch ms). */
  freshUntilMs: number;
}

export function liveInsightsService(deps: ServiceDeps & { insights: InsightsGenerator }): ServiceImpl<typeof LiveInsightsService> {
  const answers = new SharedRead<Answer>({ name: "insights", ttlMs: (answer) => answer.freshUntilMs - Date.now(), max: 10_000 });
  // Keyed by the delay too: an answer built under another delay would state one delay and show another's data.
  const current = async (race: RaceRecord, lang: Lang) =>
    race.isLive
      ? await answers.get(`${race.uuid}|${lang}|${race.event.delaySeconds}`, () => liveAnswer(deps.insights, race, lang))
      : notLiveAnswer(race, lang);
  // Watchers ask on the feeds' beat, so a new generation reaches them as soon as it is due.
  const feeds = new Feeds<GetLiveInsightsResponse>({ ...deps.streamTiming, askEveryMs: FEED_ASK_EVERY_MS }, deps.logger);
  return {
    getLiveInsights: guarded(deps, LiveInsightsService.method.getLiveInsights, async (request, caller, context) => {
      const race = await deps.races.trackingRace(caller, request.raceId);
      const lang = normalizeLang(request.lang);
      const answer = await current(race, lang);
      context.responseHeader.set(DATA_AS_OF_HEADER, new Date(timestampMs(answer.message.dataAsOf!)).toISOString());
      context.responseHeader.set("cache-control", insightsCacheControl(race.isLive, answer.freshUntilMs, Date.now()));
      return answer.message;
    }),
    watchLiveInsights: guardedStream(
      deps,
      LiveInsightsService.method.watchLiveInsights,
      async (request, caller) => {
        const race = await deps.races.trackingRace(caller, request.raceId);
        const lang = normalizeLang(request.lang);
        const read = async () => {
          const { message } = await current((await deps.races.race(race.uuid)) ?? race, lang);
          // One id per generation: a rebuilt answer of the same generation is not news.
          return { id: message.generatedAtUtc ? String(timestampMs(message.generatedAtUtc)) : "0", value: message };
        };
        return feeds.subscribe(`${race.uuid}|${lang}`, read, request.resumeAfter);
      },
      (request, caller) => deps.races.trackingRace(caller, request.raceId),
      (event) =>
        create(WatchLiveInsightsResponseSchema, {
          event:
            "value" in event
              ? { case: "insights", value: { eventId: event.value.id, answer: event.value.value } }
              : { case: "heartbeat", value: {} },
        }),
    ),
  };
}

async function liveAnswer(generator: InsightsGenerator, race: RaceRecord, lang: Lang): Promise<Answer> {
  const nowMs = Date.now();
  const state = await generator.insights(race, lang, nowMs);
  // Another instance holds the first generation's lease: answer empty and ask again soon.
  if (!state) return { message: response(race, lang, dataAsOf(nowMs, race.event.delaySeconds), null), freshUntilMs: nowMs + 1000 };
  return { message: response(race, lang, state.dataAsOfMs, state), freshUntilMs: state.generatedAtMs + GENERATION_INTERVAL_MS };
}

function notLiveAnswer(race: RaceRecord, lang: Lang): Answer {
  const nowMs = Date.now();
  return { message: response(race, lang, dataAsOf(nowMs, race.event.delaySeconds), null), freshUntilMs: nowMs };
}

function response(race: RaceRecord, lang: Lang, dataAsOfMs: number, state: InsightsState | null): GetLiveInsightsResponse {
  return create(GetLiveInsightsResponseSchema, {
    raceId: race.uuid,
    eventId: race.event.uuid,
    isLive: race.isLive,
    lang,
    delaySeconds: race.event.delaySeconds,
    dataAsOf: timestampFromMs(dataAsOfMs),
    generatedAtUtc: state ? timestampFromMs(state.generatedAtMs) : undefined,
    insights: (state?.insights ?? []).map(({ fact, text }) => ({
      id: fact.id,
      kind: INSIGHT_KIND_ENUMS[fact.kind],
      startGroupId: fact.startGroupId,
      startGroupName: fact.startGroupName,
      atUtc: timestampFromMs(fact.atMs),
      text: text.text,
      source: INSIGHT_SOURCE_ENUMS[text.source],
      boats: fact.boats,
      markLabel: fact.markLabel ?? undefined,
      rank: fact.rank ?? undefined,
      placesGained: fact.placesGained ?? undefined,
      twdFrom: fact.twdFrom ?? undefined,
      twdTo: fact.twdTo ?? undefined,
      twsFrom: fact.twsFrom ?? undefined,
      twsTo: fact.twsTo ?? undefined,
    })),
  });
}
