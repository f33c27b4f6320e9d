// The pure export writers: names escaped so an XML or CSV parser gives them back, file
// names safe in a header, the export window of the track's rules, and a file written
// a page at a time in any pages is one valid document holding every fix once.

import { DOMParser } from "@xmldom/xmldom";
import { parse as parseCsv } from "csv-parse/sync";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvField } from "../../../src/domain/export/csv.js";
import { EXPORT_FORMAT_NAMES, EXPORT_FORMATS, exportFileName } from "../../../src/domain/export/formats.js";
import { OutputBytes } from "../../../src/domain/export/output-bytes.js";
import {
  courseMarks,
  type ExportFix,
  type ExportHead,
  type FileBoat,
  type TrackFileWriter,
} from "../../../src/domain/export/track-file.js";
import { xmlText } from "../../../src/domain/export/xml-text.js";
import { CAPTURE_AFTER_GUN_MS, CAPTURE_BEFORE_GUN_MS } from "../../../src/domain/race-time.js";
import { exportWindow, settledEdge, trackWindow } from "../../../src/domain/track-window.js";
import { REFERENCE_WRITERS, type StringWriter } from "../../support/export-reference-writers.js";

const SEED = { seed: 31, numRuns: 200 };

describe("escaping", () => {
  it("xmlText: any string, as element text and as an attribute, is read back as itself less what XML cannot carry", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (text) => {
        const doc = new DOMParser().parseFromString(`<a b="${xmlText(text)}">${xmlText(text)}</a>`, "text/xml");
        const carried = [...text].filter((c) => {
          const code = c.codePointAt(0)!;
          return code >= 0x20 ? !(code >= 0xd800 && code <= 0xdfff) && code !== 0xfffe && code !== 0xffff : [0x9, 0xa, 0xd].includes(code);
        });
        // XML reads CR LF and CR as LF in text, and tab, LF, CR in attributes as spaces (XML 1.0 2.11, 3.3.3).
        const inText = carried.join("").replace(/\r\n?/g, "\n");
        expect(doc.documentElement!.textContent).toBe(inText);
      }),
      SEED,
    );
  });

  it("csvField: any string in any column is read back by csv-parse as itself", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme", maxLength: 20 }), { minLength: 1, maxLength: 4 }), (fields) => {
        const [row] = parseCsv(`${fields.map(csvField).join(",")}\r\n`, { relaxColumnCount: false }) as string[][];
        expect(row).toEqual(fields);
      }),
      SEED,
    );
  });

  it("file names: ASCII letters, digits, dashes and underscores, whatever the names", () => {
    expect(exportFileName(["Track Week", "Race 1", "Fleet A"], "gpx")).toBe("track-week_race-1_fleet-a.gpx");
    expect(exportFileName(["Çeşme Regatası", 'GBR "7", <&>'], "csv")).toBe("cesme-regatas_gbr-7.csv");
    expect(exportFileName(["Ωμέγα", ""], "kml")).toBe("track.kml");
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "binary", maxLength: 200 }), { maxLength: 4 }),
        fc.constantFrom("gpx", "kml", "geojson", "csv" as const),
        (parts, format) => {
          expect(exportFileName(parts, format)).toMatch(new RegExp(`^[a-z0-9_-]{1,170}\\.${EXPORT_FORMATS[format].extension}$`));
        },
      ),
      SEED,
    );
  });
});

describe("the export window", () => {
  const GUN = Date.parse("2026-07-04T13:00:00Z");

  it("is the capture window cut at the cut-off, immutable by the track's rule, and nothing before the window opens", () => {
    expect(exportWindow(null, GUN)).toBeNull();
    expect(exportWindow(GUN, GUN - CAPTURE_BEFORE_GUN_MS)).toBeNull();
    fc.assert(
      fc.property(
        fc.integer({ min: -CAPTURE_BEFORE_GUN_MS + 1, max: 5 * 3600_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        (afterGunMs, slackMs) => {
          const cutoffMs = GUN + afterGunMs;
          const window = exportWindow(GUN, cutoffMs, slackMs)!;
          expect(window).toEqual(
            trackWindow({ sinceMs: GUN - CAPTURE_BEFORE_GUN_MS, untilMs: GUN + CAPTURE_AFTER_GUN_MS }, cutoffMs, GUN, slackMs),
          );
          expect(window.untilMs).toBe(Math.min(cutoffMs, GUN + CAPTURE_AFTER_GUN_MS));
          expect(window.immutable).toBe(GUN + CAPTURE_AFTER_GUN_MS <= settledEdge(cutoffMs) - slackMs);
        },
      ),
      SEED,
    );
  });
});

describe("a file written a page at a time", () => {
  const head: ExportHead = {
    eventName: "E",
    raceName: "R",
    startGroupName: "G",
    marks: courseMarks([
      {
        label: null,
        marks: [
          { key: "a", lat: 1, lon: 2 },
          { key: "b", lat: 3, lon: 4 },
        ],
      },
      { label: "Top", marks: [{ key: "a", lat: 1, lon: 2 }] },
    ]),
  };
  // -0 is written 0, as the track pages' JSON writes it: no position or speed is -0 apart from the sign.
  const double = (min: number, max: number) => fc.double({ min, max, noNaN: true }).map((v) => (v === 0 ? 0 : v));
  const fix = fc.record({
    t: fc.integer({ min: 0, max: 4e12 }),
    lat: double(-90, 90),
    lon: double(-180, 180),
    sogKn: fc.option(double(0, 100), { nil: null }),
    cogDeg: fc.option(double(0, 359.99), { nil: null }),
  });
  /** Boats of fixes, each cut into pages where `cuts` say. */
  const boats = fc.array(fc.tuple(fc.array(fix, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(30), { maxLength: 4 })), {
    maxLength: 4,
  });

  function write(
    format: keyof typeof EXPORT_FORMATS,
    input: Array<[ExportFix[], number[]]>,
    marks = head.marks,
    names: (index: number) => Pick<FileBoat, "sailNumber" | "boatName"> = (index) => ({ sailNumber: `S${index}`, boatName: `B${index}` }),
    writer: TrackFileWriter | StringWriter = EXPORT_FORMATS[format].writer,
    chunkBytes?: number,
  ): string {
    // The string writers (the oracle) and the byte writers, driven the same way.
    const out = new OutputBytes(chunkBytes);
    const parts: string[] = [];
    const oracle = writer !== EXPORT_FORMATS[format].writer;
    const string = writer as StringWriter;
    const bytes = writer as TrackFileWriter;
    /** One part of the file, by the oracle or by the byte writer. */
    const part = (byOracle: () => string, byBytes: () => void) => {
      if (oracle) parts.push(byOracle());
      else {
        byBytes();
        parts.push(Buffer.concat(out.take(true)).toString("utf8"));
      }
    };
    const file = { ...head, marks };
    part(
      () => string.head(file),
      () => bytes.head(out, file),
    );
    input.forEach(([fixes, cuts], index) => {
      const boat: FileBoat = { entryId: `e${index}`, ...names(index), index, onlyFix: fixes.length === 1 };
      const edges = [...new Set([0, ...cuts.filter((c) => c < fixes.length), fixes.length])].sort((a, b) => a - b);
      part(
        () => string.boatHead(file, boat),
        () => bytes.boatHead(out, file, boat),
      );
      for (let pass = 0; pass < writer.passes; pass++) {
        if (pass > 0)
          part(
            () => string.passBreak(boat, pass),
            () => bytes.passBreak(out, boat, pass),
          );
        for (let k = 0; k + 1 < edges.length; k++) {
          const page = fixes.slice(edges[k], edges[k + 1]);
          part(
            () => string.fixes(boat, page, pass, k > 0),
            () => bytes.fixes(out, boat, page, pass, k > 0),
          );
        }
      }
      part(
        () => string.boatTail(boat),
        () => bytes.boatTail(out, boat),
      );
    });
    part(
      () => string.tail(),
      () => bytes.tail(out),
    );
    return parts.join("");
  }

  it("every format: byte for byte what the string writers (toISOString, String()) wrote, whatever the values, names, pages and chunk size", () => {
    // Realistic values (a few decimals, as phones and the simulator store them) and any double at all.
    const decimals = (min: number, max: number) =>
      fc.tuple(double(min, max), fc.integer({ min: 0, max: 9 })).map(([v, k]) => Math.round(v * 10 ** k) / 10 ** k);
    const value = (min: number, max: number) =>
      fc.oneof(decimals(min, max), double(min, max), fc.double({ noNaN: true, noDefaultInfinity: true }));
    const anyFix = fc.record({
      t: fc.integer({ min: -8.64e15, max: 8.64e15 }),
      lat: value(-90, 90),
      lon: value(-180, 180),
      sogKn: fc.option(value(0, 100), { nil: null }),
      cogDeg: fc.option(value(0, 359.99), { nil: null }),
    });
    const anyBoats = fc.array(fc.tuple(fc.array(anyFix, { minLength: 1, maxLength: 20 }), fc.array(fc.nat(20), { maxLength: 3 })), {
      maxLength: 3,
    });
    const names = fc.array(
      fc.record({ sailNumber: fc.string({ unit: "binary", maxLength: 12 }), boatName: fc.string({ unit: "binary", maxLength: 12 }) }),
      {
        minLength: 3,
        maxLength: 3,
      },
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...EXPORT_FORMAT_NAMES),
        anyBoats,
        names,
        fc.boolean(),
        fc.integer({ min: 1, max: 300 }),
        (format, input, boatNames, withMarks, chunkBytes) => {
          const marks = withMarks ? head.marks : [];
          const written = write(format, input, marks, (i) => boatNames[i]!, EXPORT_FORMATS[format].writer, chunkBytes);
          expect(written).toBe(write(format, input, marks, (i) => boatNames[i]!, REFERENCE_WRITERS[format]));
        },
      ),
      { seed: 31, numRuns: 1000 },
    );
  });

  it("GeoJSON: one document, each boat's arrays index-aligned and whole, with and without marks", () => {
    expect(head.marks.map((m) => [m.key, m.label])).toEqual([
      ["a", null],
      ["b", null],
    ]);
    fc.assert(
      fc.property(boats, fc.boolean(), (input, withMarks) => {
        const parsed = JSON.parse(write("geojson", input, withMarks ? head.marks : [])) as {
          features: Array<{ geometry: { type: string; coordinates: unknown }; properties: Record<string, unknown> }>;
        };
        const features = parsed.features.filter((f) => f.properties.kind === "boat");
        expect(parsed.features.length - features.length).toBe(withMarks ? 2 : 0);
        features.forEach((feature, i) => {
          const fixes = input[i]![0];
          const positions = fixes.length === 1 ? [feature.geometry.coordinates] : feature.geometry.coordinates;
          expect(feature.geometry.type).toBe(fixes.length === 1 ? "Point" : "LineString");
          expect(positions).toEqual(fixes.map((f) => [f.lon, f.lat]));
          expect(feature.properties.coordTimes).toEqual(fixes.map((f) => new Date(f.t).toISOString()));
          expect(feature.properties.sogKn).toEqual(fixes.map((f) => f.sogKn));
          expect(feature.properties.cogDeg).toEqual(fixes.map((f) => f.cogDeg));
        });
      }),
      SEED,
    );
  });

  it("CSV, GPX and KML: every fix once, in order", () => {
    fc.assert(
      fc.property(boats, (input) => {
        const rows = parseCsv(write("csv", input), { columns: true }) as Array<Record<string, string>>;
        expect(rows.map((r) => [r.entryId, Date.parse(r.timeUtc!), Number(r.lat), r.sogKn === "" ? null : Number(r.sogKn)])).toEqual(
          input.flatMap(([fixes], i) => fixes.map((f) => [`e${i}`, f.t, f.lat, f.sogKn])),
        );
        for (const [format, point] of [
          ["gpx", "trkpt"],
          ["kml", "when"],
        ] as const) {
          const doc = new DOMParser().parseFromString(write(format, input), "text/xml");
          expect(doc.getElementsByTagName(point).length).toBe(input.reduce((n, [fixes]) => n + fixes.length, 0));
        }
      }),
      SEED,
    );
  });
});
