// The languages insight lines are phrased in, and how a request's `lang` maps onto them.
// The insights endpoint's rule: a region suffix is dropped, matching is case-insensitive,
// anything else or nothing falls back to `en`, and `lang` never produces a 400.

export const LANGUAGES = ["en", "tr", "de", "fr", "es", "it", "ru", "el", "nb"] as const;
export type Lang = (typeof LANGUAGES)[number];

export const DEFAULT_LANG: Lang = "en";

const KNOWN: ReadonlySet<string> = new Set(LANGUAGES);

/**
 * Primary subtags that are not in LANGUAGES but name one of them. `no` is the ISO 639
 * macrolanguage Norwegian, whose written standard is Bokmål for about nine in ten
 * writers, and clients still send it (older browsers, `no-NO` OS locales): nb is what
 * they mean. `nn` (Nynorsk) is a distinct written standard the spec does not list, so it
 * follows the spec's "anything else falls back to en" rather than being served Bokmål
 * under a `lang` it did not ask for.
 */
const ALIASES: ReadonlyMap<string, Lang> = new Map([["no", "nb"]]);

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
  // BCP 47 separates subtags with "-", POSIX locales with "_" (pt_BR, nb_NO.UTF-8).
  const primary = raw.trim().split(/[-_.@]/, 1)[0]?.toLowerCase() ?? "";
  if (isLang(primary)) return primary;
  return ALIASES.get(primary) ?? DEFAULT_LANG;
}
