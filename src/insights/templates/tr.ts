// Turkish insight lines. Case suffixes follow vowel harmony, which a template cannot
// get right on an arbitrary boat name or number, so no suffix ever lands on a name or a
// numeral: names are subjects (both boats are subjects in a lead change), the mark label
// is the first half of a compound ("Windward şamandırasını"), and suffixes go on fixed
// words ("dereceden", "knota", "sıraya"). Nouns after numerals stay singular (3 sıra,
// 10 knot). Ordinals are digits with a period ("2. sıraya").

import { counter, type Phrasebook } from "./phrasebook.js";

const count = counter("tr");
const degreesWord = (n: number) => `${n} derece`;

export const tr: Phrasebook = {
  leadChange: (leader, previous) =>
    previous === null ? `${leader} liderliğe yükseliyor.` : `${leader} liderliğe yükseliyor, ${previous} ise liderliği kaybediyor.`,

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} bir şamandırayı dönüyor.`;
    return /^\p{N}+$/u.test(mark.label)
      ? `${boat}, ${mark.label} numaralı şamandırayı dönüyor.`
      : `${boat}, ${mark.label} şamandırasını dönüyor.`;
  },

  gain: (boat, n, rank) =>
    rank === null ? `${boat}, ${count.format(n)} sıra yükseliyor.` : `${boat}, ${count.format(n)} sıra yükselerek ${rank}. sıraya çıkıyor.`,

  finish: (boat, rank) =>
    rank === null ? `${boat} bitiş çizgisini geçiyor.` : `${boat}, bitiş çizgisini geçici sıralamada ${rank}. olarak geçiyor.`,

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `Yeni rüzgâr ölçümü: ${degreesWord(wind.twd)}.`
        : `Yeni rüzgâr ölçümü: ${degreesWord(wind.twd)}, ${count.format(wind.tws)} knot.`;
    }
    const { direction, speed } = wind;
    const turn = direction && `${direction.from} dereceden ${direction.to} dereceye dönüyor`;
    const pace =
      speed && `${count.format(speed.from)} knottan ${count.format(speed.to)} knota ${speed.to > speed.from ? "çıkıyor" : "düşüyor"}`;
    return `Rüzgâr ${[turn, pace].filter(Boolean).join(" ve ")}.`;
  },

  // TDK: a complete sentence after a colon starts with a capital letter.
  withGroup: (group, sentence) => `${group}: ${sentence}`,
};
