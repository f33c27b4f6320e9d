// Italian insight lines. Ordinals are Nº with the masculine "posto"; the article elides
// before a vowel sound: all'8º, all'11º, all'80º … all'89º, all'800º. CLDR's Italian
// ordinal "many" covers only 8, 11, 80 and 800, so the elision rule is spelled out here.
// The wind "gira a destra" (veers, clockwise) or "a sinistra" (backs), as sailors say
// it ("ruota" reads as a textbook).

import { counter, degrees, lowerFirst, type Phrasebook } from "./phrasebook.js";

const count = counter("it");
const places = (n: number) => count.quantity(n, { one: "posizione", other: "posizioni" });
const knots = (n: number) => count.quantity(n, { one: "nodo", other: "nodi" });

/** Whether the spoken ordinal starts with a vowel: otto…, ottanta…, ottocento…, undici…. */
function startsWithVowel(n: number): boolean {
  const digits = String(n);
  return digits.startsWith("8") || (digits.startsWith("11") && (digits.length === 2 || digits.length === 5));
}

const atPlace = (n: number) => (startsWithVowel(n) ? `all’${n}º posto` : `al ${n}º posto`);

export const it: Phrasebook = {
  leadChange: (leader, previous) => (previous === null ? `${leader} passa in testa.` : `${leader} passa in testa, superando ${previous}.`),

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} gira una boa.`;
    if (mark.kind === "key") return `${boat} gira la boa ${mark.label}.`;
    if (mark.kind === "gate") return `${boat} passa il cancello ${mark.label}.`;
    return `${boat} gira la boa «${mark.label}».`;
  },

  gain: (boat, n, rank) => {
    if (rank === null) return `${boat} guadagna ${places(n)}.`;
    return rank === 1 ? `${boat} guadagna ${places(n)} e passa in testa.` : `${boat} guadagna ${places(n)} e sale ${atPlace(rank)}.`;
  },

  finish: (boat, rank) => {
    if (rank === null) return `${boat} taglia il traguardo.`;
    return rank === 1
      ? `${boat} taglia il traguardo in testa e vince, in via provvisoria.`
      : `${boat} taglia il traguardo, provvisoriamente ${atPlace(rank)}.`;
  },

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `Nuovo rilevamento del vento: ${degrees(wind.twd)}.`
        : `Nuovo rilevamento del vento: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const side = direction?.turn === "veer" ? "a destra" : "a sinistra";
    const turn = direction && `gira ${side}, da ${degrees(direction.from)} a ${degrees(direction.to)}${speed ? "," : ""}`;
    const pace = speed && `${speed.to > speed.from ? "rinforza" : "cala"} da ${count.format(speed.from)} a ${knots(speed.to)}`;
    return `Il vento ${[turn, pace].filter(Boolean).join(" e ")}.`;
  },

  withGroup: (group, sentence, startsWithTemplateWord) => `${group}: ${startsWithTemplateWord ? lowerFirst(sentence, "it") : sentence}`,
};
