// Phrasing insight facts with a language model: one chat-completions request per call,
// a per-language hourly quota, and the checks a model line must pass before it may
// replace the template line. Anything that goes wrong falls back to templates; nothing throws.

import type { Fact } from "../domain/facts.js";
import { angleDifferenceDegrees } from "../domain/geo.js";
import { MAX_INSIGHT_TEXT_LENGTH } from "./templates.js";
import { modelCalls, templateFallbacks } from "../telemetry/metrics.js";

export interface ModelConfig {
  /** The full chat-completions URL, e.g. http://127.0.0.1:8000/v1/chat/completions. */
  url: string;
  model: string;
  apiKey?: string;
  /** Model requests per language per rolling hour; 0 means templates only. */
  quotaPerHour: number;
  /** Whole request, body included; default 8000. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 8000;
const HOUR_MS = 3_600_000;

interface Logger {
  warn(obj: object, msg: string): void;
}

const silent: Logger = { warn() {} };

export class ModelPhraser {
  private readonly quota: HourlyQuota;
  private readonly logger: Logger;

  constructor(
    private readonly config: ModelConfig,
    options: { now?: () => number; logger?: Logger } = {},
  ) {
    this.quota = new HourlyQuota(config.quotaPerHour, options.now ?? Date.now);
    this.logger = options.logger ?? silent;
  }

  /** Model sentences for the facts in `lang`, by fact id; facts it could not phrase acceptably are absent (the caller uses the template line). */
  // `lang` is a plain string until src/insights/languages.ts (Lang) lands.
  async phrase(facts: readonly Fact[], lang: string): Promise<Map<string, string>> {
    const lines = new Map<string, string>();
    if (facts.length === 0) return lines;
    if (!this.quota.take(lang)) {
      templateFallbacks.inc({ reason: "quota" }, facts.length);
      this.logger.warn({ lang, quotaPerHour: this.config.quotaPerHour }, "insight model quota used up for this hour; template lines used");
      return lines;
    }

    let answer: Record<string, unknown>;
    try {
      answer = parseAnswer(await this.complete(facts, lang));
    } catch (error) {
      modelCalls.inc({ result: "failed" });
      templateFallbacks.inc({ reason: "failed" }, facts.length);
      this.logger.warn({ lang, facts: facts.length, error: describe(error) }, "insight model call failed; template lines used");
      return lines;
    }

    const byId = new Map(facts.map((fact) => [fact.id, fact]));
    const rejected: string[] = [];
    const unknown: string[] = [];
    for (const [id, value] of Object.entries(answer)) {
      const fact = byId.get(id);
      if (!fact) {
        unknown.push(id);
        continue;
      }
      const text = typeof value === "string" ? value.normalize("NFC").trim() : "";
      if (acceptableModelLine(fact, text)) lines.set(id, text);
      else rejected.push(id);
    }
    const missing = facts.filter((fact) => !lines.has(fact.id) && !rejected.includes(fact.id)).map((fact) => fact.id);
    const discarded = facts.length - lines.size;
    modelCalls.inc({ result: discarded > 0 ? "discarded" : "ok" });
    if (discarded > 0) templateFallbacks.inc({ reason: "discarded" }, discarded);
    if (rejected.length > 0 || unknown.length > 0 || missing.length > 0) {
      this.logger.warn({ lang, rejected, unknown: unknown.slice(0, 10), missing }, "insight model lines discarded; template lines used");
    }
    return lines;
  }

  private async complete(facts: readonly Fact[], lang: string): Promise<string> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    // No response_format: not every OpenAI-compatible server accepts it, and the
    // answer is parsed leniently anyway.
    const body = {
      model: this.config.model,
      temperature: 0.3,
      messages: [
        { role: "system", content: systemPrompt(languageName(lang)) },
        { role: "user", content: JSON.stringify({ language: languageName(lang), facts: facts.map(factForModel) }) },
      ],
    };
    const response = await fetch(this.config.url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`HTTP ${response.status}`);
    }
    const completion: unknown = await response.json();
    const content = messageContent(completion);
    if (content === undefined) throw new Error("answer has no choices[0].message.content");
    return content;
  }
}

/**
 * Counts model requests (not facts) per language over a rolling hour: a request is the
 * unit the provider bills and rate-limits. Kept in this instance's memory, so several
 * instances each spend the full quota; moving the count to MySQL would share it.
 */
class HourlyQuota {
  private readonly sent = new Map<string, number[]>();

  constructor(
    private readonly perHour: number,
    private readonly now: () => number,
  ) {}

  take(key: string): boolean {
    const now = this.now();
    const recent = (this.sent.get(key) ?? []).filter((at) => at > now - HOUR_MS);
    const allowed = recent.length < this.perHour;
    if (allowed) recent.push(now);
    this.sent.set(key, recent);
    return allowed;
  }
}

const LANGUAGE_NAMES: Record<string, string> = {
  en: "English",
  tr: "Turkish (Türkçe)",
  de: "German (Deutsch)",
  fr: "French (français)",
  es: "Spanish (español)",
  it: "Italian (italiano)",
  ru: "Russian (русский)",
  el: "Greek (Ελληνικά)",
  nb: "Norwegian Bokmål (norsk bokmål)",
};

function languageName(lang: string): string {
  return LANGUAGE_NAMES[lang] ?? lang;
}

function systemPrompt(language: string): string {
  return [
    "You write live commentary lines for a sailing race tracker.",
    `The user message is JSON: a list of facts. For each fact write one sentence in ${language} that states the fact.`,
    "Rules for every sentence:",
    "- exactly one sentence, ending with a full stop, at most 160 characters (aim for under 120);",
    "- mention every boat listed in the fact by its sail number, written exactly as given; the boat name may follow it;",
    "- state only what the fact says: no times, no predictions, no invented details;",
    "- plain text: no markup, no emoji, no line breaks.",
    "Fact kinds: leadChange: newLeader took the lead from previousLeader. markRounding: the boat rounded markLabel.",
    "gain: the boat gained placesGained places and is now in place rank. finish: the boat finished, in place rank (unofficial) if given.",
    "windShift: the wind direction went from twdFrom to twdTo degrees, and the speed from twsFrom to twsTo knots when given;",
    "windTurn says which way it turned: veer (clockwise) or back (anticlockwise); say it in the sailing words of the language.",
    "Write north as 360°, never 0°. A gain to rank 1 takes the lead; a finish at rank 1 wins, provisionally: say so, not 1st.",
    'Answer with one JSON object only, mapping each fact id to its sentence: {"<id>": "<sentence>", ...}. Include every id.',
  ].join("\n");
}

const BOAT_ROLES: Record<Fact["kind"], readonly string[]> = {
  leadChange: ["newLeader", "previousLeader"],
  markRounding: ["boat"],
  gain: ["boat"],
  finish: ["boat"],
  windShift: [],
};

/** What the model sees of a fact: roles instead of positions, and no null fields. */
function factForModel(fact: Fact): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: fact.id,
    kind: fact.kind,
    startGroup: fact.startGroupName,
    boats: fact.boats.map((boat, i) => ({
      role: BOAT_ROLES[fact.kind][i] ?? "boat",
      sailNumber: boat.sailNumber,
      boatName: boat.boatName,
    })),
  };
  const fields = ["markLabel", "rank", "placesGained", "twdFrom", "twdTo", "twsFrom", "twsTo"] as const;
  for (const field of fields) if (fact[field] !== null) out[field] = fact[field];
  // As the template lines say it: north is 360, and a turn has a direction.
  for (const field of ["twdFrom", "twdTo"] as const) if (fact[field] === 0 || fact[field] === 360) out[field] = 360;
  if (fact.twdFrom !== null && fact.twdTo !== null && fact.twdFrom !== fact.twdTo) {
    out.windTurn = angleDifferenceDegrees(fact.twdFrom, fact.twdTo) > 0 ? "veer" : "back";
  }
  return out;
}

function messageContent(completion: unknown): string | undefined {
  const choices = (completion as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return undefined;
  const content = (choices[0] as { message?: { content?: unknown } } | undefined)?.message?.content;
  if (typeof content === "string") return content;
  // Some servers answer with content parts.
  if (Array.isArray(content)) return content.map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : "")).join("");
  return undefined;
}

/** The JSON object in the model's answer, with or without a code fence or words around it. */
function parseAnswer(content: string): Record<string, unknown> {
  const fenced = /```[a-zA-Z]*\s*([\s\S]*?)```/.exec(content)?.[1] ?? content;
  const first = fenced.indexOf("{");
  const last = fenced.lastIndexOf("}");
  const candidates = [fenced.trim(), first >= 0 && last > first ? fenced.slice(first, last + 1) : undefined];
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    try {
      const parsed: unknown = JSON.parse(candidate);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // try the next candidate
    }
  }
  throw new Error("answer content is not a JSON object");
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return "timed out";
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}

// ---- Checking a model line ----

const CONTROL_OR_LINE_BREAK = /[\p{Cc}\u2028\u2029]/u;
const MARKUP = /[<>`*#[\]{}|\\]|__|~~|:\/\//u;
const CLOSERS = `"'»”’)`;
const ENDS_A_SENTENCE = new RegExp(`[.!?…]+[${CLOSERS}]*$`, "u");
const SENTENCE_BREAK = new RegExp(`[.!?…]+[${CLOSERS}]*\\s+(?=\\S)`, "gu");

/**
 * A model line is served only if it is what the spec promises: at most 160 characters
 * (UTF-16 units, which are never fewer than code points), exactly one sentence, every
 * boat of the fact named by sail number, no line break, control character or markup.
 * `text` is checked as it would be served: leading or trailing space fails.
 */
export function acceptableModelLine(fact: Fact, text: string): boolean {
  if (text.length === 0 || text.length > MAX_INSIGHT_TEXT_LENGTH || text !== text.trim()) return false;
  if (CONTROL_OR_LINE_BREAK.test(text)) return false;
  for (const boat of fact.boats) {
    const sailNumber = boat.sailNumber.trim();
    if (sailNumber && !mentions(text, sailNumber)) return false;
  }
  const rest = withoutFactNames(fact, text);
  return !MARKUP.test(rest) && isOneSentence(rest);
}

/** The sail number as a whole token; its spaces may be any (or no) white space, e.g. a French no-break space. */
function mentions(text: string, sailNumber: string): boolean {
  const pattern = sailNumber
    .split(/\s+/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("\\s*");
  return new RegExp(`(?<![\\p{L}\\p{N}])${pattern}(?![\\p{L}\\p{N}])`, "iu").test(text);
}

/** Names from the fact may carry punctuation ("Dr. No", "Gate 1s/1p"); they are the fact's, not the model's. */
function withoutFactNames(fact: Fact, text: string): string {
  const names = [fact.startGroupName, fact.markLabel ?? "", ...fact.boats.flatMap((boat) => [boat.sailNumber, boat.boatName])]
    .filter((name) => /[^\p{L}\p{N}\s]/u.test(name))
    .sort((a, b) => b.length - a.length);
  return names.reduce((rest, name) => rest.split(name).join("X"), text);
}

function isOneSentence(text: string): boolean {
  if (!ENDS_A_SENTENCE.test(text)) return false;
  for (const match of text.matchAll(SENTENCE_BREAK)) {
    // A full stop right after a digit is an ordinal in German and Norwegian ("2. Platz", "3. plass").
    const ordinal = match[0].startsWith(".") && !match[0].startsWith("..") && /\p{N}/u.test(text[(match.index ?? 0) - 1] ?? "");
    if (!ordinal) return false;
  }
  return true;
}
