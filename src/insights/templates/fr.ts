// French insight lines. Ordinals from the CLDR ordinal rules: 1er, then 2e, 3e … (with
// the masculine "rang", so never 1re); "nœud" stays singular below 2 (1,5 nœud).
// Typography: a no-break space (U+00A0) between a number and its noun (10 nœuds,
// 3 places), inside « » and before the colon; curly apostrophe; degrees of an angle
// glued to the number (350°). The wind "tourne à droite" (veers, clockwise) or "à
// gauche" (backs): adonner/refuser say what the wind does to a boat, not which way it turns.

import { counter, degrees, lowerFirst, ordinalSuffixes, type Phrasebook } from "./phrasebook.js";

const NBSP = "\u00a0";
const count = counter("fr", NBSP);
const ordinal = ordinalSuffixes("fr", { one: "er", other: "e" });
const places = (n: number) => count.quantity(n, { one: "place", other: "places" });
const knots = (n: number) => count.quantity(n, { one: "nœud", other: "nœuds" });

export const fr: Phrasebook = {
  leadChange: (leader, previous) => (previous === null ? `${leader} prend la tête.` : `${leader} ravit la tête à ${previous}.`),

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} vire une bouée.`;
    if (mark.kind === "key") return `${boat} vire la bouée ${mark.label}.`;
    if (mark.kind === "gate") return `${boat} franchit la porte ${mark.label}.`;
    return `${boat} vire la bouée «${NBSP}${mark.label}${NBSP}».`;
  },

  gain: (boat, n, rank) => {
    if (rank === null) return `${boat} gagne ${places(n)}.`;
    return rank === 1 ? `${boat} gagne ${places(n)} et prend la tête.` : `${boat} gagne ${places(n)} et se hisse au ${ordinal(rank)} rang.`;
  },

  finish: (boat, rank) => {
    if (rank === null) return `${boat} franchit la ligne d’arrivée.`;
    return rank === 1
      ? `${boat} franchit la ligne d’arrivée en tête et l’emporte provisoirement.`
      : `${boat} franchit la ligne d’arrivée au ${ordinal(rank)} rang provisoire.`;
  },

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `Nouvelle mesure du vent${NBSP}: ${degrees(wind.twd)}.`
        : `Nouvelle mesure du vent${NBSP}: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const side = direction?.turn === "veer" ? "à droite" : "à gauche";
    const turn = direction && `tourne ${side}, de ${degrees(direction.from)} à ${degrees(direction.to)}${speed ? "," : ""}`;
    const pace = speed && `${speed.to > speed.from ? "forcit" : "faiblit"} de ${count.format(speed.from)} à ${knots(speed.to)}`;
    return `Le vent ${[turn, pace].filter(Boolean).join(" et ")}.`;
  },

  withGroup: (group, sentence, startsWithTemplateWord) =>
    `${group}${NBSP}: ${startsWithTemplateWord ? lowerFirst(sentence, "fr") : sentence}`,
};
