// Tacks, gybes and penalty turns found in a boat's track, each with its time, position,
// course before and after, duration and loss (the contract's "Manoeuvres").
//
// A caller feeds the boat's kept fixes (after the jump filter) in time order to
// `consume`, each with the wind direction and the axis toward the next mark in force at
// it; a manoeuvre comes back once its loss is known, 30 s after its end. Each call costs
// the fixes of the last minute or so, never the whole track.
//
// How: headings are taken over 6 s chords (so a fix's GPS noise moves them by a few
// degrees, not tens), a heading is steady when the headings of the 6 s before are all within 10° of it,
// and everything between two steady headings is one turn. A turn that puts the wind on
// the other side is a tack or gybe; one that turns through 300° within 60 s is a penalty
// turn, however many times the wind crossed the bow and stern on the way round.

import { angleDifferenceDegrees, initialBearingDeg, type LatLon, planeDistanceM } from "../geo.js";
import { displacementAlongM, interpolate } from "./geometry.js";
import { dropOlder, type Fix, KNOT_M_PER_S, trueWindAngleDeg } from "./kinematics.js";

export type ManoeuvreKind = "tack" | "gybe" | "penaltyTurn";

export interface Manoeuvre extends LatLon {
  kind: ManoeuvreKind;
  /** When the bow or stern crossed the wind; a penalty turn's start. */
  atMs: number;
  cogBeforeDeg: number;
  cogAfterDeg: number;
  durationSeconds: number;
  /** Null when the track has nothing before the turn to take the VMG from. */
  lossM: number | null;
}

export interface WindContext {
  twdDeg: number;
  /** Toward the next mark: the wind axis on beats and runs, the mark on reaches. */
  axisDeg: number;
}

/** Headings are chords over this span. */
export const HEADING_SPAN_MS = 6_000;
/** A heading with every heading of the span before within this of it is steady. */
export const STEADY_TOLERANCE_DEG = 10;
/** Below this speed over the chord a heading means nothing (a boat at anchor, drifting). */
export const MIN_MANOEUVRE_SPEED_KN = 1.5;
/** A tack or gybe turns through at least this much between its steady courses. */
export const MIN_TURN_DEG = 30;
/** The wind must be clearly on a side before and after: |TWA| within [15, 165]. */
export const CLEAR_SIDE_MARGIN_DEG = 15;
export const PENALTY_TURN_DEG = 300;
export const PENALTY_WINDOW_MS = 60_000;
/** Loss runs from the turn's start to this long after its end, against the VMG of as long before it. */
export const LOSS_WINDOW_MS = 30_000;
/** A turn unsteady for longer than this (milling before the start) is no manoeuvre: forget it. */
export const LONGEST_TURN_MS = 120_000;

interface Heading extends LatLon {
  tMs: number;
  deg: number;
  /** Cumulative turn since the first heading: +clockwise. */
  unwrappedDeg: number;
  twaDeg: number;
}

interface Crossing extends LatLon {
  tMs: number;
  bow: boolean;
}

interface Pending extends Omit<Manoeuvre, "lossM"> {
  startMs: number;
  endMs: number;
  axisDeg: number;
}

export class ManoeuvreDetector {
  private fixes: Fix[] = [];
  /** The headings of the last few seconds, since the boat last went too slow for one. */
  private recent: Heading[] = [];
  private last: Heading | null = null;
  private anchor: Heading | null = null;
  private turn: Heading[] = [];
  private crossings: Crossing[] = [];
  private pending: Pending[] = [];

  /** Takes the next kept fix; returns the manoeuvres whose loss it completed. */
  consume(fix: Fix, wind: WindContext): Manoeuvre[] {
    this.fixes.push(fix);
    const heading = this.headingAt(fix, wind.twdDeg);
    // Below the speed a course means nothing, so a steady course must be built anew.
    if (heading === null) this.recent.length = 0;
    else this.take(heading, wind.axisDeg);
    const due = this.pending.length > 0 && this.pending.some((p) => fix.tMs >= p.endMs + LOSS_WINDOW_MS);
    const done = due ? this.report(fix.tMs) : [];
    this.trim(fix.tMs);
    return done;
  }

  /** The pending manoeuvres whose loss window has passed, with their loss; the others stay pending. */
  private report(nowMs: number): Manoeuvre[] {
    const done = this.pending
      .filter((p) => nowMs >= p.endMs + LOSS_WINDOW_MS)
      .map(({ startMs, endMs, axisDeg, ...m }) => ({ ...m, lossM: this.lossM(startMs, endMs, axisDeg) }));
    this.pending = this.pending.filter((p) => nowMs < p.endMs + LOSS_WINDOW_MS);
    return done;
  }

  /**
   * An independent copy of the windows it holds; fixes and headings are never changed in
   * place, so they are shared. (The arrays are emptied in place: this copies them.)
   */
  clone(): ManoeuvreDetector {
    const copy = new ManoeuvreDetector();
    copy.fixes = [...this.fixes];
    copy.recent = [...this.recent];
    copy.last = this.last;
    copy.anchor = this.anchor;
    copy.turn = [...this.turn];
    copy.crossings = [...this.crossings];
    copy.pending = [...this.pending];
    return copy;
  }

  /** The chord heading ending at the newest fix, placed at the chord's middle; null when too short or too slow. */
  private headingAt(fix: Fix, twdDeg: number): Heading | null {
    let from: Fix | undefined;
    for (let i = this.fixes.length - 2; i >= 0; i--) {
      if (this.fixes[i]!.tMs <= fix.tMs - HEADING_SPAN_MS) {
        from = this.fixes[i];
        break;
      }
    }
    if (from === undefined) return null;
    const seconds = (fix.tMs - from.tMs) / 1000;
    if (seconds > 2 * (HEADING_SPAN_MS / 1000)) return null;
    if (planeDistanceM(from, fix) / seconds / KNOT_M_PER_S < MIN_MANOEUVRE_SPEED_KN) return null;
    const deg = initialBearingDeg(from, fix);
    const previous = this.last;
    const unwrappedDeg = previous === null ? deg : previous.unwrappedDeg + angleDifferenceDegrees(previous.deg, deg);
    const middle = interpolate(from, fix, 0.5);
    // Written out, not spread: one heading a fix, and a spread cost more than the heading's maths.
    return { lat: middle.lat, lon: middle.lon, tMs: (from.tMs + fix.tMs) / 2, deg, unwrappedDeg, twaDeg: trueWindAngleDeg(twdDeg, deg) };
  }

  private take(heading: Heading, axisDeg: number): void {
    const previous = this.last;
    this.last = heading;
    this.recent.push(heading);
    const steady = this.isSteady(heading);
    if (this.anchor === null) {
      if (steady) this.anchor = heading;
      return;
    }
    if (previous !== null) this.noteCrossing(previous, heading);
    if (!steady) {
      this.turn.push(heading);
      if (heading.tMs - this.anchor.tMs > LONGEST_TURN_MS) this.forgetTurn(null);
      return;
    }
    const found = this.judge(this.anchor, heading, axisDeg);
    if (found !== null) this.pending.push(found);
    this.forgetTurn(heading);
  }

  private forgetTurn(anchor: Heading | null): void {
    this.anchor = anchor;
    // Every steady heading ends a turn, mostly an empty one: emptying an empty array is not free.
    if (this.turn.length > 0) this.turn.length = 0;
    if (this.crossings.length > 0) this.crossings.length = 0;
  }

  /**
   * Steady: every heading of the last span within the tolerance of this one. One heading
   * 6 s back would do for a sailing boat, but at anchor GPS noise points headings
   * anywhere, and now and then two agree by chance; six in a row do not.
   */
  private isSteady(heading: Heading): boolean {
    const spanStartMs = heading.tMs - HEADING_SPAN_MS;
    if (this.recent[0]!.tMs > spanStartMs) return false;
    for (let i = this.recent.length - 1; i >= 0 && this.recent[i]!.tMs >= spanStartMs; i--) {
      if (Math.abs(heading.unwrappedDeg - this.recent[i]!.unwrappedDeg) >= STEADY_TOLERANCE_DEG) return false;
    }
    return true;
  }

  /** Where the wind crossed the bow (through 0) or the stern (through 180) between two headings. */
  private noteCrossing(a: Heading, b: Heading): void {
    if (Math.sign(a.twaDeg) === Math.sign(b.twaDeg) || a.twaDeg === 0) return;
    const bow = Math.abs(a.twaDeg) + Math.abs(b.twaDeg) < 180;
    const fromA = bow ? Math.abs(a.twaDeg) : 180 - Math.abs(a.twaDeg);
    const total = bow ? Math.abs(a.twaDeg) + Math.abs(b.twaDeg) : 360 - Math.abs(a.twaDeg) - Math.abs(b.twaDeg);
    const f = total === 0 ? 0 : fromA / total;
    this.crossings.push({ ...interpolate(a, b, f), tMs: a.tMs + (b.tMs - a.tMs) * f, bow });
  }

  /**
   * What the turn from one steady heading to the next was, if anything. Asked at every
   * steady heading, so the common answer (nothing) allocates nothing.
   */
  private judge(before: Heading, after: Heading, axisDeg: number): Pending | null {
    const roundTurn = this.firstTurnedThrough(PENALTY_TURN_DEG, before, after);
    if (roundTurn !== undefined && roundTurn.tMs - before.tMs <= PENALTY_WINDOW_MS) {
      return pendingTurn(before, after, axisDeg, "penaltyTurn", before.tMs, before);
    }
    const crossing = this.crossings[0];
    if (crossing === undefined || Math.sign(before.twaDeg) === Math.sign(after.twaDeg)) return null;
    if (Math.abs(after.unwrappedDeg - before.unwrappedDeg) < MIN_TURN_DEG) return null;
    if (!clearSide(before.twaDeg) || !clearSide(after.twaDeg)) return null;
    const upwindBoth = Math.abs(before.twaDeg) < 90 && Math.abs(after.twaDeg) < 90;
    const downwindBoth = Math.abs(before.twaDeg) > 90 && Math.abs(after.twaDeg) > 90;
    const kind = upwindBoth ? "tack" : downwindBoth ? "gybe" : crossing.bow ? "tack" : "gybe";
    return pendingTurn(before, after, axisDeg, kind, crossing.tMs, crossing);
  }

  /** The first heading of the turn from `before`, ending at `after`, that has turned through `deg`. */
  private firstTurnedThrough(deg: number, before: Heading, after: Heading): Heading | undefined {
    for (const heading of this.turn) if (Math.abs(heading.unwrappedDeg - before.unwrappedDeg) >= deg) return heading;
    return Math.abs(after.unwrappedDeg - before.unwrappedDeg) >= deg ? after : undefined;
  }

  /**
   * The along-axis distance the boat would have made from the turn's start to 30 s after
   * its end at its VMG of the 30 s before, minus what it made.
   */
  private lossM(startMs: number, endMs: number, axisDeg: number): number | null {
    const first = this.fixes[0];
    if (first === undefined || first.tMs >= startMs) return null;
    const beforeMs = Math.max(first.tMs, startMs - LOSS_WINDOW_MS);
    const atStart = this.positionAt(startMs);
    const vmgMPerS = displacementAlongM(this.positionAt(beforeMs), atStart, axisDeg) / ((startMs - beforeMs) / 1000);
    const afterMs = endMs + LOSS_WINDOW_MS;
    return (vmgMPerS * (afterMs - startMs)) / 1000 - displacementAlongM(atStart, this.positionAt(afterMs), axisDeg);
  }

  /** The track's position at a time inside the kept fixes, interpolated. */
  private positionAt(tMs: number): LatLon {
    const i = this.fixes.findIndex((f) => f.tMs >= tMs);
    if (i <= 0) return this.fixes[Math.max(0, i)] ?? this.fixes.at(-1)!;
    const a = this.fixes[i - 1]!;
    const b = this.fixes[i]!;
    return interpolate(a, b, (tMs - a.tMs) / (b.tMs - a.tMs));
  }

  /** Keeps the fixes a pending loss or the current turn may still read, and headings for the steadiness test. */
  private trim(nowMs: number): void {
    let oldestTurnMs = this.anchor?.tMs ?? nowMs;
    for (const p of this.pending) oldestTurnMs = Math.min(oldestTurnMs, p.startMs);
    dropOlder(this.fixes, Math.min(oldestTurnMs, nowMs - 2 * HEADING_SPAN_MS) - LOSS_WINDOW_MS - 1_000);
    dropOlder(this.recent, nowMs - 3 * HEADING_SPAN_MS);
  }
}

/** A turn judged, its loss still to come. */
function pendingTurn(before: Heading, after: Heading, axisDeg: number, kind: ManoeuvreKind, atMs: number, at: LatLon): Pending {
  const startMs = before.tMs;
  const endMs = Math.max(startMs, after.tMs - HEADING_SPAN_MS);
  return {
    cogBeforeDeg: before.deg,
    cogAfterDeg: after.deg,
    durationSeconds: (endMs - startMs) / 1000,
    startMs,
    endMs,
    axisDeg,
    kind,
    atMs,
    lat: at.lat,
    lon: at.lon,
  };
}

function clearSide(twaDeg: number): boolean {
  const off = Math.abs(twaDeg);
  return off >= CLEAR_SIDE_MARGIN_DEG && off <= 180 - CLEAR_SIDE_MARGIN_DEG;
}
