// English insight lines. Ordinals from the CLDR ordinal rules (1st, 2nd, 3rd, 4th, 11th,
// 21st, 111th); a finish place is unofficial, so it is called provisional.

import { counter, degrees, ordinalSuffixes, type Phrasebook } from "./phrasebook.js";

const count = counter("en");
const ordinal = ordinalSuffixes("en", { one: "st", two: "nd", few: "rd", other: "th" });
const places = (n: number) => count.quantity(n, { one: "place", other: "places" });
const knots = (n: number) => count.quantity(n, { one: "knot", other: "knots" });

export const en: Phrasebook = {
  leadChange: (leader, previous) => (previous === null ? `${leader} takes the lead.` : `${leader} takes the lead from ${previous}.`),

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} rounds a mark.`;
    return mark.isKey ? `${boat} rounds mark ${mark.label}.` : `${boat} rounds ${mark.label}.`;
  },

  gain: (boat, n, rank) => (rank === null ? `${boat} gains ${places(n)}.` : `${boat} gains ${places(n)} and is now ${ordinal(rank)}.`),

  finish: (boat, rank) => (rank === null ? `${boat} finishes.` : `${boat} finishes in provisional ${ordinal(rank)} place.`),

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `New wind reading: ${degrees(wind.twd)}.`
        : `New wind reading: ${degrees(wind.twd)} at ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const turn = direction && `shifts from ${degrees(direction.from)} to ${degrees(direction.to)}`;
    const pace = speed && `${speed.to > speed.from ? "builds" : "eases"} from ${count.format(speed.from)} to ${knots(speed.to)}`;
    return `The wind ${[turn, pace].filter(Boolean).join(" and ")}.`;
  },

  withGroup: (group, sentence) => `${group}: ${sentence}`,
};
