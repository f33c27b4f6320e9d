// Spanish insight lines. Ordinals are written N.º and only stand alone ("ya es 2.º"),
// because before a masculine noun 1 and 3 would need the apocopated 1.er / 3.er.
// "Rolar" is the sailing verb for a wind shift, "a la derecha" (veers, clockwise) or
// "a la izquierda" (backs); "refresca"/"amaina" for more/less wind.

import { counter, degrees, lowerFirst, type Phrasebook } from "./phrasebook.js";

const count = counter("es");
const ordinal = (n: number) => `${n}.º`;
const places = (n: number) => count.quantity(n, { one: "puesto", other: "puestos" });
const knots = (n: number) => count.quantity(n, { one: "nudo", other: "nudos" });

export const es: Phrasebook = {
  leadChange: (leader, previous) => (previous === null ? `${leader} se pone en cabeza.` : `${leader} arrebata el liderato a ${previous}.`),

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} monta una baliza.`;
    if (mark.kind === "key") return `${boat} monta la baliza ${mark.label}.`;
    if (mark.kind === "gate") return `${boat} pasa por la puerta ${mark.label}.`;
    return `${boat} monta la baliza «${mark.label}».`;
  },

  gain: (boat, n, rank) => {
    if (rank === null) return `${boat} gana ${places(n)}.`;
    return rank === 1 ? `${boat} gana ${places(n)} y se pone en cabeza.` : `${boat} gana ${places(n)} y ya es ${ordinal(rank)}.`;
  },

  finish: (boat, rank) => {
    if (rank === null) return `${boat} cruza la línea de llegada.`;
    return rank === 1
      ? `${boat} cruza la línea de llegada en cabeza y gana provisionalmente.`
      : `${boat} cruza la línea de llegada, provisionalmente ${ordinal(rank)}.`;
  },

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `Nueva medición del viento: ${degrees(wind.twd)}.`
        : `Nueva medición del viento: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const side = direction?.turn === "veer" ? "a la derecha" : "a la izquierda";
    const turn = direction && `rola ${side}, de ${degrees(direction.from)} a ${degrees(direction.to)}${speed ? "," : ""}`;
    const pace = speed && `${speed.to > speed.from ? "refresca" : "amaina"} de ${count.format(speed.from)} a ${knots(speed.to)}`;
    return `El viento ${[turn, pace].filter(Boolean).join(" y ")}.`;
  },

  withGroup: (group, sentence, startsWithTemplateWord) => `${group}: ${startsWithTemplateWord ? lowerFirst(sentence, "es") : sentence}`,
};
