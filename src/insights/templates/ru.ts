// Russian insight lines. Boat names never take a case ending: they are the subject, or
// stand in apposition to a noun that carries the case ("у яхты GBR 9 Aurora"); verbs are
// in the present tense, so nothing agrees with a boat's gender. Ordinals: "на 2-е место"
// (accusative) and "на 4-м месте" (prepositional). Knots take the genitive after "до"
// (до 1 узла, до 2 узлов, до 5 узлов, до 1,5 узла) and the nominative in a reading
// (1 узел, 2 узла, 5 узлов, 1,5 узла).

import { counter, degrees, lowerFirst, type Phrasebook } from "./phrasebook.js";

const count = counter("ru");
const places = (n: number) => count.quantity(n, { one: "место", few: "места", many: "мест", other: "места" });
// After "до" the numeral itself is genitive (двух, пяти, одного), so "few" takes the genitive plural too.
const knotsAfterDo = (n: number) => count.quantity(n, { one: "узла", few: "узлов", many: "узлов", other: "узла" });
const knots = (n: number) => count.quantity(n, { one: "узел", few: "узла", many: "узлов", other: "узла" });

export const ru: Phrasebook = {
  leadChange: (leader, previous) =>
    previous === null ? `${leader} выходит в лидеры.` : `${leader} отбирает лидерство у яхты ${previous}.`,

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} огибает очередной знак.`;
    return mark.isKey ? `${boat} огибает знак ${mark.label}.` : `${boat} огибает знак «${mark.label}».`;
  },

  gain: (boat, n, rank) =>
    rank === null ? `${boat} отыгрывает ${places(n)}.` : `${boat} отыгрывает ${places(n)} и поднимается на ${rank}-е место.`,

  finish: (boat, rank) => (rank === null ? `${boat} финиширует.` : `${boat} финиширует, предварительно на ${rank}-м месте.`),

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `Новые данные о ветре: ${degrees(wind.twd)}.`
        : `Новые данные о ветре: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const turn = direction && `поворачивает с ${degrees(direction.from)} на ${degrees(direction.to)}`;
    const pace =
      speed && `${speed.to > speed.from ? "усиливается" : "ослабевает"} с ${count.format(speed.from)} до ${knotsAfterDo(speed.to)}`;
    return `Ветер ${[turn, pace].filter(Boolean).join(" и ")}.`;
  },

  withGroup: (group, sentence, startsWithTemplateWord) => `${group}: ${startsWithTemplateWord ? lowerFirst(sentence, "ru") : sentence}`,
};
