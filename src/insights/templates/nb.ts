// Norwegian Bokmål insight lines. Ordinals are digits with a period before "plass"
// ("på 2. plass"); a gain reaches "nummer 2", so it does not say "plasser" and "plass"
// in one line; "knop" is the same in singular and plural. The wind "dreier til
// høyre" (veers, clockwise) or "til venstre" (backs).

import { counter, degrees, type Phrasebook } from "./phrasebook.js";

const count = counter("nb");
const places = (n: number) => count.quantity(n, { one: "plass", other: "plasser" });
const knots = (n: number) => count.quantity(n, { other: "knop" });

export const nb: Phrasebook = {
  leadChange: (leader, previous) => (previous === null ? `${leader} tar ledelsen.` : `${leader} tar ledelsen fra ${previous}.`),

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} runder et merke.`;
    if (mark.kind === "key") return `${boat} runder merke ${mark.label}.`;
    if (mark.kind === "gate") return `${boat} runder port ${mark.label}.`;
    return `${boat} runder merket «${mark.label}».`;
  },

  gain: (boat, n, rank) => {
    if (rank === null) return `${boat} går opp ${places(n)}.`;
    return rank === 1 ? `${boat} går opp ${places(n)} og tar ledelsen.` : `${boat} går opp ${places(n)} og ligger nå som nummer ${rank}.`;
  },

  finish: (boat, rank) => {
    if (rank === null) return `${boat} går i mål.`;
    return rank === 1 ? `${boat} går først i mål og vinner foreløpig.` : `${boat} går i mål på foreløpig ${rank}. plass.`;
  },

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null ? `Ny vindmåling: ${degrees(wind.twd)}.` : `Ny vindmåling: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const side = direction?.turn === "veer" ? "til høyre" : "til venstre";
    const turn = direction && `dreier ${side}, fra ${degrees(direction.from)} til ${degrees(direction.to)}${speed ? "," : ""}`;
    const pace = speed && `${speed.to > speed.from ? "øker" : "løyer"} fra ${count.format(speed.from)} til ${knots(speed.to)}`;
    return `Vinden ${[turn, pace].filter(Boolean).join(" og ")}.`;
  },

  // Språkrådet: a complete sentence after a colon starts with a capital letter.
  withGroup: (group, sentence) => `${group}: ${sentence}`,
};
