// German insight lines. Ordinals are digits with a period before the noun ("auf dem
// 2. Platz"), so no sentence ends on an ordinal's period; "Knoten" is the same in
// singular and plural. Boat names are subjects or follow "von" uninflected.

import { counter, degrees, type Phrasebook } from "./phrasebook.js";

const count = counter("de");
const places = (n: number) => count.quantity(n, { one: "Platz", other: "Plätze" });
const knots = (n: number) => count.quantity(n, { other: "Knoten" });

export const de: Phrasebook = {
  leadChange: (leader, previous) =>
    previous === null ? `${leader} übernimmt die Führung.` : `${leader} übernimmt die Führung von ${previous}.`,

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} rundet eine Tonne.`;
    return mark.isKey ? `${boat} rundet Tonne ${mark.label}.` : `${boat} rundet die Tonne „${mark.label}“.`;
  },

  gain: (boat, n, rank) =>
    rank === null ? `${boat} macht ${places(n)} gut.` : `${boat} macht ${places(n)} gut und liegt jetzt auf dem ${rank}. Platz.`,

  finish: (boat, rank) => (rank === null ? `${boat} geht durchs Ziel.` : `${boat} geht durchs Ziel, vorläufig auf dem ${rank}. Platz.`),

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null ? `Neue Windmessung: ${degrees(wind.twd)}.` : `Neue Windmessung: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const turn = direction && `dreht von ${degrees(direction.from)} auf ${degrees(direction.to)}`;
    const span = speed && `von ${count.format(speed.from)} auf ${knots(speed.to)}`;
    const pace = speed && (speed.to > speed.from ? `nimmt ${span} zu` : `lässt ${span} nach`);
    return `Der Wind ${[turn, pace].filter(Boolean).join(" und ")}.`;
  },

  // A whole sentence after a colon keeps its capital in German.
  withGroup: (group, sentence) => `${group}: ${sentence}`,
};
