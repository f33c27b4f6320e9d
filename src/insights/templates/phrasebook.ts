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
  /** A bare key such as "1", "WW" or "4P": phrased "mark 1" rather than as a name. */
  isKey: boolean;
}

export interface Change {
  from: number;
  to: number;
}

export type WindPhrase =
  /** At least one of direction and speed is set. */
  | { kind: "shift"; direction: Change | null; speed: Change | null }
  /** Nothing comparable changed: the new reading itself. */
  | { kind: "reading"; twd: number; tws: number | null };

export interface Phrasebook {
  /** previous is null when the fact names no previous leader. */
  leadChange(leader: string, previous: string | null): string;
  /** mark is null when the step has no label (or it had to be dropped for length). */
  markRounding(boat: string, mark: MarkName | null): string;
  /** rank is null when the live place is unknown. */
  gain(boat: string, placesGained: number, rank: number | null): string;
  /** rank is the unofficial live place, null when unknown; phrased as provisional. */
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

/** Formats counts and knots the way the language writes numbers (decimal comma etc.). */
export interface Counter {
  format(n: number): string;
  /** Plural category of n exactly as format(n) writes it (1.04 knots is "1", so `one`). */
  select(n: number): Intl.LDMLPluralRule;
  /** "3 places", "1,5 узла": the number and the form of the noun that goes with it. */
  quantity(n: number, forms: PluralForms): string;
}

export function counter(lang: string): Counter {
  const digits = { maximumFractionDigits: 1 } as const;
  const numbers = new Intl.NumberFormat(lang, digits);
  const plurals = new Intl.PluralRules(lang, digits);
  return {
    format: (n) => numbers.format(n),
    select: (n) => plurals.select(n),
    quantity: (n, forms) => `${numbers.format(n)} ${forms[plurals.select(n)] ?? forms.other}`,
  };
}

/** Ordinal-rule lookup (Intl.PluralRules with type "ordinal") into language-specific suffixes. */
export function ordinalSuffixes(lang: string, suffixes: PluralForms): (n: number) => string {
  const rules = new Intl.PluralRules(lang, { type: "ordinal" });
  return (n) => `${n}${suffixes[rules.select(n)] ?? suffixes.other}`;
}

/** Wind directions are whole degrees, written without a space in every language here. */
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
