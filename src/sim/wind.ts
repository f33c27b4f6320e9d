// The simulated wind: a per-second true wind field the boats sail in, and the race
// committee's readings of it (what the scenario records as `wind`).

import type { WindReading } from "../domain/scenario.js";
import { normalizeDegrees } from "../domain/geo.js";
import type { Rng } from "./random.js";

/** True wind per second from `startMs`; `twdDeg` is unwrapped (may leave 0-360). */
export interface WindField {
  startMs: number;
  twdDeg: Float64Array;
  twsKn: Float64Array;
}

/** The one big persistent shift of the race (a front or sea-breeze change). */
export interface WindShift {
  /** When the direction starts to turn. */
  atMs: number;
  /** When it has fully turned. */
  settledMs: number;
  /** Signed turn in degrees, positive clockwise (a veer). */
  deg: number;
}

export interface SimulatedWind {
  field: WindField;
  /** Committee readings from `startMs` to the end of the field, 60-120 s apart. */
  readings: WindReading[];
  readingTimesMs: number[];
  shift: WindShift;
  baseTwdDeg: number;
}

export interface WindOptions {
  startMs: number;
  endMs: number;
  baseTwdDeg: number;
  baseTwsKn: number;
  /** Roughly when the big shift should happen; it lands between two committee readings. */
  shiftNearMs: number;
}

/** The big shift turns within this time, shorter than the shortest reading interval. */
const SHIFT_RAMP_S = 30;
/** Readings straddling the shift must differ by this much before rounding (10 after). */
const MIN_SHIFT_SEEN_DEG = 11;
const DIRECTION_ONLY_PROBABILITY = 0.12;

export function simulateWind(rng: Rng, options: WindOptions): SimulatedWind {
  const { startMs, endMs, baseTwdDeg, baseTwsKn } = options;
  const seconds = Math.max(1, Math.ceil((endMs - startMs) / 1000) + 1);

  // Committee readings come first: the shift is placed between two of them so that the
  // readings show it in full (a ramp spread over two intervals could hide it).
  const readingTimesMs: number[] = [];
  for (let t = startMs; t <= endMs; t += rng.int(60_000, 120_000)) readingTimesMs.push(t);
  let before = 0;
  while (before + 2 < readingTimesMs.length && (readingTimesMs[before + 1] as number) <= options.shiftNearMs) before++;
  const shiftAtMs = Math.min((readingTimesMs[before] as number) + rng.int(5_000, 20_000), endMs);

  // Oscillations: two sine waves (periods of minutes) plus a slow mean-reverting walk,
  // as in an offshore breeze that swings back and forth around its mean.
  const oscillation = new Float64Array(seconds);
  const p1 = rng.range(420, 840);
  const a1 = rng.range(3, 6);
  const f1 = rng.range(0, 2 * Math.PI);
  const p2 = rng.range(1200, 2400);
  const a2 = rng.range(2, 4);
  const f2 = rng.range(0, 2 * Math.PI);
  let walk = 0;
  for (let s = 0; s < seconds; s++) {
    walk = walk * 0.998 + rng.normal() * 0.06;
    oscillation[s] = a1 * Math.sin((2 * Math.PI * s) / p1 + f1) + a2 * Math.sin((2 * Math.PI * s) / p2 + f2) + walk;
  }

  const speed = new Float64Array(seconds);
  const sp1 = rng.range(600, 1500);
  const sa1 = rng.range(0.6, 1.5);
  const sf1 = rng.range(0, 2 * Math.PI);
  const shiftTwsKn = rng.sign() * rng.range(1, 3.5);
  let gust = 0;
  for (let s = 0; s < seconds; s++) {
    // Gusts: AR(1) noise with a time constant of ~20 s.
    gust = gust * 0.95 + rng.normal() * 0.2;
    speed[s] = baseTwsKn + sa1 * Math.sin((2 * Math.PI * s) / sp1 + sf1) + gust;
  }

  const directionNoise = readingTimesMs.map(() => rng.normal() * 0.8);
  const speedNoise = readingTimesMs.map(() => rng.normal() * 0.3);
  const directionOnly = readingTimesMs.map(() => rng.chance(DIRECTION_ONLY_PROBABILITY));
  // At least one direction-only reading early on, so every race has one to show.
  if (!directionOnly.some(Boolean) && readingTimesMs.length > 1) {
    directionOnly[rng.int(1, Math.min(8, readingTimesMs.length - 1))] = true;
  }

  // Size the shift so that the two readings around it differ by >= 10 degrees even when
  // the oscillation happens to swing the other way at that moment.
  let shiftDeg = rng.sign() * rng.range(13, 20);
  const after = Math.min(before + 1, readingTimesMs.length - 1);
  if (after > before) {
    const seen =
      shiftDeg +
      sampleAt(oscillation, startMs, readingTimesMs[after] as number) -
      sampleAt(oscillation, startMs, readingTimesMs[before] as number) +
      (directionNoise[after] as number) -
      (directionNoise[before] as number);
    const sign = Math.sign(shiftDeg);
    if (sign * seen < MIN_SHIFT_SEEN_DEG) shiftDeg += sign * (MIN_SHIFT_SEEN_DEG - sign * seen);
  }

  const twdDeg = new Float64Array(seconds);
  const twsKn = new Float64Array(seconds);
  const shiftStartS = (shiftAtMs - startMs) / 1000;
  for (let s = 0; s < seconds; s++) {
    const ramp = smoothstep((s - shiftStartS) / SHIFT_RAMP_S);
    twdDeg[s] = baseTwdDeg + (oscillation[s] as number) + shiftDeg * ramp;
    twsKn[s] = Math.max(3, (speed[s] as number) + shiftTwsKn * ramp);
  }
  const field: WindField = { startMs, twdDeg, twsKn };

  const readings: WindReading[] = readingTimesMs.map((t, i) => {
    const twd = Math.round(normalizeDegrees(sampleAt(twdDeg, startMs, t) + (directionNoise[i] as number))) % 360;
    const tws = directionOnly[i] ? null : Math.max(0, Math.round((sampleAt(twsKn, startMs, t) + (speedNoise[i] as number)) * 10) / 10);
    return { measuredAtUtc: new Date(t).toISOString(), twd, tws };
  });

  return {
    field,
    readings,
    readingTimesMs,
    shift: { atMs: shiftAtMs, settledMs: shiftAtMs + SHIFT_RAMP_S * 1000, deg: shiftDeg },
    baseTwdDeg,
  };
}

function sampleAt(series: Float64Array, startMs: number, t: number): number {
  const i = Math.min(series.length - 1, Math.max(0, Math.floor((t - startMs) / 1000)));
  return series[i] as number;
}

function smoothstep(x: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  return x * x * (3 - 2 * x);
}
