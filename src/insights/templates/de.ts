// German insight lines. Ordinals are digits with a period before the noun ("auf dem
// 2. Platz"), so no sentence ends on an ordinal's period; a gain reaches "Rang 2", so
// it does not say "Plätze" and "Platz" in one line; "Knoten" is the same in
// singular and plural. Boat names are subjects or follow "von" uninflected, and no
// word agrees with a boat's gender ("gewinnt", not "als Erste"). The wind "dreht nach
// rechts" (veers, clockwise) or "nach links" (backs), as sailors and the DWD say it.

import { counter, degrees, type Phrasebook } from "./phrasebook.js";

const count = counter("de");
const places = (n: number) => count.quantity(n, { one: "Platz", other: "Plätze" });
const knots = (n: number) => count.quantity(n, { other: "Knoten" });

export const de: Phrasebook = {
  leadChange: (leader, previous) =>
    previous === null ? `${leader} übernimmt die Führung.` : `${leader} übernimmt die Führung von ${previous}.`,

  markRounding: (boat, mark) => {
    if (mark === null) return `${boat} rundet eine Tonne.`;
    if (mark.kind === "key") return `${boat} rundet Tonne ${mark.label}.`;
    if (mark.kind === "gate") return `${boat} rundet das Gate ${mark.label}.`;
    return `${boat} rundet die Tonne „${mark.label}“.`;
  },

  gain: (boat, n, rank) => {
    if (rank === null) return `${boat} macht ${places(n)} gut.`;
    return rank === 1
      ? `${boat} macht ${places(n)} gut und übernimmt die Führung.`
      : `${boat} macht ${places(n)} gut und liegt jetzt auf Rang ${rank}.`;
  },

  finish: (boat, rank) => {
    if (rank === null) return `${boat} geht durchs Ziel.`;
    return rank === 1 ? `${boat} geht durchs Ziel und gewinnt vorläufig.` : `${boat} geht durchs Ziel, vorläufig auf dem ${rank}. Platz.`;
  },

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null ? `Neue Windmessung: ${degrees(wind.twd)}.` : `Neue Windmessung: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const side = direction?.turn === "veer" ? "rechts" : "links";
    const turn = direction && `dreht von ${degrees(direction.from)} auf ${degrees(direction.to)} nach ${side}`;
    const span = speed && `von ${count.format(speed.from)} auf ${knots(speed.to)}`;
    const pace = speed && (speed.to > speed.from ? `nimmt ${span} zu` : `lässt ${span} nach`);
    return `Der Wind ${[turn, pace].filter(Boolean).join(" und ")}.`;
  },

  // A whole sentence after a colon keeps its capital in German.
  withGroup: (group, sentence) => `${group}: ${sentence}`,
};
