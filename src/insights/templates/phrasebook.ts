// What a language supplies to phrase insight facts as template lines, and the number
// helpers the languages share. Each language file owns its sentences and its grammar
// (plural forms, ordinals, elision); templates.ts owns the fact -> phrase mapping and
// the 160-character limit.
//
// Ordinal forms used (the number is always written as digits):
//
// | lang | form                         | examples                                           |
// |------|------------------------------|----------------------------------------------------|
// | en   | CLDR ordinal -> st/nd/rd/th  | 1st 2nd 3rd 4th 11th 12th 13th 21st 22nd 101st 111th |
// | tr   | digits + "." ("2. sıraya")   | 1. 2. 11.                                          |
// | de   | digits + "." before "Platz"  | auf dem 1. Platz, auf dem 2. Platz                 |
// | fr   | CLDR ordinal: 1er, else Ne   | au 1er rang, au 2e rang (rang is masculine)        |
// | es   | N.º (standalone, masculine)  | ya es 1.º, ya es 2.º (no noun follows: no 1.er)   |
// | it   | Nº + "posto"; al/all'        | al 2º posto, all'8º posto, all'11º posto, all'81º  |
// | ru   | N-е (acc.) / N-м (prep.)     | на 2-е место, на 4-м месте                         |
// | el   | Nη / Nή (fem., θέση); στη/ν  | στην 1η θέση, στη 2η θέση, στην 20ή θέση           |
// | nb   | digits + "." before "plass"  | på 1. plass, på 2. plass                           |

export interface MarkName {
  /** The course step's label or mark key, possibly shortened with a trailing "…". */
  label: string;
  /**
   * "key": a bare key such as "1", "WW" or "4P", phrased "mark 1"; "gate": an unlabelled
   * gate's two keys ("4s/4p"), phrased "gate 4s/4p"; "name": a label such as "Windward".
   */
  kind: "name" | "key" | "gate";
}

export interface Change {
  from: number;
  to: number;
}

/** A wind direction change, 1 to 360 degrees (north is 360); veer: clockwise, back: anticlockwise. */
export interface Turn extends Change {
  turn: "veer" | "back";
}

export type WindPhrase =
  /** At least one of direction and speed is set. */
  | { kind: "shift"; direction: Turn | null; speed: Change | null }
  /** Nothing comparable changed: the new reading itself. */
  | { kind: "reading"; twd: number; tws: number | null };

export interface Phrasebook {
  /** previous is null when the fact names no previous leader. */
  leadChange(leader: string, previous: string | null): string;
  /** mark is null when the step has no label (or it had to be dropped for length). */
  markRounding(boat: string, mark: MarkName | null): string;
  /** rank is null when the live place is unknown; rank 1 takes the lead. */
  gain(boat: string, placesGained: number, rank: number | null): string;
  /** rank is the unofficial live place, null when unknown; phrased as provisional; rank 1 wins, provisionally. */
  finish(boat: string, rank: number | null): string;
  windShift(wind: WindPhrase): string;
  /**
   * The start group as a leading label ("IRC 1: …"). startsWithTemplateWord tells the
   * language whether the sentence opens with its own word (which some languages write
   * in lower case after a colon) or with a boat's sail number (never touched).
   */
  withGroup(group: string, sentence: string, startsWithTemplateWord: boolean): string;
}

export type PluralForms = { [K in Intl.LDMLPluralRule]?: string } & { other: string };

/**
 * The plural and ordinal rules and the decimal comma come from the CLDR data in Node's
 * ICU. A Node built with small-icu has English only and would silently apply English
 * rules ("2 места" for 5): the languages that lack their data, none with full ICU.
 */
export function languagesWithoutLocaleData(
  langs: readonly string[],
  intl: Pick<typeof Intl, "PluralRules" | "NumberFormat"> = Intl,
): string[] {
  const has = (lang: string) =>
    intl.PluralRules.supportedLocalesOf([lang]).length === 1 && intl.NumberFormat.supportedLocalesOf([lang]).length === 1;
  return langs.filter((lang) => !has(lang));
}

/** Throws, naming what is missing and how to get it, unless every language has its ICU data. */
export function requireLocaleData(langs: readonly string[], intl: Pick<typeof Intl, "PluralRules" | "NumberFormat"> = Intl): void {
  const missing = languagesWithoutLocaleData(langs, intl);
  if (missing.length === 0) return;
  throw new Error(
    `Insight lines need Node's full ICU data (Intl.PluralRules and Intl.NumberFormat) for ${missing.join(", ")}; ` +
      "this Node has less (built with small-icu?). Use an official Node build, which has full ICU, or start node with " +
      "--icu-data-dir pointing at the full-icu data.",
  );
}

/** Formats counts and knots the way the language writes numbers (decimal comma etc.). */
export interface Counter {
  format(n: number): string;
  /** Plural category of n exactly as format(n) writes it (1.04 knots is "1", so `one`). */
  select(n: number): Intl.LDMLPluralRule;
  /** "3 places", "1,5 узла": the number and the form of the noun that goes with it. */
  quantity(n: number, forms: PluralForms): string;
}

/** `space` goes between a number and its noun: French wants a no-break one. */
export function counter(lang: string, space = " "): Counter {
  const digits = { maximumFractionDigits: 1 } as const;
  const numbers = new Intl.NumberFormat(lang, digits);
  const plurals = new Intl.PluralRules(lang, digits);
  return {
    format: (n) => numbers.format(n),
    select: (n) => plurals.select(n),
    quantity: (n, forms) => `${numbers.format(n)}${space}${forms[plurals.select(n)] ?? forms.other}`,
  };
}

/** Ordinal-rule lookup (Intl.PluralRules with type "ordinal") into language-specific suffixes. */
export function ordinalSuffixes(lang: string, suffixes: PluralForms): (n: number) => string {
  const rules = new Intl.PluralRules(lang, { type: "ordinal" });
  return (n) => `${n}${suffixes[rules.select(n)] ?? suffixes.other}`;
}

/** Wind directions are whole degrees, 1 to 360, written without a space in every language here (an angle, not a temperature). */
export function degrees(n: number): string {
  return `${n}°`;
}

/** Lower-cases the first letter of a sentence that follows a colon, in the language's own rules. */
export function lowerFirst(sentence: string, lang: string): string {
  const first = sentence.codePointAt(0);
  if (first === undefined) return sentence;
  const head = String.fromCodePoint(first);
  return head.toLocaleLowerCase(lang) + sentence.slice(head.length);
}
