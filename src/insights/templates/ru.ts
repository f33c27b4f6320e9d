// Russian insight lines. Boat names never take a case ending: they are the subject, or
// stand in apposition to a noun that carries the case ("у яхты GBR 9 Aurora"); verbs are
// in the present tense, so nothing agrees with a boat's gender. Places gained are
// "позиции", the place reached "место", so a gain line does not say "место" twice.
// Ordinals: "на 2-е место" (accusative) and "на 4-м месте" (prepositional). Knots take
// the genitive after "до" (до 1 узла, до 2 узлов, до 5 узлов, до 1,5 узла) and the
// nominative in a reading (1 узел, 2 узла, 5 узлов, 1,5 узла). The wind turns "по
// часовой стрелке" (veers) or "против часовой стрелки" (backs): "отходит"/"заходит"
// would read to a sailor as a lift or a header, which depends on the boat.

import { counter, degrees, lowerFirst, type Phrasebook } from "./phrasebook.js";

const count = counter("ru");
// Accusative after "отыгрывает": 1 позицию, 2 позиции, 5 позиций, 21 позицию.
const positions = (n: number) => count.quantity(n, { one: "позицию", few: "позиции", many: "позиций", other: "позиции" });
// After "до" the numeral itself is genitive (двух, пяти, одного), so "few" takes the genitive plural too.
const knotsAfterDo = (n: number) => count.quantity(n, { one: "узла", few: "узлов", many: "узлов", other: "узла" });
const knots = (n: number) => count.quantity(n, { one: "узел", few: "узла", many: "узлов", other: "узла" });

export const ru: Phrasebook = {
  leadChange: (leader, previous) =>
    previous === null ? `${leader} выходит в лидеры.` : `${leader} отбирает лидерство у яхты ${previous}.`,

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} огибает очередной знак.`;
    if (mark.kind === "key") return `${boat} огибает знак ${mark.label}.`;
    if (mark.kind === "gate") return `${boat} проходит ворота ${mark.label}.`;
    return `${boat} огибает знак «${mark.label}».`;
  },

  gain: (boat, n, rank) => {
    if (rank === null) return `${boat} отыгрывает ${positions(n)}.`;
    return rank === 1
      ? `${boat} отыгрывает ${positions(n)} и выходит в лидеры.`
      : `${boat} отыгрывает ${positions(n)} и поднимается на ${rank}-е место.`;
  },

  finish: (boat, rank) => {
    if (rank === null) return `${boat} финиширует.`;
    return rank === 1 ? `${boat} финиширует и предварительно выигрывает гонку.` : `${boat} финиширует, предварительно на ${rank}-м месте.`;
  },

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `Новые данные о ветре: ${degrees(wind.twd)}.`
        : `Новые данные о ветре: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const side = direction?.turn === "veer" ? "по часовой стрелке" : "против часовой стрелки";
    const turn = direction && `поворачивает ${side} с ${degrees(direction.from)} на ${degrees(direction.to)}`;
    const pace =
      speed && `${speed.to > speed.from ? "усиливается" : "ослабевает"} с ${count.format(speed.from)} до ${knotsAfterDo(speed.to)}`;
    return `Ветер ${[turn, pace].filter(Boolean).join(" и ")}.`;
  },

  withGroup: (group, sentence, startsWithTemplateWord) => `${group}: ${startsWithTemplateWord ? lowerFirst(sentence, "ru") : sentence}`,
};
