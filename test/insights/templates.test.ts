import { describe, expect, it } from "vitest";
import type { BoatRef, Fact } from "../../src/domain/facts.js";
import { LANGUAGES, normalizeLang, type Lang } from "../../src/insights/languages.js";
import { MAX_INSIGHT_TEXT_LENGTH, templateText, templateTexts } from "../../src/insights/templates.js";
import { fact } from "../support/insight-facts.js";

const TENACIOUS: BoatRef = { entryId: "11111111-1111-4111-8111-111111111111", sailNumber: "GBR 10", boatName: "Tenacious" };
const AURORA: BoatRef = { entryId: "22222222-2222-4222-8222-222222222222", sailNumber: "GBR 9", boatName: "Aurora" };

const leadChange = (boats: BoatRef[] = [TENACIOUS, AURORA]) => fact({ kind: "leadChange", boats });
const rounding = (markLabel: string | null, boat = TENACIOUS) => fact({ kind: "markRounding", boats: [boat], markLabel });
const gain = (placesGained: number, rank: number | null, boat = TENACIOUS) => fact({ kind: "gain", boats: [boat], placesGained, rank });
const finish = (rank: number | null, boat = TENACIOUS) => fact({ kind: "finish", boats: [boat], rank });
const wind = (twdFrom: number, twdTo: number, twsFrom: number | null, twsTo: number | null) =>
  fact({ kind: "windShift", twdFrom, twdTo, twsFrom, twsTo });

const VARIANTS: Record<string, Fact> = {
  leadChange: leadChange(),
  "leadChange, no previous leader": leadChange([TENACIOUS]),
  "markRounding, named mark": rounding("Windward"),
  "markRounding, mark key": rounding("1"),
  "markRounding, no label": rounding(null),
  "gain with rank": gain(3, 2),
  "gain without rank": gain(3, null),
  "finish with rank": finish(4),
  "finish without rank": finish(null),
  "windShift, direction and speed (easing)": wind(350, 5, 14, 10),
  "windShift, direction and speed (building)": wind(200, 185, 10.5, 14),
  "windShift, direction-only readings": wind(350, 5, null, null),
  "windShift, speed only": wind(350, 352, 14, 10),
  "windShift, small turn and small change": wind(90, 95, 8, 9),
  "windShift, new reading, nothing comparable": wind(270, 270, null, 12.5),
  "windShift, direction-only reading, same direction": wind(270, 270, null, null),
};

/** One sentence: one line, ending in sentence-final punctuation, no full stop + capital inside (ordinals like "2. Platz" aside). */
function expectOneSentence(text: string): void {
  expect(text).not.toMatch(/[\r\n]/);
  expect(text).toMatch(/[.!?…]$/u);
  expect(text).not.toMatch(/[.!?][.!?]$/u);
  expect(text).not.toMatch(/[^\d\s.][.!?]\s+\p{Lu}/u);
}

function expectWellFormed(text: string, f: Fact): void {
  expect(text.trim()).not.toBe("");
  expect(text).toBe(text.trim());
  expect(text.length).toBeLessThanOrEqual(MAX_INSIGHT_TEXT_LENGTH);
  expectOneSentence(text);
  for (const boat of f.boats) expect(text).toContain(boat.sailNumber);
  for (const bad of ["undefined", "null", "NaN", "{", "}", "  "]) expect(text).not.toContain(bad);
}

describe("templateText: every language, every kind and variant", () => {
  for (const lang of LANGUAGES) {
    describe(lang, () => {
      for (const [name, f] of Object.entries(VARIANTS)) {
        it(name, () => {
          expectWellFormed(templateText(f, lang), f);
          expectWellFormed(templateText(f, lang, { includeGroup: true }), f);
          expect(templateText(f, lang, { includeGroup: true })).toContain("IRC 1");
        });
      }
    });
  }

  it("gives each language its own sentence", () => {
    for (const f of Object.values(VARIANTS)) {
      const texts = Object.values(templateTexts(f));
      expect(new Set(texts).size).toBe(LANGUAGES.length);
    }
  });

  it("templateTexts has exactly the nine languages, each equal to templateText", () => {
    const f = gain(3, 2);
    const texts = templateTexts(f);
    expect(Object.keys(texts).sort()).toEqual([...LANGUAGES].sort());
    for (const lang of LANGUAGES) expect(texts[lang]).toBe(templateText(f, lang));
  });
});

describe("English sentences", () => {
  it("reads as a broadcast line", () => {
    expect(templateText(leadChange(), "en")).toBe("GBR 10 Tenacious takes the lead from GBR 9 Aurora.");
    expect(templateText(rounding("Windward"), "en")).toBe("GBR 10 Tenacious rounds the Windward mark.");
    expect(templateText(rounding("1"), "en")).toBe("GBR 10 Tenacious rounds mark 1.");
    expect(templateText(gain(3, 2), "en")).toBe("GBR 10 Tenacious gains 3 places and is now 2nd.");
    expect(templateText(finish(4), "en")).toBe("GBR 10 Tenacious finishes in provisional 4th place.");
    expect(templateText(finish(null), "en")).toBe("GBR 10 Tenacious finishes.");
    expect(templateText(wind(350, 5, 14, 10), "en")).toBe("The wind veers from 350° to 5° and eases from 14 to 10 knots.");
    expect(templateText(wind(350, 5, null, null), "en")).toBe("The wind veers from 350° to 5°.");
    expect(templateText(wind(350, 352, 10, 14), "en")).toBe("The wind builds from 10 to 14 knots.");
  });

  it("leads with the start group only when asked", () => {
    expect(templateText(wind(350, 5, null, null), "en", { includeGroup: true })).toBe("IRC 1: The wind veers from 350° to 5°.");
    expect(templateText(wind(350, 5, null, null), "fr", { includeGroup: true })).toBe(
      "IRC 1\u00a0: le vent tourne à droite, de 350° à 5°.",
    );
    expect(templateText(wind(350, 5, null, null), "el", { includeGroup: true })).toBe("IRC 1: ο άνεμος γυρίζει δεξιά, από 350° σε 5°.");
    expect(templateText(wind(350, 5, null, null), "de", { includeGroup: true })).toBe("IRC 1: Der Wind dreht von 350° auf 5° nach rechts.");
    // A sail number is never lower-cased.
    expect(templateText(leadChange(), "es", { includeGroup: true })).toMatch(/^IRC 1: GBR 10 Tenacious /);
  });
});

describe("ordinals", () => {
  it("en: st, nd, rd, th by the CLDR ordinal rules", () => {
    const cases: Array<[number, string]> = [
      [2, "2nd"],
      [3, "3rd"],
      [4, "4th"],
      [11, "11th"],
      [12, "12th"],
      [13, "13th"],
      [21, "21st"],
      [22, "22nd"],
      [23, "23rd"],
      [101, "101st"],
      [111, "111th"],
      [112, "112th"],
    ];
    for (const [rank, ordinal] of cases) {
      expect(templateText(gain(2, rank), "en")).toBe(`GBR 10 Tenacious gains 2 places and is now ${ordinal}.`);
    }
  });

  it("fr: 1er, then 2e, 3e … (1er where first place has no words of its own: none here)", () => {
    expect(templateText(gain(2, 2), "fr")).toContain("au 2e rang");
    expect(templateText(gain(2, 21), "fr")).toContain("au 21e rang");
    expect(templateText(finish(101), "fr")).toContain("au 101e rang provisoire");
  });

  it("es: N.º, standing alone", () => {
    expect(templateText(gain(2, 2), "es")).toBe("GBR 10 Tenacious gana 2 puestos y ya es 2.º.");
    expect(templateText(finish(3), "es")).toContain("provisionalmente 3.º.");
  });

  it("it: al Nº posto, elided before a vowel sound", () => {
    expect(templateText(gain(2, 2), "it")).toContain("sale al 2º posto");
    for (const rank of [8, 11, 80, 81, 88, 800]) expect(templateText(gain(2, rank), "it")).toContain(`sale all’${rank}º posto`);
    for (const rank of [18, 110, 180]) expect(templateText(gain(2, rank), "it")).toContain(`sale al ${rank}º posto`);
  });

  it("de, nb, tr: digits with a period (a gain: Rang 2, nummer 2)", () => {
    expect(templateText(gain(2, 2), "de")).toContain("liegt jetzt auf Rang 2.");
    expect(templateText(finish(4), "de")).toContain("vorläufig auf dem 4. Platz");
    expect(templateText(gain(2, 2), "nb")).toContain("ligger nå som nummer 2.");
    expect(templateText(finish(4), "nb")).toContain("på foreløpig 4. plass");
    expect(templateText(gain(3, 2), "tr")).toContain("2. sıraya çıkıyor");
    expect(templateText(finish(4), "tr")).toContain("4. sırada bitiriyor");
  });

  it("ru: -е after на + accusative, -м in the prepositional", () => {
    expect(templateText(gain(3, 2), "ru")).toContain("поднимается на 2-е место");
    expect(templateText(finish(4), "ru")).toContain("на 4-м месте");
  });

  it("el: feminine ordinal with θέση, στην/στη by the final-ν rule, stressed ending on tens and hundreds", () => {
    const cases: Array<[number, string]> = [
      [2, "στη 2η θέση"],
      [3, "στην 3η θέση"],
      [6, "στην 6η θέση"],
      [8, "στην 8η θέση"],
      [10, "στη 10η θέση"],
      [11, "στην 11η θέση"],
      [12, "στη 12η θέση"],
      [13, "στη 13η θέση"],
      [20, "στην 20ή θέση"],
      [21, "στην 21η θέση"],
      [32, "στην 32η θέση"],
      [100, "στην 100ή θέση"],
      [200, "στη 200ή θέση"],
    ];
    for (const [rank, phrase] of cases) expect(templateText(finish(rank), "el")).toContain(`προσωρινά ${phrase}.`);
  });
});

describe("plurals and numbers", () => {
  it("en: places and knots", () => {
    expect(templateText(gain(2, null), "en")).toBe("GBR 10 Tenacious gains 2 places.");
    expect(templateText(wind(90, 90, null, 1), "en")).toBe("New wind reading: 90° at 1 knot.");
    expect(templateText(wind(90, 90, null, 2), "en")).toBe("New wind reading: 90° at 2 knots.");
    expect(templateText(wind(90, 90, 9.5, 12.5), "en")).toContain("from 9.5 to 12.5 knots");
  });

  it("ru: places and knots, nominative and after до", () => {
    expect(templateText(gain(2, null), "ru")).toContain("отыгрывает 2 позиции.");
    expect(templateText(gain(5, null), "ru")).toContain("отыгрывает 5 позиций.");
    expect(templateText(gain(21, null), "ru")).toContain("отыгрывает 21 позицию.");
    expect(templateText(gain(22, null), "ru")).toContain("отыгрывает 22 позиции.");
    const reading = (tws: number) => templateText(wind(90, 90, null, tws), "ru");
    expect(reading(1)).toContain("1 узел.");
    expect(reading(2)).toContain("2 узла.");
    expect(reading(5)).toContain("5 узлов.");
    expect(reading(21)).toContain("21 узел.");
    expect(reading(1.5)).toContain("1,5 узла.");
    const easing = (to: number) => templateText(wind(90, 90, 12, to), "ru");
    expect(easing(1)).toContain("до 1 узла.");
    expect(easing(2)).toContain("до 2 узлов.");
    expect(easing(5)).toContain("до 5 узлов.");
    expect(easing(8.5)).toContain("до 8,5 узла.");
    expect(templateText(wind(90, 90, 14, 21), "ru")).toContain("до 21 узла.");
  });

  it("el: θέσεις, κόμβος/κόμβοι, κόμβο/κόμβους", () => {
    expect(templateText(gain(2, null), "el")).toContain("κερδίζει 2 θέσεις.");
    expect(templateText(wind(90, 90, null, 1), "el")).toContain("1 κόμβος.");
    expect(templateText(wind(90, 90, null, 2), "el")).toContain("2 κόμβοι.");
    expect(templateText(wind(90, 90, 5, 1), "el")).toContain("από 5 σε 1 κόμβο.");
    expect(templateText(wind(90, 90, 5, 10), "el")).toContain("από 5 σε 10 κόμβους.");
  });

  it("fr: singular below two, decimal comma", () => {
    expect(templateText(wind(90, 90, null, 1), "fr")).toContain("1\u00a0nœud.");
    expect(templateText(wind(90, 90, null, 1.5), "fr")).toContain("1,5\u00a0nœud.");
    expect(templateText(wind(90, 90, null, 2), "fr")).toContain("2\u00a0nœuds.");
    expect(templateText(gain(2, null), "fr")).toContain("gagne 2\u00a0places.");
  });

  it("de, es, it, nb, tr", () => {
    expect(templateText(gain(2, null), "de")).toContain("macht 2 Plätze gut.");
    expect(templateText(wind(90, 90, null, 1), "de")).toContain("1 Knoten.");
    expect(templateText(wind(90, 90, 9.5, 12.5), "de")).toContain("von 9,5 auf 12,5 Knoten zu.");
    expect(templateText(gain(2, null), "es")).toContain("gana 2 puestos.");
    expect(templateText(wind(90, 90, null, 1), "es")).toContain("1 nudo.");
    expect(templateText(wind(90, 90, null, 1.5), "es")).toContain("1,5 nudos.");
    expect(templateText(gain(2, null), "it")).toContain("guadagna 2 posizioni.");
    expect(templateText(wind(90, 90, 5, 1), "it")).toContain("da 5 a 1 nodo.");
    expect(templateText(wind(90, 90, 1, 5), "it")).toContain("da 1 a 5 nodi.");
    expect(templateText(gain(2, null), "nb")).toContain("går opp 2 plasser.");
    expect(templateText(wind(90, 90, null, 12.5), "nb")).toContain("12,5 knop.");
    // Turkish nouns stay singular after a numeral.
    expect(templateText(gain(3, null), "tr")).toContain("3 basamak yükseliyor.");
    expect(templateText(wind(350, 5, 14, 10.5), "tr")).toBe(
      "Rüzgâr saat yönünde 350 dereceden 5 dereceye dönüyor ve 14 knottan 10,5 knota düşüyor.",
    );
  });

  it("rounds knots to a tenth and agrees with the rounded number", () => {
    expect(templateText(wind(90, 90, null, 1.04), "en")).toBe("New wind reading: 90° at 1 knot.");
    expect(templateText(wind(90, 90, null, 12.46), "de")).toContain("12,5 Knoten");
  });
});

describe("wind sentences say what changed", () => {
  it("names the direction only when it turned >= 10° and the speed barely moved", () => {
    expect(templateText(wind(350, 5, 14, 13), "en")).toBe("The wind veers from 350° to 5°.");
  });

  it("names the speed only when it changed >= 3 knots and the direction barely moved", () => {
    expect(templateText(wind(350, 352, 14, 10), "en")).toBe("The wind eases from 14 to 10 knots.");
  });

  it("names whatever changed when neither crossed its threshold", () => {
    expect(templateText(wind(90, 95, 8, 9), "en")).toBe("The wind veers from 90° to 95° and builds from 8 to 9 knots.");
  });

  it("gives the new reading when nothing comparable changed", () => {
    expect(templateText(wind(270, 270, null, 12.5), "en")).toBe("New wind reading: 270° at 12.5 knots.");
    expect(templateText(wind(270, 270, null, null), "en")).toBe("New wind reading: 270°.");
  });
});

describe("length limit with long names and labels", () => {
  const LONG_NAME = "The Extraordinarily Persistent and Remarkably Well Sponsored Offshore Racing Yacht of the Royal Harbour Club";
  const LONG_MARK = "Windward Offset Spreader Mark Beyond the Committee Boat Near the Harbour Entrance Buoy Number Seven";
  const LONG_GROUP = "IRC Class One Big Boat Series Division Overall Combined Handicap Fleet Group";
  const longA: BoatRef = { ...TENACIOUS, sailNumber: "GBR 12345", boatName: LONG_NAME };
  const longB: BoatRef = { ...AURORA, sailNumber: "ITA 98765", boatName: `${LONG_NAME} Second Entry` };
  const longFacts: Fact[] = [
    { ...leadChange([longA, longB]), startGroupName: LONG_GROUP },
    { ...leadChange([longA, AURORA]), startGroupName: LONG_GROUP },
    { ...rounding(LONG_MARK, longA), startGroupName: LONG_GROUP },
    { ...rounding("Windward", longA), startGroupName: LONG_GROUP },
    { ...gain(12, 111, longA), startGroupName: LONG_GROUP },
    { ...finish(123, longA), startGroupName: LONG_GROUP },
    { ...wind(350, 5, 14.5, 10.5), startGroupName: `${LONG_GROUP} ${LONG_GROUP}` },
  ];
  const originalWords = new Set(`${LONG_NAME} Second Entry ${LONG_MARK} ${LONG_GROUP} Windward`.split(" "));

  it("names are 80+ characters", () => {
    expect(LONG_NAME.length).toBeGreaterThan(80);
    expect(LONG_MARK.length).toBeGreaterThan(80);
  });

  for (const lang of LANGUAGES) {
    it(`${lang}: stays within 160 characters, keeps sail numbers, never cuts a word`, () => {
      for (const f of longFacts) {
        for (const includeGroup of [false, true]) {
          const text = templateText(f, lang, { includeGroup });
          expectWellFormed(text, f);
          // Every word that carries an ellipsis is a whole word of an original name or label.
          for (const token of text.split(/\s+/)) {
            if (!token.includes("…")) continue;
            const word = token.replace(/^[«„“"(]+/u, "").replace(/….*$/u, "");
            expect(originalWords.has(word), `"${word}" in: ${text}`).toBe(true);
          }
        }
      }
    });
  }

  it("shortens the longer boat name first and keeps what fits", () => {
    const text = templateText(leadChange([longB, AURORA]), "en");
    expect(text).toContain("GBR 9 Aurora.");
    expect(text).toMatch(/^ITA 98765 The Extraordinarily Persistent .*… takes the lead from GBR 9 Aurora\.$/);
    expect(text.length).toBeLessThanOrEqual(160);
  });

  it("cuts the mark label before the boat's name, and gives the name's words back first", () => {
    const text = templateText(rounding(LONG_MARK, longA), "en");
    expect(text).toContain(`GBR 12345 ${LONG_NAME} rounds the Windward `);
    expect(text).not.toContain(LONG_MARK);
    expect(text).toMatch(/…( mark\.)?$/u);
  });

  it("drops the group label before boat names go below their first word", () => {
    const text = templateText({ ...gain(3, 2, longA), startGroupName: `${LONG_GROUP} ${LONG_GROUP}` }, "de", { includeGroup: true });
    expect(text.length).toBeLessThanOrEqual(160);
    expect(text).toContain("GBR 12345 The");
  });

  it("falls back to the sail number alone, and to an unnamed mark, when nothing else fits", () => {
    const oneWordName: BoatRef = { ...TENACIOUS, boatName: "X".repeat(150) };
    expect(templateText(finish(3, oneWordName), "en")).toBe("GBR 10 finishes in provisional 3rd place.");
    const hugeMark = "M".repeat(170);
    expect(templateText(rounding(hugeMark), "en")).toBe("GBR 10 Tenacious rounds a mark.");
  });

  it("keeps a boat without a sail number recognisable by the first word of its name", () => {
    const noSail: BoatRef = { ...TENACIOUS, sailNumber: "", boatName: `${LONG_NAME} ${LONG_NAME}` };
    const text = templateText(finish(3, noSail), "en");
    expect(text.length).toBeLessThanOrEqual(160);
    expect(text.startsWith("The ")).toBe(true);
  });

  it("still holds 160 with absurd sail numbers", () => {
    const absurd: BoatRef = { ...TENACIOUS, sailNumber: "GBR ".repeat(30).trim() };
    const text = templateText(leadChange([absurd, { ...absurd, entryId: "x" }]), "en");
    expect(text.length).toBeLessThanOrEqual(160);
    expect(text.endsWith("…")).toBe(true);
  });

  it("turns line breaks and tabs in names into single spaces", () => {
    const messy: BoatRef = { ...TENACIOUS, boatName: " Tena\ncious\t II \u202e" };
    expect(templateText(finish(null, messy), "en")).toBe("GBR 10 Tena cious II finishes.");
  });
});

describe("normalizeLang", () => {
  const cases: Array<[Parameters<typeof normalizeLang>[0], Lang]> = [
    ["en", "en"],
    ["EN", "en"],
    ["en-GB", "en"],
    ["EN-us", "en"],
    ["de-AT", "de"],
    ["nb-NO", "nb"],
    ["TR", "tr"],
    ["tr-TR", "tr"],
    ["el-GR", "el"],
    ["ru", "ru"],
    ["es-419", "es"],
    ["it-CH", "it"],
    // The spec's nine codes and a region suffix; anything else is en.
    ["no", "en"],
    ["no-NO", "en"],
    ["de_DE", "en"],
    ["nb_NO.UTF-8", "en"],
    ["de.UTF-8", "en"],
    [" de", "en"],
    [" fr ", "en"],
    ["de-", "en"],
    ["de-AT-x", "en"],
    ["de-Latn", "en"],
    ["de-1996", "en"],
    ["de\n", "en"],
    ["nn", "en"],
    ["pt", "en"],
    ["pt_BR", "en"],
    ["xx-YY", "en"],
    ["", "en"],
    ["-", "en"],
    ["english", "en"],
    [undefined, "en"],
    [null, "en"],
    [["fr", "de"], "fr"],
    [["xx", "de"], "en"],
    [[], "en"],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input) ?? "undefined"} -> ${expected}`, () => {
      expect(normalizeLang(input)).toBe(expected);
    });
  }

  it("never throws on values a query parser should not produce", () => {
    for (const odd of [42, {}, [null], [["fr"]], true] as unknown[]) {
      expect(normalizeLang(odd as string)).toBe("en");
    }
  });
});
