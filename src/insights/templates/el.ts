// Greek insight lines. A boat is "το" + name (το σκάφος, neuter: nominative and
// accusative alike), so names never inflect. Places are feminine ordinals with θέση:
// "1η", "2η", but "20ή", "100ή" where the spoken word ends stressed (εικοστή, εκατοστή).
// The article keeps its final ν before a vowel or κ π τ (στην 1η, στην 8η, στην 11η,
// στην 20ή) and drops it otherwise (στη 2η, στη 10η, στη 12η, στη 200ή).

import { counter, degrees, lowerFirst, type Phrasebook } from "./phrasebook.js";

const count = counter("el");
const places = (n: number) => count.quantity(n, { one: "θέση", other: "θέσεις" });
const knotsAccusative = (n: number) => count.quantity(n, { one: "κόμβο", other: "κόμβους" });
const knots = (n: number) => count.quantity(n, { one: "κόμβος", other: "κόμβοι" });

/** εικοστή, τριακοστή, εκατοστή … are stressed on the ending; δέκατη, πρώτη … are not. */
function ordinalFeminine(n: number): string {
  return `${n}${n % 10 === 0 && n % 100 !== 10 ? "ή" : "η"}`;
}

/** Whether the spoken ordinal's first word starts with a vowel or κ, π, τ (keeps "στην"). */
function keepsFinalNu(n: number): boolean {
  if (n >= 1000) return false; // χιλιοστή …; no race has a thousand boats
  const hundreds = Math.floor(n / 100);
  const belowHundred = n % 100;
  // εκατοστή, διακοσιοστή, τριακοσιοστή, τετρακοσιοστή, πεντακοσιοστή, εξακοσιοστή …
  if (hundreds > 0) return hundreds !== 2;
  // δέκατη, ενδέκατη, δωδέκατη, δέκατη τρίτη …
  if (belowHundred >= 10 && belowHundred < 20) return belowHundred === 11;
  // εικοστή, τριακοστή, τεσσαρακοστή, πεντηκοστή, εξηκοστή … all keep it
  if (belowHundred >= 20) return true;
  // πρώτη, δεύτερη, τρίτη, τέταρτη, πέμπτη, έκτη, έβδομη, όγδοη, ένατη
  return belowHundred !== 2;
}

const atPlace = (n: number) => `${keepsFinalNu(n) ? "στην" : "στη"} ${ordinalFeminine(n)} θέση`;

export const el: Phrasebook = {
  leadChange: (leader, previous) =>
    previous === null ? `Το ${leader} παίρνει την πρωτοπορία.` : `Το ${leader} παίρνει την πρωτοπορία από το ${previous}.`,

  markRounding: (boat, mark) => {
    if (mark === null) return `Το ${boat} στρίβει σημαδούρα.`;
    return mark.isKey ? `Το ${boat} στρίβει τη σημαδούρα ${mark.label}.` : `Το ${boat} στρίβει τη σημαδούρα «${mark.label}».`;
  },

  gain: (boat, n, rank) =>
    rank === null ? `Το ${boat} κερδίζει ${places(n)}.` : `Το ${boat} κερδίζει ${places(n)} και ανεβαίνει ${atPlace(rank)}.`,

  finish: (boat, rank) => (rank === null ? `Το ${boat} τερματίζει.` : `Το ${boat} τερματίζει, προσωρινά ${atPlace(rank)}.`),

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `Νέα μέτρηση ανέμου: ${degrees(wind.twd)}.`
        : `Νέα μέτρηση ανέμου: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const turn = direction && `στρέφεται από ${degrees(direction.from)} σε ${degrees(direction.to)}`;
    const pace =
      speed && `${speed.to > speed.from ? "δυναμώνει" : "εξασθενεί"} από ${count.format(speed.from)} σε ${knotsAccusative(speed.to)}`;
    return `Ο άνεμος ${[turn, pace].filter(Boolean).join(" και ")}.`;
  },

  withGroup: (group, sentence, startsWithTemplateWord) => `${group}: ${startsWithTemplateWord ? lowerFirst(sentence, "el") : sentence}`,
};
