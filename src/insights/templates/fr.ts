// French insight lines. Ordinals from the CLDR ordinal rules: 1er, then 2e, 3e … (with
// the masculine "rang", so never 1re); "nœud" stays singular below 2 (1,5 nœud).
// Typography: no-break space inside « » and before the colon, curly apostrophe.

import { counter, degrees, lowerFirst, ordinalSuffixes, type Phrasebook } from "./phrasebook.js";

const NBSP = "\u00a0";
const count = counter("fr");
const ordinal = ordinalSuffixes("fr", { one: "er", other: "e" });
const places = (n: number) => count.quantity(n, { one: "place", other: "places" });
const knots = (n: number) => count.quantity(n, { one: "nœud", other: "nœuds" });

export const fr: Phrasebook = {
  leadChange: (leader, previous) => (previous === null ? `${leader} prend la tête.` : `${leader} ravit la tête à ${previous}.`),

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} vire une bouée.`;
    return mark.isKey ? `${boat} vire la bouée ${mark.label}.` : `${boat} vire la bouée «${NBSP}${mark.label}${NBSP}».`;
  },

  gain: (boat, n, rank) =>
    rank === null ? `${boat} gagne ${places(n)}.` : `${boat} gagne ${places(n)} et se hisse au ${ordinal(rank)} rang.`,

  finish: (boat, rank) =>
    rank === null ? `${boat} franchit la ligne d’arrivée.` : `${boat} franchit la ligne d’arrivée au ${ordinal(rank)} rang provisoire.`,

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `Nouvelle mesure du vent${NBSP}: ${degrees(wind.twd)}.`
        : `Nouvelle mesure du vent${NBSP}: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const turn = direction && `tourne de ${degrees(direction.from)} à ${degrees(direction.to)}`;
    const pace = speed && `${speed.to > speed.from ? "forcit" : "faiblit"} de ${count.format(speed.from)} à ${knots(speed.to)}`;
    return `Le vent ${[turn, pace].filter(Boolean).join(" et ")}.`;
  },

  withGroup: (group, sentence, startsWithTemplateWord) =>
    `${group}${NBSP}: ${startsWithTemplateWord ? lowerFirst(sentence, "fr") : sentence}`,
};
