// OutputBytes: numbers exactly as String() writes them, times exactly as toISOString()
// writes them, over every value a double or a Date can hold, in chunks of any size.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OutputBytes } from "../../../src/domain/export/output-bytes.js";

const SEED = { seed: 31, numRuns: 5000 };
/** The range of a Date: ±100,000,000 days from the epoch. */
const DATE_RANGE_MS = 8.64e15;

function written(write: (out: OutputBytes) => void, chunkBytes?: number): string {
  const out = new OutputBytes(chunkBytes);
  write(out);
  return Buffer.concat(out.take(true)).toString("utf8");
}

describe("number", () => {
  /** Values as phones and the simulator store them: a few decimals of a degree or a knot. */
  const fewDecimals = fc
    .tuple(fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.integer({ min: 0, max: 15 }))
    .map(([v, k]) => Math.round(v * 10 ** k) / 10 ** k);

  it("writes what String() writes: any double, and doubles of a few decimals", () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fewDecimals, fc.integer({ min: -(2 ** 53), max: 2 ** 53 })), (value) => {
        expect(written((out) => out.number(value))).toBe(String(value));
      }),
      SEED,
    );
  });

  it("at the edges: zero and -0, exponents, 15 and 16 digits, the smallest and largest doubles", () => {
    const edges = [0, -0, 1, -1, 0.1, 0.5, 1e-6, 1e-7, 9.99e-7, 0.000001, 1e15 - 1, 1e15, 1e21, 1e21 - 65536, 123456789012345.6];
    const more = [0.30000000000000004, 99.99999999999999, 5e-324, Number.MAX_VALUE, Number.EPSILON, Infinity, -Infinity, Number.NaN];
    for (const value of [...edges, ...more, ...edges.map((v) => -v)]) expect(written((out) => out.number(value))).toBe(String(value));
  });

  it("repeated values (the remembered texts) write the same each time", () => {
    const speed = (12.34 * 1852) / 3600;
    const thrice = (out: OutputBytes) => {
      for (let i = 0; i < 3; i++) out.number(speed);
    };
    expect(written(thrice)).toBe(String(speed).repeat(3));
  });
});

describe("isoTime", () => {
  it("writes what toISOString() writes for every whole millisecond a Date can hold", () => {
    fc.assert(
      fc.property(fc.integer({ min: -DATE_RANGE_MS, max: DATE_RANGE_MS }), (ms) => {
        expect(written((out) => out.isoTime(ms))).toBe(new Date(ms).toISOString());
      }),
      SEED,
    );
  });

  it("writes consecutive times across days, months, leap days and the 4-digit years' edges", () => {
    const starts = ["1970-01-01T00:00:00Z", "2000-02-28T23:59:58Z", "2100-02-28T23:59:59Z", "2026-12-31T23:59:59Z", "0000-01-01T00:00:00Z"];
    const times = [...starts.map(Date.parse), -62_167_219_200_001, 253_402_300_799_999].flatMap((t) => [
      t - 1500,
      t - 1,
      t,
      t + 1,
      t + 999,
      t + 86_400_000,
    ]);
    const all = (out: OutputBytes) => {
      for (const t of times) out.isoTime(t);
    };
    expect(written(all)).toBe(times.map((t) => new Date(t).toISOString()).join(""));
  });
});

describe("chunks", () => {
  it("cut anywhere, they join to the same bytes, none empty, each handed on once", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double(), fc.string({ unit: "binary", maxLength: 40 })), { maxLength: 30 }),
        fc.integer({ min: 1, max: 64 }),
        (values, chunkBytes) => {
          const write = (out: OutputBytes) => {
            for (const v of values) {
              if (typeof v === "number") out.number(v);
              else out.text(v);
            }
          };
          const out = new OutputBytes(chunkBytes);
          write(out);
          const chunks = out.take(true);
          expect(Buffer.concat(chunks).toString("utf8")).toBe(written(write));
          for (const chunk of chunks) expect(chunk.length).toBeGreaterThan(0);
          expect(out.take(true)).toEqual([]);
        },
      ),
      { seed: 31, numRuns: 500 },
    );
  });
});
