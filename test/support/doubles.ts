// Doubles that find rounding: those mysql2's text parser gets wrong, the ends of the
// double range, and any double fast-check makes, within a range the API allows.

import fc from "fast-check";

/** Values the driver's own text parser misses by one unit in the last place, tiny and huge ones, and -0. */
export const AWKWARD_DOUBLES = [
  92.39999999999999, 93.31733925378097, 92.91925016159257, 0.1, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e21,
  123456789012345680000, -1e-7, -0,
] as const;

/** Any double in [min, max] (the awkward ones among them, scaled into it when they fall outside). */
export function doubleIn(min = -Number.MAX_VALUE, max = Number.MAX_VALUE): fc.Arbitrary<number> {
  const inRange = AWKWARD_DOUBLES.filter((v) => v >= min && v <= max);
  return fc.oneof(fc.double({ min, max, noNaN: true }), fc.constantFrom(...(inRange.length > 0 ? inRange : [min])));
}

/** The database keeps -0 as 0 (MariaDB); every other double as sent. */
export function asStored(value: number): number {
  return Object.is(value, -0) ? 0 : value;
}
