// The broadcast editor's rules for template lines (issue 32), each checked in every
// language with the inputs that break it: shortened names, first place, wind turns
// across north, names in Latin, Greek, Cyrillic and Turkish letters.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BoatRef, Fact } from "../../src/domain/facts.js";
import { LANGUAGES, type Lang } from "../../src/insights/languages.js";
import { FUNCTION_WORDS, isFunctionWord } from "../../src/insights/shortening.js";
import { languagesWithoutLocaleData, requireLocaleData } from "../../src/insights/templates/phrasebook.js";
import { MAX_INSIGHT_TEXT_LENGTH, templateText } from "../../src/insights/templates.js";
import { fact } from "../support/insight-facts.js";

const boat = (sailNumber: string, boatName: string, entryId = `e-${sailNumber}`): BoatRef => ({ entryId, sailNumber, boatName });
const TENACIOUS = boat("GBR 10", "Tenacious");
const AURORA = boat("GBR 9", "Aurora");

const leadChange = (a: BoatRef, b: BoatRef | null, group = "IRC 1") =>
  fact({ kind: "leadChange", boats: b ? [a, b] : [a], startGroupName: group });
const rounding = (markLabel: string | null, b = TENACIOUS, group = "IRC 1") =>
  fact({ kind: "markRounding", boats: [b], markLabel, startGroupName: group });
const gain = (placesGained: number, rank: number | null, b = TENACIOUS) => fact({ kind: "gain", boats: [b], placesGained, rank });
const finish = (rank: number | null, b = TENACIOUS) => fact({ kind: "finish", boats: [b], rank });
const wind = (twdFrom: number, twdTo: number, twsFrom: number | null = null, twsTo: number | null = null) =>
  fact({ kind: "windShift", twdFrom, twdTo, twsFrom, twsTo });

// Names whose shortening lands on a function word wherever it is cut (the editor's examples among them).
const LONG_NAMES: BoatRef[] = [
  boat(
    "GBR 12345",
    "The Extraordinarily Persistent and Remarkably Well Sponsored Offshore Racing Yacht of the Royal Harbour Club and of the Sea",
  ),
  boat("ESP 77", "Bahía de Cádiz y de los Siete Mares del Sur y de la Costa de la Luz de Andalucía y del Mar de Alborán y de las Islas"),
  boat(
    "GRE 1",
    "Κυρά του Αιγαίου Πελάγους με τους Ανέμους της Ανατολής και της Δύσης και του Βορρά και της Νότιας Θάλασσας με τους Γλάρους",
  ),
  boat("RUS 5", "Ветер с моря и из-за гор на восток и к югу от Невы по волнам за горизонт и до самого края земли и неба"),
  boat("TUR 3", "Rüzgâr ve Deniz İLE Bir Gün için de Ege ve Akdeniz gibi Mavi bir Yolculuk ve Sonsuz bir Ufuk ile Yelken de"),
  boat("NOR 8", "Havets Dronning og Vindens Datter i Nord på Vei til Sør fra Fjorden med Stormen over Kysten og Fjellene i Vest"),
];
const LONG_MARK = "Windward Offset Spreader of the Committee Boat and the Harbour Entrance Buoy of the Yacht Club de la Mer";
const LONG_GROUP = "IRC Class One Big Boat Series Division and Overall Combined Handicap Fleet Group of the";

/** Small words the long names below are full of, written out here so the check does not lean on the module's lists alone. */
const DANGLING = new Set(
  "the and of a to in de del la las los y με τους της και του των и с на за по из ve ile bir için og i på fra til und der von".split(" "),
);

/** The word each "…" follows in a line, quotes stripped. */
function wordsBeforeEllipsis(text: string): string[] {
  return [...text.matchAll(/(\S+?)…/gu)].map((m) => (m[1] ?? "").replace(/^[«„“"(]+/u, ""));
}

/** Every rule that holds for any line: length, sail numbers, one stop, no dangling function word, the group whole or absent. */
function expectEditorial(text: string, f: Fact, lang: Lang, includeGroup: boolean): void {
  expect(text.length, text).toBeLessThanOrEqual(MAX_INSIGHT_TEXT_LENGTH);
  for (const b of f.boats) expect(text, text).toContain(b.sailNumber);
  expect(text, text).not.toMatch(/…\./u);
  expect(text, text).not.toMatch(/[.!?…][.!?…]$/u);
  for (const word of wordsBeforeEllipsis(text)) {
    expect(isFunctionWord(word), `"${word}…" in ${lang}: ${text}`).toBe(false);
    expect(
      DANGLING.has(word.toLocaleLowerCase("tr").replace(/\u0307/gu, "")) || DANGLING.has(word.toLowerCase()),
      `"${word}…" in ${lang}: ${text}`,
    ).toBe(false);
  }
  expect(text, text).not.toMatch(/…\u00a0?:/u);
  if (includeGroup && f.startGroupName.trim() !== "") {
    const whole = text.startsWith(`${f.startGroupName}:`) || text.startsWith(`${f.startGroupName}\u00a0:`);
    expect(whole || !text.startsWith(f.startGroupName.split(" ")[0] ?? ""), text).toBe(true);
  }
}

describe("shortening as an editor would", () => {
  it("knows each language's small words, whatever their case", () => {
    const samples: Record<Lang, string[]> = {
      en: ["and", "of", "the", "The", "AND"],
      tr: ["ve", "ile", "İLE", "bir"],
      de: ["und", "der", "von", "zum"],
      fr: ["de", "la", "et", "du", "aux"],
      es: ["de", "y", "los", "del", "De"],
      it: ["di", "della", "e", "il"],
      ru: ["и", "с", "на", "из"],
      el: ["με", "τους", "και", "της", "Του"],
      nb: ["og", "i", "på", "fra"],
    };
    for (const lang of LANGUAGES) {
      expect(FUNCTION_WORDS[lang].length).toBeGreaterThan(5);
      for (const word of samples[lang]) expect(isFunctionWord(word), `${lang}: ${word}`).toBe(true);
    }
    for (const word of ["&", "-", "Persistent", "Bahía", "Πελάγους", "Невы", "Deniz", "Tenacious", "II"]) {
      expect(isFunctionWord(word), word).toBe(word === "&" || word === "-");
    }
  });

  for (const lang of LANGUAGES) {
    it(`${lang}: no double stop, no name or label ending on a small word, the group whole or dropped`, () => {
      const facts: Fact[] = [];
      for (const long of LONG_NAMES) {
        facts.push(
          leadChange(TENACIOUS, long),
          leadChange(long, AURORA),
          leadChange(long, LONG_NAMES[1] === long ? LONG_NAMES[0]! : LONG_NAMES[1]!),
        );
        facts.push(rounding(LONG_MARK, long), rounding("Windward", long), gain(21, 22, long), finish(101, long), finish(1, long));
      }
      facts.push(rounding(LONG_MARK, TENACIOUS, LONG_GROUP), leadChange(LONG_NAMES[0]!, LONG_NAMES[2]!, `${LONG_GROUP} ${LONG_GROUP}`));
      for (const f of facts) {
        for (const includeGroup of [false, true]) expectEditorial(templateText(f, lang, { includeGroup }), f, lang, includeGroup);
      }
    });

    it(`${lang}: a line whose last name was shortened ends on one "…", not "…."`, () => {
      // The previous leader ends the sentence in every language but Turkish (which ends on its verb).
      const text = templateText(leadChange(TENACIOUS, LONG_NAMES[0]!), lang);
      expect(text).toContain("…");
      expect(text).not.toContain("….");
      if (lang !== "tr") expect(text.endsWith("…")).toBe(true);
    });

    it(`${lang}: the mark label gives way (to its first word, or altogether) before a boat's name does`, () => {
      for (const long of LONG_NAMES) {
        const text = templateText(rounding(LONG_MARK, long), lang);
        const nameWhole = text.includes(`${long.sailNumber} ${long.boatName}`);
        // Two words of the label are on air only when the whole name is.
        if (!nameWhole) expect(text, text).not.toContain("Windward Offset");
        expect(text, text).toContain(long.sailNumber);
      }
      // A name that fits beside the label's first word keeps every word.
      const fits = boat("GBR 12345", "The Extraordinarily Persistent and Remarkably Well Sponsored Offshore Racing Yacht");
      const text = templateText(rounding(LONG_MARK, fits), lang);
      expect(text).toContain(`GBR 12345 ${fits.boatName}`);
      expect(text).toContain("Windward");
    });
  }

  it("cuts the editor's examples after a word that carries meaning", () => {
    // The lines the editor read: each now ends its shortened name on a content word.
    const en = templateText(leadChange(TENACIOUS, LONG_NAMES[0]!), "en");
    expect(wordsBeforeEllipsis(en)).not.toContain("and");
    const es = templateText(leadChange(TENACIOUS, LONG_NAMES[1]!), "es");
    expect(es).toMatch(/ESP 77 Bahía de Cádiz[^…]*\p{L}{3,}…$/u);
    expect(wordsBeforeEllipsis(es)).not.toContain("de");
    const el = templateText(leadChange(LONG_NAMES[2]!, LONG_NAMES[0]!), "el");
    expect(el).not.toMatch(/(με|τους|της|και|του)…/u);
  });

  it("keeps a boat without a sail number recognisable by its first content word, never by a lone article", () => {
    const noSail = boat("", `The ${"Wanderer ".repeat(30).trim()}`);
    for (const lang of LANGUAGES) {
      const text = templateText(finish(3, noSail), lang);
      expect(text.length).toBeLessThanOrEqual(MAX_INSIGHT_TEXT_LENGTH);
      expect(text, text).toContain("The Wanderer");
      expect(text, text).not.toMatch(/The…/u);
    }
  });

  it("holds for any names, labels and groups (seeded property)", () => {
    const pool = [
      ...Object.values(FUNCTION_WORDS).flat(),
      "Tenacious",
      "Bahía",
      "Πελάγους",
      "Ветер",
      "Rüzgâr",
      "İzmir",
      "Dronning",
      "X".repeat(30),
      "&",
      "Ω!",
      "Star?",
    ];
    const words = fc.array(fc.constantFrom(...pool), { minLength: 0, maxLength: 40 }).map((ws) => ws.join(" "));
    const sail = fc.constantFrom("", "GBR 10", "ITA 98765", "1");
    const anyBoat = fc.tuple(sail, words).map(([s, n]) => boat(s, n));
    const anyFact = fc.oneof(
      fc.tuple(anyBoat, anyBoat, words).map(([a, b, g]) => leadChange(a, b, g)),
      fc.tuple(words, anyBoat, words).map(([m, b, g]) => rounding(m, b, g)),
      fc.tuple(fc.constantFrom(2, 5, 21), fc.constantFrom(1, 2, 3, 4, 11, 21, 22, 101), anyBoat).map(([n, r, b]) => gain(n, r, b)),
      fc.tuple(fc.constantFrom(1, 2, 3, 4, 11, 21, 22, 101), anyBoat).map(([r, b]) => finish(r, b)),
    );
    fc.assert(
      fc.property(anyFact, fc.constantFrom(...LANGUAGES), fc.boolean(), (f, lang, includeGroup) => {
        // A boat needs a sail number or a name to be named at all.
        fc.pre(f.boats.every((b) => b.sailNumber !== "" || b.boatName.trim() !== ""));
        expectEditorial(templateText(f, lang, { includeGroup }), f, lang, includeGroup);
      }),
      { seed: 20261132, numRuns: 600 },
    );
  });
});

const TAKES_LEAD: Record<Lang, string> = {
  en: "takes the lead",
  tr: "liderliğe",
  de: "übernimmt die Führung",
  fr: "prend la tête",
  es: "se pone en cabeza",
  it: "passa in testa",
  ru: "выходит в лидеры",
  el: "παίρνει την πρωτοπορία",
  nb: "tar ledelsen",
};
const WINS: Record<Lang, string> = {
  en: "takes the provisional win",
  tr: "yarışı geçici olarak kazanıyor",
  de: "gewinnt vorläufig",
  fr: "l’emporte provisoirement",
  es: "gana provisionalmente",
  it: "vince, in via provvisoria",
  ru: "предварительно выигрывает",
  el: "παίρνει την προσωρινή νίκη",
  nb: "vinner foreløpig",
};
/** How each language writes "now in place n" after a gain, and "finished in place n". */
const GAINED_TO: Record<Lang, (n: number) => string> = {
  en: (n) =>
    `is now ${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}.`,
  tr: (n) => `${n}. sıraya çıkıyor.`,
  de: (n) => `liegt jetzt auf Rang ${n}.`,
  fr: (n) => `se hisse au ${n}e rang.`,
  es: (n) => `ya es ${n}.º.`,
  it: (n) => (n === 11 ? "sale all’11º posto." : `sale al ${n}º posto.`),
  ru: (n) => `поднимается на ${n}-е место.`,
  el: (n) => `είναι πλέον ${n}ο.`,
  nb: (n) => `ligger nå som nummer ${n}.`,
};
const FINISHED_AT: Record<Lang, (n: number) => string> = {
  en: (n) => `provisional ${GAINED_TO.en(n).slice("is now ".length, -1)} place.`,
  tr: (n) => `geçici olarak ${n}. sırada bitiriyor.`,
  de: (n) => `vorläufig auf dem ${n}. Platz.`,
  fr: (n) => `au ${n}e rang provisoire.`,
  es: (n) => `provisionalmente ${n}.º.`,
  it: (n) => (n === 11 ? "provvisoriamente all’11º posto." : `provvisoriamente al ${n}º posto.`),
  ru: (n) => `предварительно на ${n}-м месте.`,
  el: (n) => `προσωρινά ${n === 2 ? "στη" : "στην"} ${n}η θέση.`,
  nb: (n) => `på foreløpig ${n}. plass.`,
};
const RANKS = [2, 3, 4, 11, 21, 22, 101];

describe("first place has words of its own", () => {
  for (const lang of LANGUAGES) {
    it(`${lang}: a gain to 1st takes the lead, a finish in 1st wins provisionally; other places are numbered`, () => {
      for (const n of [2, 5, 21]) {
        const toFirst = templateText(gain(n, 1), lang);
        expect(toFirst, toFirst).toContain(TAKES_LEAD[lang]);
        expect(toFirst.replace("GBR 10", ""), toFirst).not.toMatch(/(?<!\d)1(?!\d)/u);
      }
      const won = templateText(finish(1), lang);
      expect(won, won).toContain(WINS[lang]);
      expect(won.replace("GBR 10", ""), won).not.toMatch(/\d/u);
      for (const rank of RANKS) {
        const gained = templateText(gain(5, rank), lang);
        expect(gained).toContain(GAINED_TO[lang](rank));
        expect(gained).not.toContain(TAKES_LEAD[lang]);
        const finished = templateText(finish(rank), lang);
        expect(finished).toContain(FINISHED_AT[lang](rank));
        expect(finished).not.toContain(WINS[lang]);
      }
    });
  }
});

const VEERS: Record<Lang, string> = {
  en: "veers",
  tr: "saat yönünde",
  de: "nach rechts",
  fr: "tourne à droite",
  es: "rola a la derecha",
  it: "gira a destra",
  ru: "по часовой стрелке",
  el: "γυρίζει δεξιά",
  nb: "dreier til høyre",
};
const BACKS: Record<Lang, string> = {
  en: "backs",
  tr: "saat yönünün tersine",
  de: "nach links",
  fr: "tourne à gauche",
  es: "rola a la izquierda",
  it: "gira a sinistra",
  ru: "против часовой стрелки",
  el: "γυρίζει αριστερά",
  nb: "dreier til venstre",
};

describe("the wind says which way it turns, and north is 360°", () => {
  const veering = [wind(350, 5), wind(355, 0), wind(359.7, 30), wind(0, 20, 8, 14), wind(90, 95, 8, 9), wind(340, 10, 14, 10)];
  const backing = [wind(5, 350), wind(10, 0), wind(20, 360, 14, 9), wind(200, 185, 10, 14), wind(30, 359.6)];
  const north = [
    wind(355, 0),
    wind(10, 0),
    wind(0, 20, 8, 14),
    wind(20, 360, 14, 9),
    wind(359.7, 30),
    wind(30, 359.6),
    wind(0, 0, null, 12),
    wind(360, 360),
  ];
  const northIn = (lang: Lang) => (lang === "tr" ? /(?<!\d)360 derece/u : /(?<!\d)360°/u);
  const zeroIn = (lang: Lang) => (lang === "tr" ? /(?<![\d,.])0 derece/u : /(?<![\d,.])0°/u);

  for (const lang of LANGUAGES) {
    it(`${lang}: veer (clockwise, also across north) and back (anticlockwise)`, () => {
      for (const f of veering) {
        const text = templateText(f, lang);
        expect(text, text).toContain(VEERS[lang]);
        expect(text, text).not.toContain(BACKS[lang]);
      }
      for (const f of backing) {
        const text = templateText(f, lang);
        expect(text, text).toContain(BACKS[lang]);
        expect(text, text).not.toContain(VEERS[lang]);
      }
    });

    it(`${lang}: north is written 360, never 0`, () => {
      for (const f of north) {
        const text = templateText(f, lang);
        expect(text, text).toMatch(northIn(lang));
        expect(text, text).not.toMatch(zeroIn(lang));
      }
      // 1° is 1°, not 361°.
      expect(templateText(wind(350, 1), lang)).toMatch(lang === "tr" ? /(?<!\d)1 derece/u : /(?<!\d)1°/u);
    });
  }

  it("it and el use the sailors' verb, not the bookish one", () => {
    for (const f of [...veering, ...backing]) {
      expect(templateText(f, "it")).not.toMatch(/ruota/u);
      expect(templateText(f, "el")).not.toMatch(/στρέφεται/u);
    }
  });
});

describe("marks", () => {
  it("en: the before a named mark, and mark unless the label says what it is", () => {
    expect(templateText(rounding("Windward"), "en")).toBe("GBR 10 Tenacious rounds the Windward mark.");
    expect(templateText(rounding("Leeward gate"), "en")).toBe("GBR 10 Tenacious rounds the Leeward gate.");
    expect(templateText(rounding("Committee boat"), "en")).toBe("GBR 10 Tenacious rounds the Committee boat.");
    expect(templateText(rounding("The Needles"), "en")).toBe("GBR 10 Tenacious rounds The Needles mark.");
    expect(templateText(rounding("1"), "en")).toBe("GBR 10 Tenacious rounds mark 1.");
    expect(templateText(rounding("4s/4p"), "en")).toBe("GBR 10 Tenacious rounds gate 4s/4p.");
    expect(templateText(rounding(null), "en")).toBe("GBR 10 Tenacious rounds a mark.");
  });

  const MARK_BEFORE_LABEL: Record<Exclude<Lang, "en" | "tr">, RegExp> = {
    de: /rundet die Tonne „Windward“\.$/u,
    fr: /vire la bouée «\u00a0Windward\u00a0»\.$/u,
    es: /monta la baliza «Windward»\.$/u,
    it: /gira la boa «Windward»\.$/u,
    ru: /огибает знак «Windward»\.$/u,
    el: /στρίβει τη σημαδούρα «Windward»\.$/u,
    nb: /runder merket «Windward»\.$/u,
  };
  it("the other languages put their word for the mark before the label (Turkish: the label heads a compound)", () => {
    for (const [lang, pattern] of Object.entries(MARK_BEFORE_LABEL))
      expect(templateText(rounding("Windward"), lang as Lang)).toMatch(pattern);
    expect(templateText(rounding("Windward"), "tr")).toContain("Windward şamandırasını dönüyor.");
  });

  it("an unlabelled gate is named as a gate by its keys in every language", () => {
    const GATE: Record<Lang, string> = {
      en: "gate 4s/4p",
      tr: "4s/4p kapısından",
      de: "das Gate 4s/4p",
      fr: "la porte 4s/4p",
      es: "la puerta 4s/4p",
      it: "il cancello 4s/4p",
      ru: "ворота 4s/4p",
      el: "την πύλη 4s/4p",
      nb: "port 4s/4p",
    };
    for (const lang of LANGUAGES) expect(templateText(rounding("4s/4p"), lang)).toContain(GATE[lang]);
  });

  it("el: σημαδούρα always has its article", () => {
    for (const label of [null, "1", "Windward", LONG_MARK]) {
      const text = templateText(rounding(label, LONG_NAMES[2]!), "el");
      expect(text, text).toMatch(/στρίβει (τη|μια) σημαδούρα/u);
    }
    expect(templateText(rounding(null), "el")).toBe("Το GBR 10 Tenacious στρίβει μια σημαδούρα.");
  });
});

describe("per-language wording", () => {
  /** Word stems (4 letters, accents folded) of the template's own words, names and sail numbers taken out. */
  function repeatedStems(text: string, f: Fact): string[] {
    let rest = text;
    for (const b of f.boats) rest = rest.replace(`${b.sailNumber} ${b.boatName}`, " ").replace(b.sailNumber, " ");
    const stems = (rest.match(/\p{L}{4,}/gu) ?? []).map((w) =>
      w.toLowerCase().normalize("NFD").replace(/\p{M}/gu, "").replace(/ı/gu, "i").slice(0, 4),
    );
    return stems.filter((stem, i) => stems.indexOf(stem) !== i);
  }

  for (const lang of LANGUAGES) {
    it(`${lang}: no line says the same word twice (lead changes, roundings, gains, finishes)`, () => {
      const facts = [
        leadChange(TENACIOUS, AURORA),
        leadChange(TENACIOUS, null),
        rounding("Windward"),
        rounding("1"),
        rounding("4s/4p"),
        rounding(null),
      ];
      for (const rank of [null, 1, ...RANKS]) facts.push(finish(rank));
      for (const n of [2, 5, 21]) for (const rank of [null, 1, ...RANKS]) facts.push(gain(n, rank));
      for (const f of facts) {
        const text = templateText(f, lang);
        expect(repeatedStems(text, f), text).toEqual([]);
      }
    });
  }

  it("plural forms of places gained (2, 5, 21, 22)", () => {
    const PLACES: Record<Lang, [string, string, string, string]> = {
      en: ["2 places", "5 places", "21 places", "22 places"],
      tr: ["2 basamak", "5 basamak", "21 basamak", "22 basamak"],
      de: ["2 Plätze", "5 Plätze", "21 Plätze", "22 Plätze"],
      fr: ["2\u00a0places", "5\u00a0places", "21\u00a0places", "22\u00a0places"],
      es: ["2 puestos", "5 puestos", "21 puestos", "22 puestos"],
      it: ["2 posizioni", "5 posizioni", "21 posizioni", "22 posizioni"],
      ru: ["2 позиции", "5 позиций", "21 позицию", "22 позиции"],
      el: ["2 θέσεις", "5 θέσεις", "21 θέσεις", "22 θέσεις"],
      nb: ["2 plasser", "5 plasser", "21 plasser", "22 plasser"],
    };
    for (const lang of LANGUAGES) {
      for (const [i, n] of [2, 5, 21, 22].entries()) expect(templateText(gain(n, 4), lang)).toContain(PLACES[lang][i]);
    }
  });

  it("fr: a no-break space between a number and its noun, never a plain one", () => {
    const lines = [gain(2, null), gain(21, 4), wind(90, 90, null, 1), wind(350, 5, 14, 10), wind(90, 90, null, 12.5)].map((f) =>
      templateText(f, "fr"),
    );
    for (const text of lines) {
      expect(text, text).toMatch(/\d\u00a0(nœuds?|places?)/u);
      expect(text, text).not.toMatch(/\d (nœuds?|places?)/u);
    }
  });

  it("tr: lead changes and finishes read without repeating themselves", () => {
    expect(templateText(leadChange(TENACIOUS, AURORA), "tr")).toBe(
      "GBR 10 Tenacious, GBR 9 Aurora teknesini geride bırakıp liderliğe yükseliyor.",
    );
    expect(templateText(finish(4), "tr")).toBe("GBR 10 Tenacious, yarışı geçici olarak 4. sırada bitiriyor.");
    expect(templateText(finish(1), "tr")).toBe("GBR 10 Tenacious yarışı geçici olarak kazanıyor.");
  });
});

describe("ICU data for the plural and ordinal rules", () => {
  const only = (available: string[]) => {
    const supported = (langs: string | string[]) => [langs].flat().filter((l) => available.includes(l));
    return {
      PluralRules: { supportedLocalesOf: supported },
      NumberFormat: { supportedLocalesOf: supported },
    } as unknown as Pick<typeof Intl, "PluralRules" | "NumberFormat">;
  };

  it("this Node has every language's data (the templates module loaded, so the start-up check passed)", () => {
    expect(languagesWithoutLocaleData(LANGUAGES)).toEqual([]);
    expect(() => requireLocaleData(LANGUAGES)).not.toThrow();
  });

  it("a Node with English-only ICU (small-icu) fails loudly, naming the languages, instead of using English rules", () => {
    expect(languagesWithoutLocaleData(LANGUAGES, only(["en"]))).toEqual(LANGUAGES.filter((l) => l !== "en"));
    expect(() => requireLocaleData(LANGUAGES, only(["en"]))).toThrow(/full ICU data .* for tr, de, fr, es, it, ru, el, nb;/u);
    expect(() => requireLocaleData(LANGUAGES, only([...LANGUAGES].filter((l) => l !== "el")))).toThrow(/ for el;/u);
    expect(() => requireLocaleData(LANGUAGES, only([...LANGUAGES]))).not.toThrow();
  });
});
