// The languages insight lines are phrased in, and how a request's `lang` maps onto them.
// The insights endpoint's rule: a region suffix is dropped, matching is case-insensitive,
// anything else or nothing falls back to `en`, and `lang` never produces a 400.

export const LANGUAGES = ["en", "tr", "de", "fr", "es", "it", "ru", "el", "nb"] as const;
export type Lang = (typeof LANGUAGES)[number];

export const DEFAULT_LANG: Lang = "en";

const KNOWN: ReadonlySet<string> = new Set(LANGUAGES);

/**
 * A language code, optionally with a region suffix (BCP 47: two letters or three
 * digits, as in en-GB or es-419). Anything else is "anything else" in the spec's
 * words, and falls back to en: other separators (de_DE), encodings (de.UTF-8),
 * spaces, and codes outside the nine, `no` (Norwegian) among them.
 */
const LANG_TAG = /^([a-z]{2})(?:-(?:[a-z]{2}|[0-9]{3}))?$/i;

export function isLang(value: unknown): value is Lang {
  return typeof value === "string" && KNOWN.has(value);
}

/**
 * The language insight text is rendered in for a request's `lang` query value. A repeated
 * query parameter (`?lang=fr&lang=de`, parsed as an array) counts by its first value,
 * as with every other single-valued parameter. Never throws: anything unusable is `en`.
 */
export function normalizeLang(input: string | readonly string[] | undefined | null): Lang {
  const raw: unknown = Array.isArray(input) ? input[0] : input;
  if (typeof raw !== "string") return DEFAULT_LANG;
  const primary = LANG_TAG.exec(raw)?.[1]?.toLowerCase();
  return isLang(primary) ? primary : DEFAULT_LANG;
}
