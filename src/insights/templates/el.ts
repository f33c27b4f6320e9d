// Greek insight lines. A boat is "το" + name (το σκάφος, neuter: nominative and
// accusative alike), so names never inflect. Places are feminine ordinals with θέση:
// "1η", "2η", but "20ή", "100ή" where the spoken word ends stressed (εικοστή, εκατοστή).
// The article keeps its final ν before a vowel or κ π τ (στην 1η, στην 8η, στην 11η,
// στην 20ή) and drops it otherwise (στη 2η, στη 10η, στη 12η, στη 200ή). A gain says
// where the boat now is with a neuter ordinal agreeing with it ("είναι πλέον 2ο"), so
// the line does not say "θέση" twice. The wind "γυρίζει δεξιά" (veers, clockwise) or
// "αριστερά" (backs), as sailors say it ("στρέφεται" reads as a forecast bulletin).

import { counter, degrees, lowerFirst, type Phrasebook } from "./phrasebook.js";

const count = counter("el");
const places = (n: number) => count.quantity(n, { one: "θέση", other: "θέσεις" });
const knotsAccusative = (n: number) => count.quantity(n, { one: "κόμβο", other: "κόμβους" });
const knots = (n: number) => count.quantity(n, { one: "κόμβος", other: "κόμβοι" });

/** εικοστή, τριακοστή, εκατοστή … are stressed on the ending; δέκατη, πρώτη … are not. */
function ordinalFeminine(n: number): string {
  return `${n}${n % 10 === 0 && n % 100 !== 10 ? "ή" : "η"}`;
}

/** The neuter ordinal (το σκάφος): 2ο, 10ο, but 20ό, 100ό, stressed as the feminine. */
function ordinalNeuter(n: number): string {
  return `${n}${n % 10 === 0 && n % 100 !== 10 ? "ό" : "ο"}`;
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
    if (mark === null) return `Το ${boat} στρίβει μια σημαδούρα.`;
    if (mark.kind === "key") return `Το ${boat} στρίβει τη σημαδούρα ${mark.label}.`;
    if (mark.kind === "gate") return `Το ${boat} περνά την πύλη ${mark.label}.`;
    return `Το ${boat} στρίβει τη σημαδούρα «${mark.label}».`;
  },

  gain: (boat, n, rank) => {
    if (rank === null) return `Το ${boat} κερδίζει ${places(n)}.`;
    return rank === 1
      ? `Το ${boat} κερδίζει ${places(n)} και παίρνει την πρωτοπορία.`
      : `Το ${boat} κερδίζει ${places(n)} και είναι πλέον ${ordinalNeuter(rank)}.`;
  },

  finish: (boat, rank) => {
    if (rank === null) return `Το ${boat} τερματίζει.`;
    return rank === 1
      ? `Το ${boat} τερματίζει πρώτο και παίρνει την προσωρινή νίκη.`
      : `Το ${boat} τερματίζει, προσωρινά ${atPlace(rank)}.`;
  },

  windShift: (wind) => {
    if (wind.kind === "reading") {
      return wind.tws === null
        ? `Νέα μέτρηση ανέμου: ${degrees(wind.twd)}.`
        : `Νέα μέτρηση ανέμου: ${degrees(wind.twd)}, ${knots(wind.tws)}.`;
    }
    const { direction, speed } = wind;
    const side = direction?.turn === "veer" ? "δεξιά" : "αριστερά";
    const turn = direction && `γυρίζει ${side}, από ${degrees(direction.from)} σε ${degrees(direction.to)}${speed ? "," : ""}`;
    const pace =
      speed && `${speed.to > speed.from ? "δυναμώνει" : "εξασθενεί"} από ${count.format(speed.from)} σε ${knotsAccusative(speed.to)}`;
    return `Ο άνεμος ${[turn, pace].filter(Boolean).join(" και ")}.`;
  },

  withGroup: (group, sentence, startsWithTemplateWord) => `${group}: ${startsWithTemplateWord ? lowerFirst(sentence, "el") : sentence}`,
};
