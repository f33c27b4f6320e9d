// English insight lines. Ordinals from the CLDR ordinal rules (1st, 2nd, 3rd, 4th, 11th,
// 21st, 111th); a finish place is unofficial, so it is called provisional. A named mark
// takes "the" and, unless its label already says what it is, "mark" ("rounds the
// Windward mark", "rounds the Leeward gate"). The wind veers (clockwise) or backs.

import { counter, degrees, ordinalSuffixes, type MarkName, type Phrasebook } from "./phrasebook.js";

const count = counter("en");
const ordinal = ordinalSuffixes("en", { one: "st", two: "nd", few: "rd", other: "th" });
const places = (n: number) => count.quantity(n, { one: "place", other: "places" });
const knots = (n: number) => count.quantity(n, { one: "knot", other: "knots" });

/** Labels that already end in what the thing is: "Leeward gate", "Committee boat", "Outer distance mark". */
const SAYS_WHAT_IT_IS = /\b(mark|buoy|gate|boat|pin|beacon|marker|vessel|line)$/iu;

function namedMark(mark: MarkName): string {
  const article = /^the\s/iu.test(mark.label) ? "" : "the ";
  // A label cut after "Mark…" still says what it is.
  return `${article}${mark.label}${SAYS_WHAT_IT_IS.test(mark.label.replace(/…$/u, "")) ? "" : " mark"}`;
}

export const en: Phrasebook = {
  leadChange: (leader, previous) => (previous === null ? `${leader} takes the lead.` : `${leader} takes the lead from ${previous}.`),

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} rounds a mark.`;
    if (mark.kind === "key") return `${boat} rounds mark ${mark.label}.`;
    if (mark.kind === "gate") return `${boat} rounds gate ${mark.label}.`;
    return `${boat} rounds ${namedMark(mark)}.`;
  },

  gain: (boat, n, rank) => {
    if (rank === null) return `${boat} gains ${places(n)}.`;
    return rank === 1 ? `${boat} gains ${places(n)} and takes the lead.` : `${boat} gains ${places(n)} and is now ${ordinal(rank)}.`;
  },

  finish: (boat, rank) => {
    if (rank === null) return `${boat} finishes.`;
    return rank === 1 ? `${boat} finishes first and takes the provisional win.` : `${boat} finishes in provisional ${ordinal(rank)} place.`;
  },

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `New wind reading: ${degrees(wind.twd)}.`
        : `New wind reading: ${degrees(wind.twd)} at ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const turn =
      direction && `${direction.turn === "veer" ? "veers" : "backs"} from ${degrees(direction.from)} to ${degrees(direction.to)}`;
    const pace = speed && `${speed.to > speed.from ? "builds" : "eases"} from ${count.format(speed.from)} to ${knots(speed.to)}`;
    return `The wind ${[turn, pace].filter(Boolean).join(" and ")}.`;
  },

  withGroup: (group, sentence) => `${group}: ${sentence}`,
};
