// Where a boat name or a label may be cut as an editor would cut it: after a word that
// carries meaning, never after a dangling article, preposition or conjunction
// ("Persistent and…", "Bahía de…", "Πελάγους με τους…").
//
// Names come in any language whatever the line's language (a Spanish boat in a German
// line), so every name is checked against the function words of all nine languages. A
// content word that is also a function word elsewhere ("Den", "Die") only costs that
// one word more.

import type { Lang } from "./languages.js";

const ELLIPSIS = "…";

const words = (list: string): readonly string[] => list.split(" ");

/** Articles, prepositions, conjunctions and determiners a shortened name must not end on, per language (lower case). */
export const FUNCTION_WORDS: Record<Lang, readonly string[]> = {
  en: words(
    "a an the and or nor but of to in on at by for from with as into onto off over under my our his her its their your this these those",
  ),
  tr: words("ve ile veya ya da de bir için gibi ki"),
  de: words(
    "der die das den dem des ein eine einen einem einer eines und oder von vom zu zum zur im in am an auf aus bei mit nach für über unter vor durch gegen ohne um als wie",
  ),
  fr: words("le la les l’ l' un une des du de d’ d' et ou ni mais à au aux en dans sur sous par pour avec sans chez vers"),
  es: words("el la los las lo un una unos unas y e o u ni de del a al en con por para sin sobre entre hacia desde hasta que"),
  it: words(
    "il lo la i gli le l’ l' un uno una un’ un' e ed o od di del dello della dei degli delle a ad al allo alla ai agli alle da dal dalla dai dalle in nel nella nei con su sul sulla per tra fra",
  ),
  ru: words("и а но или в во на с со к ко о об обо от до по за из у для без под над при про через не"),
  el: words(
    "ο η το οι τα του της των τον την τη τους τις ένας μια μία ένα ενός μιας και κι ή με σε στο στη στην στον στα στους στις στου στης από για προς ως χωρίς κατά παρά",
  ),
  nb: words("og eller men i på av til fra med for om ved mot hos en ei et den det de som"),
};

const ALL_FUNCTION_WORDS: ReadonlySet<string> = new Set(Object.values(FUNCTION_WORDS).flat());

/** A word that cannot end a shortened name: a function word of any of the nine languages, or one without a letter or digit ("&", "-"). */
export function isFunctionWord(word: string): boolean {
  // Turkish İ lower-cases to i + U+0307 outside a Turkish locale: drop the dot so "İLE" is "ile".
  const folded = word
    .toLowerCase()
    .normalize("NFC")
    .replace(/\u0307/g, "");
  const bare = folded.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}’']+$/gu, "");
  return !/[\p{L}\p{N}]/u.test(bare) || ALL_FUNCTION_WORDS.has(bare);
}

/**
 * A free-text part of a line that may lose words from its end, only at its cut points:
 * none (kept whole or dropped, as the start group is), or after each content word.
 * `keep` is always a cut point; a kept prefix shorter than the whole gets "…".
 */
export class Shortenable {
  readonly words: string[];
  keep: number;
  /** The allowed values of keep, ascending: 0, the cut points, the whole. */
  private readonly points: number[];

  constructor(text: string, cutsInside: boolean) {
    this.words = text === "" ? [] : text.split(" ");
    this.keep = this.words.length;
    const inside = cutsInside
      ? this.words.map((word, i) => (isFunctionWord(word) ? -1 : i + 1)).filter((k) => k > 0 && k < this.words.length)
      : [];
    this.points = [0, ...inside, this.words.length];
  }

  get text(): string {
    const kept = this.words.slice(0, this.keep).join(" ");
    return this.keep < this.words.length && this.keep > 0 ? kept + ELLIPSIS : kept;
  }

  /** The first content word's cut point, or the whole when there is none. */
  get shortest(): number {
    return this.points[1] ?? 0;
  }

  /** Whether one cut point shorter is still at least `floor`. */
  canShorten(floor: number): boolean {
    const next = this.points.findLast((k) => k < this.keep);
    return next !== undefined && next >= floor;
  }

  /** One cut point shorter (callers check canShorten first). */
  shorten(): void {
    this.keep = this.points.findLast((k) => k < this.keep) ?? 0;
  }

  /** One cut point longer; false if whole. */
  lengthen(): boolean {
    const next = this.points.find((k) => k > this.keep);
    if (next === undefined) return false;
    this.keep = next;
    return true;
  }
}
