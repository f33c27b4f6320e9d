// Ground truth of a simulated race: what each boat really did (its tacks and gybes, the
// steps it passed, its course progress and VMG), recorded second by second as it sails.

import type { CourseStepKind } from "../domain/scenario.js";
import { angleDifferenceDegrees, normalizeDegrees } from "../domain/geo.js";
import { upwindUnit, type CourseGeometry, type LocalFrame, type Point } from "./course.js";
import { KNOTS_TO_MS } from "./polar.js";

/** The analytics' rule: a mark or gate mark is passed on first coming this close. */
export const PASSING_RADIUS_M = 50;
/** A leg within this many degrees of the wind (or of the run) is upwind (downwind). */
const WIND_LEG_DEG = 45;
/** Heading changes of at least this much per second make a turn; wind-following is slower. */
const TURNING_DEG_S = 1;
/**
 * The wind back on its side this soon (a bow shot head to wind and falling back, a
 * stern swung past the run) undoes the crossing: the boat ends as it began, no tack or gybe.
 * The simulator's boats tack at least 10 s apart.
 */
const UNDONE_WITHIN_MS = 8_000;

export type LegKind = "upwind" | "downwind" | "reach";

/** The committee's wind readings, ascending, which the analytics measure legs against. */
export interface CommitteeWind {
  timesMs: readonly number[];
  twdDeg: readonly number[];
}

export interface TruthPassing {
  /** 1 = the start line, as in the analytics contract. */
  stepIndex: number;
  kind: CourseStepKind;
  label: string;
  /** Interpolated within the simulator's one-second step. */
  atMs: number;
  courseVersion: number;
}

export interface TruthManoeuvre {
  kind: "tack" | "gybe";
  /** The moment the bow (tack) or stern (gybe) crossed the true wind. */
  atMs: number;
  lat: number;
  lon: number;
  /** The leg the boat was on (0 before its start, legs + 1 after its finish) and that leg's kind (leg 1's, the last's). */
  legIndex: number;
  legKind: LegKind;
  /** The turn that holds the crossing: from when the heading started to swing until it settled. */
  turnStartMs: number;
  turnEndMs: number;
  headingBeforeDeg: number;
  headingAfterDeg: number;
}

/**
 * One row per whole second from the gun until the boat finishes, retires or the race
 * stops: where it truly was (no GPS noise or jitter) and how it sailed the next second.
 */
export interface TruthSamples {
  tMs: Float64Array;
  lat: Float64Array;
  lon: Float64Array;
  sogKn: Float64Array;
  cogDeg: Float64Array;
  /** The committee reading in force, the one legs and VMG are measured against. */
  twdDeg: Float64Array;
  /** 0 before the start; n on leg n. */
  legIndex: Int16Array;
  /** The kind of leg n (of leg 1 before the start) against the committee wind. */
  legKind: LegKind[];
  /** Legs completed plus progress in the current one, metres (negative below the start line). */
  progressM: Float64Array;
  /** Velocity over the next second along the leg's wind axis toward the next mark, or toward the mark on a reach. */
  vmgKn: Float64Array;
}

export interface BoatTruth {
  entryId: string;
  hasPhone: boolean;
  startedAtMs: number | null;
  finishedAtMs: number | null;
  retiredAtMs: number | null;
  passings: TruthPassing[];
  /** Every tack and gybe from the start of its track, pre-start milling included (legIndex 0). */
  manoeuvres: TruthManoeuvre[];
  samples: TruthSamples;
}

export interface StartGroupTruth {
  startGroupId: string;
  gunMs: number;
  boats: BoatTruth[];
}

export interface RaceTruth {
  raceId: string;
  groups: StartGroupTruth[];
}

/** A leg of `course` (1 = start to first mark) measured against the wind from `twdDeg`. */
interface LegMeasure {
  kind: LegKind;
  from: Point;
  to: Point;
  /** Unit direction progress is measured along: the wind axis toward `to`, or the rhumb line. */
  axis: Point;
  lengthM: number;
}

function measureLeg(course: CourseGeometry, leg: number, twdDeg: number): LegMeasure {
  const from = (course.steps[leg - 1] ?? course.steps[0])?.centre as Point;
  const to = (course.steps[leg] ?? course.steps[leg - 1])?.centre as Point;
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const rhumb = Math.hypot(dx, dy) || 1;
  const bearing = (Math.atan2(dx, dy) * 180) / Math.PI;
  const off = Math.abs(angleDifferenceDegrees(twdDeg, bearing));
  const kind: LegKind = off <= WIND_LEG_DEG ? "upwind" : off >= 180 - WIND_LEG_DEG ? "downwind" : "reach";
  const up = upwindUnit(twdDeg);
  const axis = kind === "reach" ? { x: dx / rhumb, y: dy / rhumb } : kind === "upwind" ? up : { x: -up.x, y: -up.y };
  return { kind, from, to, axis, lengthM: dx * axis.x + dy * axis.y };
}

/** The mean of the recorded VMG over the `seconds` before `atMs` (the analytics' 10 s window). */
export function meanVmgKn(samples: TruthSamples, atMs: number, seconds = 10): number | null {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < samples.tMs.length; i++) {
    const t = samples.tMs[i] as number;
    if (t >= atMs - seconds * 1000 && t < atMs) {
      sum += samples.vmgKn[i] as number;
      n++;
    }
  }
  return n === seconds ? sum / n : null;
}

interface OpenTurn {
  startMs: number;
  headingBefore: number;
  direction: number;
  pending: TruthManoeuvre[];
}

/**
 * Watches one boat sail, one call per simulated second, and keeps its truth. It draws no
 * random numbers, so recording never changes the race.
 */
export class TruthRecorder {
  private readonly passings: TruthPassing[] = [];
  private readonly manoeuvres: TruthManoeuvre[] = [];
  private readonly rows: TruthSamples;
  private n = 0;
  private passed = 0;
  private startedAtMs: number | null = null;
  private finishedAtMs: number | null = null;
  private retiredAtMs: number | null = null;
  private lastHeading = Number.NaN;
  private lastTwa = Number.NaN;
  private turn: OpenTurn | null = null;
  private wind = 0;
  private legs: { course: CourseGeometry; twd: number; measures: LegMeasure[]; doneM: number[] } | null = null;

  constructor(
    private readonly entryId: string,
    private readonly hasPhone: boolean,
    private readonly gunMs: number,
    private readonly committee: CommitteeWind,
    private readonly frame: LocalFrame,
    maxSeconds: number,
  ) {
    const n = Math.max(0, Math.ceil(maxSeconds));
    this.rows = {
      tMs: new Float64Array(n),
      lat: new Float64Array(n),
      lon: new Float64Array(n),
      sogKn: new Float64Array(n),
      cogDeg: new Float64Array(n),
      twdDeg: new Float64Array(n),
      legIndex: new Int16Array(n),
      legKind: new Array<LegKind>(n),
      progressM: new Float64Array(n),
      vmgKn: new Float64Array(n),
    };
  }

  /**
   * The second from `nowMs`: the boat sails from `p0` to `p1` on `headingDeg` in the true
   * wind `trueTwdDeg`, on `course`; `racing` from the gun until it finishes or retires (going
   * back to start included). The committee reading in force is the newest at or before `nowMs`.
   */
  second(nowMs: number, course: CourseGeometry, p0: Point, p1: Point, headingDeg: number, trueTwdDeg: number, racing: boolean): void {
    const twd = this.committeeTwd(nowMs);
    this.watchTurn(nowMs, course, twd, p0, headingDeg, trueTwdDeg);
    if (!racing || nowMs < this.gunMs) return;
    this.sample(nowMs, course, p0, p1, headingDeg, twd);
    this.watchPassing(nowMs, course, p0, p1);
  }

  /** The finish is the simulator's own crossing (the one the phone records), a passing once every step before it is. */
  finished(atMs: number, course: CourseGeometry): void {
    this.finishedAtMs = atMs;
    if (this.passed === course.steps.length - 1) this.pass(this.passed, course, atMs);
  }

  retired(atMs: number): void {
    this.retiredAtMs = atMs;
  }

  result(): BoatTruth {
    this.closeTurn(Number.NaN);
    const r = this.rows;
    const n = this.n;
    return {
      entryId: this.entryId,
      hasPhone: this.hasPhone,
      startedAtMs: this.startedAtMs,
      finishedAtMs: this.finishedAtMs,
      retiredAtMs: this.retiredAtMs,
      passings: this.passings,
      manoeuvres: this.manoeuvres,
      samples: {
        tMs: r.tMs.slice(0, n),
        lat: r.lat.slice(0, n),
        lon: r.lon.slice(0, n),
        sogKn: r.sogKn.slice(0, n),
        cogDeg: r.cogDeg.slice(0, n),
        twdDeg: r.twdDeg.slice(0, n),
        legIndex: r.legIndex.slice(0, n),
        legKind: r.legKind.slice(0, n),
        progressM: r.progressM.slice(0, n),
        vmgKn: r.vmgKn.slice(0, n),
      },
    };
  }

  /** The legs change only with the course version and the committee reading: measure them once per pair. */
  private legsOf(course: CourseGeometry, twd: number): { measures: LegMeasure[]; doneM: number[] } {
    const cached = this.legs;
    if (cached && cached.course === course && cached.twd === twd) return cached;
    const measures: LegMeasure[] = [];
    const doneM: number[] = [];
    let done = 0;
    for (let k = 1; k < course.steps.length; k++) {
      const m = measureLeg(course, k, twd);
      measures.push(m);
      doneM.push(done);
      done += m.lengthM;
    }
    this.legs = { course, twd, measures, doneM };
    return this.legs;
  }

  /** The kind of the leg the boat is on: of leg 1 before its start, of the last leg after its finish. */
  private legKindOf(course: CourseGeometry, twd: number): LegKind {
    const { measures } = this.legsOf(course, twd);
    return (measures[Math.min(Math.max(1, this.passed), measures.length) - 1] as LegMeasure).kind;
  }

  private committeeTwd(nowMs: number): number {
    const times = this.committee.timesMs;
    while (this.wind + 1 < times.length && (times[this.wind + 1] as number) <= nowMs) this.wind++;
    return this.committee.twdDeg[this.wind] as number;
  }

  private sample(nowMs: number, course: CourseGeometry, p0: Point, p1: Point, headingDeg: number, twd: number): void {
    if (this.n >= this.rows.tMs.length) return;
    const leg = Math.max(1, this.passed);
    const legs = this.legsOf(course, twd);
    const m = legs.measures[leg - 1] as LegMeasure;
    const done = legs.doneM[leg - 1] as number;
    const inLeg = (p0.x - m.from.x) * m.axis.x + (p0.y - m.from.y) * m.axis.y;
    // VMC on a reach looks at the mark itself, not along the rhumb line.
    let dir = m.axis;
    if (m.kind === "reach") {
      const d = Math.hypot(m.to.x - p0.x, m.to.y - p0.y) || 1;
      dir = { x: (m.to.x - p0.x) / d, y: (m.to.y - p0.y) / d };
    }
    const vx = p1.x - p0.x;
    const vy = p1.y - p0.y;
    const at = toLatLonExact(this.frame, p0);
    const i = this.n++;
    const r = this.rows;
    r.tMs[i] = nowMs;
    r.lat[i] = at.lat;
    r.lon[i] = at.lon;
    r.sogKn[i] = Math.hypot(vx, vy) / KNOTS_TO_MS;
    r.cogDeg[i] = normalizeDegrees(headingDeg);
    r.twdDeg[i] = twd;
    r.legIndex[i] = this.passed;
    r.legKind[i] = m.kind;
    r.progressM[i] = done + inLeg;
    r.vmgKn[i] = (vx * dir.x + vy * dir.y) / KNOTS_TO_MS;
  }

  /** The next step in order: start line from the pre-start side, a mark's 50 m, a gate's line or 50 m. */
  private watchPassing(nowMs: number, course: CourseGeometry, p0: Point, p1: Point): void {
    const k = this.passed;
    const step = course.steps[k];
    if (!step || step.kind === "finish") return;
    let f = -1;
    if (step.kind === "start") {
      const [a, b] = step.marks;
      const next = course.steps[1]?.centre;
      if (a && b && next && side(a, b, p0) !== side(a, b, next)) f = crossingFraction(p0, p1, a, b);
    } else {
      f = enteringFraction(p0, p1, step.marks, PASSING_RADIUS_M);
      if (step.kind === "gate") {
        const [a, b] = step.marks;
        const g = a && b ? crossingFraction(p0, p1, a, b) : -1;
        if (g >= 0 && (f < 0 || g < f)) f = g;
      }
    }
    if (f >= 0) this.pass(k, course, nowMs + f * 1000);
  }

  private pass(k: number, course: CourseGeometry, atMs: number): void {
    const step = course.steps[k];
    if (!step) return;
    if (k === 0) this.startedAtMs = atMs;
    this.passings.push({ stepIndex: k + 1, kind: step.kind, label: step.label, atMs, courseVersion: course.version });
    this.passed = k + 1;
  }

  /** A sign change of the true wind angle is a tack through 0 or a gybe through 180. */
  private watchTurn(nowMs: number, course: CourseGeometry, twd: number, p0: Point, headingDeg: number, trueTwdDeg: number): void {
    const twa = angleDifferenceDegrees(trueTwdDeg, headingDeg);
    if (!Number.isNaN(this.lastHeading)) {
      const delta = angleDifferenceDegrees(this.lastHeading, headingDeg);
      const direction = Math.abs(delta) >= TURNING_DEG_S ? Math.sign(delta) : 0;
      if (this.turn && this.turn.direction !== direction) this.closeTurn(nowMs);
      if (!this.turn && direction !== 0) {
        this.turn = { startMs: nowMs, headingBefore: this.lastHeading, direction, pending: [] };
      }
      const last = this.manoeuvres[this.manoeuvres.length - 1];
      if (twa !== 0 && Math.sign(twa) !== Math.sign(this.lastTwa) && last && nowMs - last.atMs < UNDONE_WITHIN_MS) {
        this.manoeuvres.pop();
        if (this.turn?.pending[this.turn.pending.length - 1] === last) this.turn.pending.pop();
      } else if (twa !== 0 && Math.sign(twa) !== Math.sign(this.lastTwa)) {
        const at = toLatLonExact(this.frame, p0);
        const m: TruthManoeuvre = {
          kind: Math.abs(twa) + Math.abs(this.lastTwa) < 180 ? "tack" : "gybe",
          atMs: nowMs,
          lat: at.lat,
          lon: at.lon,
          legIndex: this.passed,
          legKind: this.legKindOf(course, twd),
          turnStartMs: nowMs,
          turnEndMs: nowMs,
          headingBeforeDeg: normalizeDegrees(this.lastHeading),
          headingAfterDeg: normalizeDegrees(headingDeg),
        };
        this.manoeuvres.push(m);
        this.turn?.pending.push(m);
      }
    }
    this.lastHeading = headingDeg;
    if (twa !== 0) this.lastTwa = twa;
  }

  private closeTurn(endMs: number): void {
    const turn = this.turn;
    if (!turn) return;
    for (const m of turn.pending) {
      m.turnStartMs = turn.startMs;
      m.turnEndMs = Number.isNaN(endMs) ? m.atMs : endMs - 1000;
      m.headingBeforeDeg = normalizeDegrees(turn.headingBefore);
      m.headingAfterDeg = normalizeDegrees(this.lastHeading);
    }
    this.turn = null;
  }
}

function toLatLonExact(frame: LocalFrame, p: Point): { lat: number; lon: number } {
  return { lat: frame.origin.lat + p.y / frame.metresPerDegLat, lon: frame.origin.lon + p.x / frame.metresPerDegLon };
}

function side(a: Point, b: Point, p: Point): number {
  return Math.sign((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x));
}

/** Where along p0->p1 (0-1) it crosses the segment a-b, or -1. */
function crossingFraction(p0: Point, p1: Point, a: Point, b: Point): number {
  const rx = p1.x - p0.x;
  const ry = p1.y - p0.y;
  const sx = b.x - a.x;
  const sy = b.y - a.y;
  const denom = rx * sy - ry * sx;
  if (denom === 0) return -1;
  const qx = a.x - p0.x;
  const qy = a.y - p0.y;
  const along = (qx * sy - qy * sx) / denom;
  const onLine = (qx * ry - qy * rx) / denom;
  return along >= 0 && along <= 1 && onLine >= 0 && onLine <= 1 ? along : -1;
}

/** Where along p0->p1 (0-1) it first comes within `radius` of one of `marks`, or -1. */
function enteringFraction(p0: Point, p1: Point, marks: readonly Point[], radius: number): number {
  let best = -1;
  for (const m of marks) {
    // Solve |p0 + f (p1 - p0) - m| = radius for the smallest f in [0, 1].
    const dx = p1.x - p0.x;
    const dy = p1.y - p0.y;
    const ox = p0.x - m.x;
    const oy = p0.y - m.y;
    const a = dx * dx + dy * dy;
    const b = 2 * (ox * dx + oy * dy);
    const c = ox * ox + oy * oy - radius * radius;
    let f = -1;
    if (c <= 0) f = 0;
    else if (a > 0) {
      const disc = b * b - 4 * a * c;
      if (disc >= 0) {
        const root = (-b - Math.sqrt(disc)) / (2 * a);
        if (root >= 0 && root <= 1) f = root;
      }
    }
    if (f >= 0 && (best < 0 || f < best)) best = f;
  }
  return best;
}
