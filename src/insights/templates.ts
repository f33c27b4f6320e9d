// Template lines: one sentence per fact in each of the nine languages, at most 160
// characters. Used when no model line is available (no model configured, quota spent, or
// the model line was rejected). The sentences themselves live in templates/<lang>.ts.
//
// Length. The spec caps text at 160 characters; we count UTF-16 code units (String
// length), which is never fewer than code points, so the cap holds however a client
// counts. A sentence that is too long is shortened as an editor would, in this order,
// re-rendering after each step:
//   1. the mark label, down to its first word ("Windward…"): it never costs a boat its name;
//   2. boat names, the longest first, down to their first word ("Tenacious…");
//   3. the start group label (only with includeGroup) altogether: it is never cut, and
//      it is the insight's startGroupName anyway;
//   4. the mark label altogether ("rounds a mark");
//   5. boat names altogether: the sail number alone still names the boat.
// Then words a later step made room for are given back in the reverse order (the label's
// second word only once every name is whole), so nothing is shorter than it has to be. Names and labels are cut only after a word that carries
// meaning, never after "and", "de" or "με τους" (shortening.ts), and the kept words get
// "…"; a word is never cut and a sail number is never touched. Only sail numbers of
// dozens of characters can defeat this; as a last resort the sentence is then cut at a
// word boundary with "…".

import { angleDifferenceDegrees, normalizeDegrees } from "../domain/geo.js";
import type { Fact } from "../domain/facts.js";
import { LANGUAGES, type Lang } from "./languages.js";
import { de } from "./templates/de.js";
import { el } from "./templates/el.js";
import { en } from "./templates/en.js";
import { es } from "./templates/es.js";
import { fr } from "./templates/fr.js";
import { it } from "./templates/it.js";
import { nb } from "./templates/nb.js";
import { requireLocaleData, type MarkName, type Phrasebook, type WindPhrase } from "./templates/phrasebook.js";
import { Shortenable } from "./shortening.js";
import { ru } from "./templates/ru.js";
import { tr } from "./templates/tr.js";

export const MAX_INSIGHT_TEXT_LENGTH = 160;

const PHRASEBOOKS: Record<Lang, Phrasebook> = { en, tr, de, fr, es, it, ru, el, nb };

// Plurals, ordinals and decimal commas come from Node's ICU data: without it for all
// nine languages, fail as the server starts (this module loads with it), not on air.
requireLocaleData(LANGUAGES);

/** The thresholds a windShift fact is reported at; the sentence names what crossed them. */
const WIND_TURN_DEGREES = 10;
const WIND_SPEED_KNOTS = 3;

const ELLIPSIS = "…";

export interface TemplateOptions {
  /**
   * Lead with the start group's name ("IRC 1: …"). Off by default: the group is its own
   * field of the insight; worth it when a race has more than one start group.
   */
  includeGroup?: boolean;
}

/** The fact as one sentence in lang, at most MAX_INSIGHT_TEXT_LENGTH characters. */
export function templateText(fact: Fact, lang: Lang, options: TemplateOptions = {}): string {
  const book = PHRASEBOOKS[lang];
  const parts = partsOf(fact, options);
  const phrase = phraser(fact, book);
  const render = (): string => {
    const boats = parts.boats.map(displayBoat);
    const sentence = tidyEnd(phrase(boats, markOf(parts)));
    if (parts.group === null || parts.group.keep === 0) return sentence;
    const first = boats[0];
    const startsWithTemplateWord = first === undefined || !sentence.startsWith(first);
    return book.withGroup(parts.group.text, sentence, startsWithTemplateWord);
  };

  const names = parts.boats.map((boat) => boat.name);
  const group = parts.group ? [parts.group] : [];
  const mark = parts.mark ? [parts.mark] : [];
  const hasSailNumber = (name: Shortenable) => parts.boats.some((boat) => boat.name === name && boat.sailNumber !== "");
  const phases: Array<{ items: Shortenable[]; floor: (item: Shortenable) => number }> = [
    { items: mark, floor: (label) => label.shortest },
    { items: names, floor: (name) => name.shortest },
    { items: group, floor: () => 0 },
    { items: mark, floor: () => 0 },
    // A boat entered without a sail number keeps the first word of its name.
    { items: names, floor: (name) => (hasSailNumber(name) ? 0 : name.shortest) },
  ];

  let text = render();
  for (const phase of phases) {
    while (text.length > MAX_INSIGHT_TEXT_LENGTH) {
      const target = longestAboveFloor(phase.items, phase.floor);
      if (target === null) break;
      target.shorten();
      text = render();
    }
  }
  // A later step can free more room than it needed (a dropped mark label may leave
  // space for the boat name an earlier step took away): give words back while they fit,
  // in the reverse order they were taken; the label grows past its first word only once
  // every name is whole.
  const whole = (item: Shortenable) => item.keep === item.words.length;
  const giveBack: Array<{ items: Shortenable[]; ceiling: (item: Shortenable) => number }> = [
    { items: names, ceiling: (name) => name.shortest },
    { items: mark, ceiling: (label) => label.shortest },
    { items: group, ceiling: (label) => label.words.length },
    { items: names, ceiling: (name) => name.words.length },
    { items: mark, ceiling: (label) => (names.every(whole) ? label.words.length : label.shortest) },
  ];
  for (const step of giveBack) {
    for (const item of step.items) {
      while (item.keep < step.ceiling(item)) {
        const before = item.keep;
        item.lengthen();
        const longer = render();
        if (longer.length > MAX_INSIGHT_TEXT_LENGTH) {
          item.keep = before;
          break;
        }
        text = longer;
      }
    }
  }
  return text.length > MAX_INSIGHT_TEXT_LENGTH ? cutAtWord(text) : text;
}

/** The fact in every language. */
export function templateTexts(fact: Fact, options: TemplateOptions = {}): Record<Lang, string> {
  const texts = {} as Record<Lang, string>;
  for (const lang of LANGUAGES) texts[lang] = templateText(fact, lang, options);
  return texts;
}

// --- fact -> phrase -------------------------------------------------------------------

type Phrase = (boats: string[], mark: MarkName | null) => string;

function phraser(fact: Fact, book: Phrasebook): Phrase {
  const need = (boats: string[]): string => {
    const first = boats[0];
    if (first === undefined) throw new RangeError(`insight fact ${fact.id} (${fact.kind}) names no boat`);
    return first;
  };
  switch (fact.kind) {
    case "leadChange":
      return (boats) => book.leadChange(need(boats), boats[1] ?? null);
    case "markRounding":
      return (boats, mark) => book.markRounding(need(boats), mark);
    case "gain": {
      const gained = positiveInteger(fact.placesGained);
      if (gained === null) throw new RangeError(`insight fact ${fact.id} (gain) has no placesGained`);
      const rank = positiveInteger(fact.rank);
      return (boats) => book.gain(need(boats), gained, rank);
    }
    case "finish": {
      const rank = positiveInteger(fact.rank);
      return (boats) => book.finish(need(boats), rank);
    }
    case "windShift": {
      const wind = windPhrase(fact);
      return () => book.windShift(wind);
    }
  }
}

/**
 * What the wind sentence says: the direction when it turned >= 10 degrees, the speed
 * when it changed >= 3 knots (the spec's reporting thresholds), so a 2-degree wobble
 * beside a 4-knot drop is not read out. If neither crossed a threshold, whatever did
 * change is said; if nothing comparable changed (e.g. the earlier reading was
 * direction-only and only the speed is new), the new reading itself.
 */
function windPhrase(fact: Fact): WindPhrase {
  const direction =
    fact.twdFrom !== null && fact.twdTo !== null ? { from: wholeDegrees(fact.twdFrom), to: wholeDegrees(fact.twdTo) } : null;
  // Clockwise (the degrees rise, through north) is a veer; a turn of exactly 180° counts as one.
  const speed = fact.twsFrom !== null && fact.twsTo !== null ? { from: tenths(fact.twsFrom), to: tenths(fact.twsTo) } : null;
  const turned = direction ? Math.abs(angleDifferenceDegrees(direction.from, direction.to)) : 0;
  const changed = speed ? Math.abs(speed.to - speed.from) : 0;
  const turnedEnough = turned >= WIND_TURN_DEGREES;
  const changedEnough = changed >= WIND_SPEED_KNOTS - 1e-9;
  const sayDirection = direction !== null && (turnedEnough || (!changedEnough && turned > 0));
  const saySpeed = speed !== null && (changedEnough || (!turnedEnough && changed > 0));
  if (sayDirection || saySpeed) {
    const turn = direction && {
      ...direction,
      turn: angleDifferenceDegrees(direction.from, direction.to) > 0 ? ("veer" as const) : ("back" as const),
    };
    return { kind: "shift", direction: sayDirection ? turn : null, speed: saySpeed ? speed : null };
  }
  if (fact.twdTo === null) throw new RangeError(`insight fact ${fact.id} (windShift) has no wind direction`);
  return { kind: "reading", twd: wholeDegrees(fact.twdTo), tws: fact.twsTo === null ? null : tenths(fact.twsTo) };
}

/** 1 to 360: north is written 360°, as sailing and weather write it (000 means calm). */
function wholeDegrees(deg: number): number {
  return Math.round(normalizeDegrees(deg)) % 360 || 360;
}

function tenths(knots: number): number {
  return Math.round(knots * 10) / 10;
}

function positiveInteger(n: number | null): number | null {
  if (n === null || !Number.isFinite(n)) return null;
  const whole = Math.round(n);
  return whole >= 1 ? whole : null;
}

// --- shortening -----------------------------------------------------------------------

interface BoatParts {
  sailNumber: string;
  name: Shortenable;
  entryId: string;
}

interface Parts {
  boats: BoatParts[];
  group: Shortenable | null;
  mark: Shortenable | null;
  markKind: MarkName["kind"];
}

function partsOf(fact: Fact, options: TemplateOptions): Parts {
  const group = options.includeGroup ? clean(fact.startGroupName) : "";
  const mark = fact.kind === "markRounding" && fact.markLabel !== null ? clean(fact.markLabel) : "";
  return {
    boats: fact.boats.map((boat) => ({
      sailNumber: clean(boat.sailNumber),
      name: new Shortenable(clean(boat.boatName), true),
      entryId: boat.entryId,
    })),
    group: group === "" ? null : new Shortenable(group, false),
    mark: mark === "" ? null : new Shortenable(mark, true),
    markKind: markKind(mark),
  };
}

function displayBoat(boat: BoatParts): string {
  const name = boat.name.text;
  if (boat.sailNumber === "") return name === "" ? boat.entryId : name;
  return name === "" ? boat.sailNumber : `${boat.sailNumber} ${name}`;
}

function markOf(parts: Parts): MarkName | null {
  if (parts.mark === null || parts.mark.keep === 0) return null;
  return { label: parts.mark.text, kind: parts.markKind };
}

/** The item with the longest current text that can still lose a word; ties: the later one (the previous leader before the new one). */
function longestAboveFloor(items: Shortenable[], floor: (item: Shortenable) => number): Shortenable | null {
  let best: Shortenable | null = null;
  for (const item of items) {
    if (!item.canShorten(floor(item))) continue;
    if (best === null || item.text.length >= best.text.length) best = item;
  }
  return best;
}

/**
 * A bare mark key ("1", "WW", "4P", "1s") reads as "mark 1", an unlabelled gate's keys
 * ("4s/4p", as detection names it) as "gate 4s/4p"; anything else is a name.
 */
function markKind(label: string): MarkName["kind"] {
  const keys = label.split("/");
  if (keys.length === 2 && keys.every(isMarkKey)) return "gate";
  return isMarkKey(label) ? "key" : "name";
}

function isMarkKey(label: string): boolean {
  return /^[\p{Lu}\p{N}]{1,4}$/u.test(label) || /^\p{N}+\p{Ll}?$/u.test(label);
}

/**
 * Names and labels as entered may hold line breaks, tabs or bidi controls; a line of
 * commentary holds single spaces only.
 */
function clean(text: string): string {
  return text
    .replace(/[\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/[\s\p{Cc}\p{Zl}\p{Zp}]+/gu, " ")
    .trim();
}

/** A name that ends the sentence with its own "!", "?", "." or a shortening "…" keeps one mark, not two. */
function tidyEnd(sentence: string): string {
  return sentence.replace(/([.!?…])\.$/u, "$1");
}

/** Last resort, only reachable with absurd sail numbers: cut at a word boundary. */
function cutAtWord(text: string): string {
  const room = MAX_INSIGHT_TEXT_LENGTH - ELLIPSIS.length;
  const head = text.slice(0, room + 1);
  const space = head.lastIndexOf(" ");
  let cut = space > 0 ? head.slice(0, space) : head.slice(0, room);
  // Never leave half a surrogate pair behind.
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return cut.trimEnd() + ELLIPSIS;
}
