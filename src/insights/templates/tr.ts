// Turkish insight lines. Case suffixes follow vowel harmony, which a template cannot
// get right on an arbitrary boat name or number, so no suffix ever lands on a name or a
// numeral: names are subjects, or the first half of a compound whose head carries the
// suffix ("Aurora teknesini", "Windward şamandırasını", "4s/4p kapısından"), and
// suffixes go on fixed words ("dereceden", "knota", "sıraya"). Nouns after numerals
// stay singular (3 basamak, 10 knot). Ordinals are digits with a period ("2. sıraya").
// Places gained are "basamak" (as sports pages count them), the place reached "sıra",
// so a gain line does not say "sıra" twice. The wind turns "saat yönünde" (veers,
// clockwise) or "saat yönünün tersine" (backs).

import { counter, type Phrasebook } from "./phrasebook.js";

const count = counter("tr");
const degreesWord = (n: number) => `${n} derece`;

export const tr: Phrasebook = {
  leadChange: (leader, previous) =>
    previous === null ? `${leader} liderliğe yükseliyor.` : `${leader}, ${previous} teknesini geride bırakıp liderliğe yükseliyor.`,

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} bir şamandırayı dönüyor.`;
    if (mark.kind === "gate") return `${boat}, ${mark.label} kapısından geçiyor.`;
    return /^\p{N}+$/u.test(mark.label)
      ? `${boat}, ${mark.label} numaralı şamandırayı dönüyor.`
      : `${boat}, ${mark.label} şamandırasını dönüyor.`;
  },

  gain: (boat, n, rank) => {
    const steps = `${count.format(n)} basamak`;
    if (rank === null) return `${boat}, ${steps} yükseliyor.`;
    return rank === 1 ? `${boat}, ${steps} yükselerek liderliğe çıkıyor.` : `${boat}, ${steps} yükselerek ${rank}. sıraya çıkıyor.`;
  },

  finish: (boat, rank) => {
    if (rank === null) return `${boat} bitiş çizgisini geçiyor.`;
    return rank === 1 ? `${boat} yarışı geçici olarak kazanıyor.` : `${boat}, yarışı geçici olarak ${rank}. sırada bitiriyor.`;
  },

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `Yeni rüzgâr ölçümü: ${degreesWord(wind.twd)}.`
        : `Yeni rüzgâr ölçümü: ${degreesWord(wind.twd)}, ${count.format(wind.tws)} knot.`;
    }
    const { direction, speed } = wind;
    const side = direction?.turn === "veer" ? "saat yönünde" : "saat yönünün tersine";
    const turn = direction && `${side} ${direction.from} dereceden ${direction.to} dereceye dönüyor`;
    const pace =
      speed && `${count.format(speed.from)} knottan ${count.format(speed.to)} knota ${speed.to > speed.from ? "çıkıyor" : "düşüyor"}`;
    return `Rüzgâr ${[turn, pace].filter(Boolean).join(" ve ")}.`;
  },

  // TDK: a complete sentence after a colon starts with a capital letter.
  withGroup: (group, sentence) => `${group}: ${sentence}`,
};
