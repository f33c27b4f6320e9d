// When insights are generated and what an answer holds. A race's facts are detected
// at most once per 60 s, by one instance at a time (a lease in MySQL), for every
// client and every language asked for in the last 10 minutes; the first detection
// catches up on the last 15 minutes, so a first call already shows them. Facts and
// texts live in MySQL, so any instance serves what another generated. Mark roundings
// are the race analytics' step passings, handed in (`stepPassings`), never computed here.

import type { Logger } from "pino";
import type { GroupPassings } from "../domain/detection-input.js";
import { dataAsOf } from "../domain/race-time.js";
import { detectionInputs } from "../store/insight-inputs.js";
import {
  factsBetween,
  finishGeneration,
  generationState,
  languagesRequestedSince,
  markPhrased,
  noteLanguage,
  releaseLease,
  saveFacts,
  saveTexts,
  takeLease,
  textsFor,
  type GenerationState,
  type PhrasedText,
} from "../store/insights.js";
import type { Pool } from "../store/pool.js";
import type { ReadPools } from "../store/read-replica.js";
import type { RaceRecord } from "../store/races.js";
import { DETECTION_WINDOW_MS, detectFacts, detectMarkRoundings } from "./detect.js";
import type { Fact } from "../domain/facts.js";
import type { Lang } from "./languages.js";
import type { ModelPhraser } from "./model-phrasing.js";
import { templateText } from "./templates.js";
import { insightGenerations } from "../telemetry/metrics.js";

export const GENERATION_INTERVAL_MS = 60_000;
/** Languages asked for this recently are phrased at each generation. */
export const LANGUAGE_RECENCY_MS = 10 * 60_000;
/**
 * How far back a generation catches up on windows not yet covered, and looks again for
 * mark roundings: a passing is known only once the boat sailed on, so one may turn up in
 * a window already covered. As far back as an answer shows (SHOWN_MS): an older one
 * would never be shown.
 */
export const CATCH_UP_MS = 15 * 60_000;
/** An answer holds facts of the 15 minutes before its dataAsOf, at most 30. */
export const SHOWN_MS = 15 * 60_000;
export const MAX_INSIGHTS = 30;
/** Longer than any generation takes; a crashed instance's lease expires after it. */
const LEASE_MS = 30_000;

export interface InsightsState {
  generatedAtMs: number;
  dataAsOfMs: number;
  /** Newest first, at most 30, each with its text in the asked language. */
  insights: Array<{ fact: Fact; text: PhrasedText }>;
}

/**
 * Each start group's step passings as the race analytics know them at the race's
 * dataAsOf for `nowMs` (the composition root wires the one analytics engine).
 */
export type StepPassingsSource = (race: RaceRecord, nowMs: number) => Promise<GroupPassings>;

export class InsightsGenerator {
  constructor(
    /** `pool`: the primary, for leases, facts and texts; `reads`: detection's inputs (the read model, a replica may serve them). */
    private readonly deps: {
      pool: Pool;
      reads: ReadPools;
      stepPassings: StepPassingsSource;
      logger: Logger;
      phraser: ModelPhraser | null;
      instanceId: string;
    },
  ) {}

  /**
   * Generates when due (or phrases `lang` if it is new since the last generation),
   * then returns the stored state in `lang`; null while the race was never generated
   * (another instance holds the first lease).
   */
  async insights(race: RaceRecord, lang: Lang, nowMs: number): Promise<InsightsState | null> {
    const { pool, instanceId } = this.deps;
    const phrasedAtMs = await noteLanguage(pool, race.id, lang, nowMs);
    const state = await generationState(pool, race.id);
    // A raised delay: the last generation saw later than this delay allows, so it is due at once.
    const delayRaised = state.dataAsOfMs !== null && state.dataAsOfMs > dataAsOf(nowMs, race.event.delaySeconds);
    const due = state.generatedAtMs === null || nowMs - state.generatedAtMs >= GENERATION_INTERVAL_MS || delayRaised;
    if (due && (await takeLease(pool, race.id, instanceId, nowMs, delayRaised ? nowMs : nowMs - GENERATION_INTERVAL_MS, LEASE_MS))) {
      try {
        await this.generate(race, state, nowMs);
        insightGenerations.inc({ result: "ok" });
      } catch (error) {
        insightGenerations.inc({ result: "failed" });
        await releaseLease(pool, race.id, instanceId);
        throw error;
      }
    } else if (state.dataAsOfMs !== null && (phrasedAtMs === null || phrasedAtMs < state.generatedAtMs!)) {
      // A language asked for the first time gets its lines in the window the facts were detected in.
      await this.phrase(race, lang, state.dataAsOfMs, nowMs);
    }
    return this.stored(race, lang, nowMs);
  }

  private async generate(race: RaceRecord, state: GenerationState, nowMs: number): Promise<void> {
    const { pool, reads, stepPassings, instanceId } = this.deps;
    const asOf = dataAsOf(nowMs, race.event.delaySeconds);
    const coveredFrom = Math.max(state.coveredToMs ?? -Infinity, asOf - CATCH_UP_MS);
    const passings = await stepPassings(race, nowMs);
    // Windows of 5 minutes ending at dataAsOf, then 5, 10 minutes earlier: every kind
    // until the uncovered time is covered, mark roundings back to CATCH_UP_MS (passings
    // confirmed since). Overlaps are harmless: a fact keeps its id.
    const facts = new Map<string, Fact>();
    for (let to = asOf; to > asOf - CATCH_UP_MS; to -= DETECTION_WINDOW_MS) {
      const detect = to > coveredFrom ? detectFacts : detectMarkRoundings;
      for (const recorded of await detectionInputs(reads.pool(), race, to - DETECTION_WINDOW_MS, to)) {
        const input = { ...recorded, passings: passings.get(recorded.startGroupId) ?? [] };
        for (const fact of detect(input)) facts.set(fact.id, fact);
      }
    }
    await saveFacts(pool, race.id, [...facts.values()]);
    for (const lang of await languagesRequestedSince(pool, race.id, nowMs - LANGUAGE_RECENCY_MS)) {
      await this.phrase(race, lang as Lang, asOf, nowMs);
    }
    await finishGeneration(pool, race.id, instanceId, { generatedAtMs: nowMs, dataAsOfMs: asOf, coveredToMs: asOf });
  }

  /** Texts for the facts an answer would show: model lines when the model gives acceptable ones, template lines otherwise. */
  private async phrase(race: RaceRecord, lang: Lang, asOf: number, nowMs: number): Promise<void> {
    const { pool, phraser } = this.deps;
    const { facts, texts: existing } = await this.shown(race, lang, asOf);
    const unphrasedByModel = facts.filter((fact) => existing.get(fact.id)?.source !== "model");
    const modelLines = phraser && unphrasedByModel.length > 0 ? await phraser.phrase(unphrasedByModel, lang) : new Map<string, string>();
    const texts = new Map<string, PhrasedText>();
    for (const fact of facts) {
      const line = modelLines.get(fact.id);
      if (line !== undefined) texts.set(fact.id, { text: line, source: "model" });
      else if (!existing.has(fact.id)) texts.set(fact.id, { text: templateText(fact, lang), source: "template" });
    }
    await saveTexts(pool, race.id, lang, texts);
    await markPhrased(pool, race.id, lang, nowMs);
  }

  /**
   * The stored generation as an answer at `nowMs`, cut at now minus the race's delay when
   * the generation saw later (a raised delay another instance is generating for): an
   * answer never shows what its own delaySeconds hides.
   */
  private async stored(race: RaceRecord, lang: Lang, nowMs: number): Promise<InsightsState | null> {
    const { pool } = this.deps;
    const state = await generationState(pool, race.id);
    if (state.generatedAtMs === null || state.dataAsOfMs === null) return null;
    const asOf = Math.min(state.dataAsOfMs, dataAsOf(nowMs, race.event.delaySeconds));
    const { facts, texts } = await this.shown(race, lang, asOf);
    return {
      generatedAtMs: state.generatedAtMs,
      dataAsOfMs: asOf,
      // A fact detected by another instance before this language was phrased gets its template line.
      insights: facts.map((fact) => ({
        fact,
        text: texts.get(fact.id) ?? { text: templateText(fact, lang), source: "template" as const },
      })),
    };
  }

  /** The facts an answer as of `asOf` shows (the last 15 minutes, at most 30), with their stored texts in `lang`. */
  private async shown(race: RaceRecord, lang: Lang, asOf: number): Promise<{ facts: Fact[]; texts: Map<string, PhrasedText> }> {
    const facts = await factsBetween(this.deps.pool, race.id, asOf - SHOWN_MS, asOf, MAX_INSIGHTS);
    return {
      facts,
      texts: await textsFor(
        this.deps.pool,
        race.id,
        lang,
        facts.map((fact) => fact.id),
      ),
    };
  }
}
