// One simulated boat sailing one race second by second: pre-start milling, beating and
// running between rounding waypoints, finishing, and the phone track it records.

import type { Track } from "../domain/scenario.js";
import { angleDifferenceDegrees, normalizeDegrees } from "../domain/geo.js";
import {
  roundingWaypoint,
  rightOfUpwindUnit,
  upwindUnit,
  type CourseGeometry,
  type LocalFrame,
  type Point,
  type RoundingChoice,
} from "./course.js";
import { boatSpeedKn, DOWNWIND_TWA_DEG, KNOTS_TO_MS, UPWIND_TWA_DEG } from "./polar.js";
import type { Rng } from "./random.js";
import type { TruthRecorder } from "./truth.js";
import type { WindField } from "./wind.js";

/** Tracks start this long before the gun: boats milling in the start area. */
export const PRESTART_MS = 5 * 60_000;
/** Phones keep recording briefly after the finish and after retiring. */
const FINISH_TAIL_MS = 30_000;
const RETIRE_TAIL_MS = 60_000;

/** A rounding waypoint counts as reached within this distance. */
const ARRIVAL_M = 8;
/** Closer than this, a boat steers straight for the waypoint, shooting head to wind if need be. */
const SHOOT_M = 25;
const TURN_RATE_DEG_S = 14;
/** Per second, speed closes this share of the gap to the polar: ~8 s time constant. */
const ACCELERATION = 0.12;
const MIN_RANDOM_TURN_GAP_MS = 30_000;
const MIN_CORRIDOR_TURN_GAP_MS = 10_000;
/** A gap in the phone's fixes starts on average once per 15 minutes. */
const GAP_PROBABILITY = 1 / 900;
const NULL_SOG_PROBABILITY = 0.004;
const NULL_COG_PROBABILITY = 0.004;

export interface BoatSetup {
  gunMs: number;
  /** The race stops here: no fix at or after it, no finish after it. */
  capEndMs: number;
  /** Course versions, oldest first; the first is applied before tracks start. */
  courses: readonly CourseGeometry[];
  wind: WindField;
  frame: LocalFrame;
  /** Live-order reading times of the group, ascending, all >= gun. */
  readingTimesMs: readonly number[];
  retireAtMs: number | null;
  recordsTrack: boolean;
  speedFactor: number;
  skill: number;
  /**
   * A boat over the line at the gun, or past the line's end without crossing it, sails
   * back below it and starts again (rules 28 and 29.1), instead of sailing on.
   */
  overEarlyReturn?: boolean;
  /** Watches the boat sail, when the caller wants the race's ground truth. */
  truth?: TruthRecorder;
}

export interface BoatRun {
  track: Track | null;
  finishMs: number | null;
  retiredMs: number | null;
  /** Metres along the course's rhumb-line legs at each reading; NaN when not racing. */
  progressM: Float64Array;
}

enum Phase {
  Milling,
  Approaching,
  Holding,
  /** Over the line at the gun, going back to start properly. */
  Returning,
  Racing,
  Finished,
  Retired,
}

/** Steering memory: which tack the boat is on and when it last tacked or gybed. */
interface Helm {
  tack: number;
  lastTurnMs: number;
  overstandDeg: number;
  randomTurnPerS: number;
}

export function sailBoat(entryId: string, setup: BoatSetup, rng: Rng, gps: Rng): BoatRun {
  const { gunMs, capEndMs, courses, wind, frame, readingTimesMs } = setup;
  let course = courses[0] as CourseGeometry;
  let courseIndex = 0;
  const trackStartMs = gunMs - PRESTART_MS;
  const windOffset = Math.round((trackStartMs - wind.startMs) / 1000);
  const windLast = wind.twdDeg.length - 1;

  // Choices for every step up front, so a course change re-aims with the same intent.
  const choices: RoundingChoice[] = course.steps.map(() => ({
    offsetM: rng.range(10, 20),
    gateMark: rng.chance(0.5) ? 0 : 1,
    lineFraction: rng.next(),
  }));

  const start = course.steps[0];
  const pin = start?.marks[0];
  const committee = start?.marks[1];
  if (!start || !pin || !committee) throw new Error("course must open with a start line");
  const u = upwindUnit(course.windDeg);
  const c = rightOfUpwindUnit(course.windDeg);
  const halfLine = Math.hypot(committee.x - pin.x, committee.y - pin.y) / 2;
  const belowLine = (below: number, across: number): Point => ({
    x: start.centre.x - u.x * below + c.x * across,
    y: start.centre.y - u.y * below + c.y * across,
  });
  const spotFraction = rng.range(0.05, 0.95);
  const startSpot = {
    x: pin.x + (committee.x - pin.x) * spotFraction - u.x * rng.range(6, 14),
    y: pin.y + (committee.y - pin.y) * spotFraction - u.y * rng.range(6, 14),
  };
  const approachAtMs = gunMs - rng.int(55, 110) * 1000;

  const twd0 = wind.twdDeg[Math.min(windLast, Math.max(0, windOffset))] as number;
  const first = belowLine(rng.range(40, 300), rng.range(-halfLine - 80, halfLine + 80));
  let x = first.x;
  let y = first.y;
  let heading = twd0 + rng.sign() * rng.range(70, 120);
  let speed = rng.range(1.5, 3);
  const helm: Helm = {
    tack: angleDifferenceDegrees(twd0, heading) >= 0 ? 1 : -1,
    lastTurnMs: trackStartMs,
    overstandDeg: 2 + (1 - setup.skill) * 8,
    randomTurnPerS: 1 / (160 + 220 * setup.skill),
  };

  let phase = Phase.Milling;
  let target = belowLine(rng.range(60, 320), rng.range(-halfLine - 60, halfLine + 60));
  let targetUntilMs = trackStartMs + rng.int(25, 60) * 1000;
  let step = 0;
  // The current leg's rhumb line, for keeping boats inside a sensible corridor.
  let legFrom: Point = start.centre;
  let legUx = 0;
  let legUy = 1;
  let corridorM = Infinity;
  const aimAt = (k: number): void => {
    step = k;
    target = roundingWaypoint(course, k, choices[k] as RoundingChoice);
    const from = (course.steps[k - 1] ?? start).centre;
    const to = (course.steps[k] ?? start).centre;
    const len = Math.hypot(to.x - from.x, to.y - from.y) || 1;
    legFrom = from;
    legUx = (to.x - from.x) / len;
    legUy = (to.y - from.y) / len;
    corridorM = Math.max(150, 0.3 * len);
  };
  const finishStep = course.steps.length - 1;

  let crossedStart = false;
  let finishMs: number | null = null;
  let retiredMs: number | null = null;
  let endAtMs = Infinity;

  const progressM = new Float64Array(readingTimesMs.length).fill(NaN);
  let nextReading = 0;

  const recording = setup.recordsTrack;
  const t: number[] = [];
  const lat: number[] = [];
  const lon: number[] = [];
  const sogKn: (number | null)[] = [];
  const cogDeg: (number | null)[] = [];
  const accuracyM: (number | null)[] = [];
  // GPS error is correlated from fix to fix (AR(1), ~2.5 m standard deviation).
  let noiseX = gps.normal() * 2.5;
  let noiseY = gps.normal() * 2.5;
  let accuracy = 4.5;
  let gapLeft = 0;
  const lat0 = frame.origin.lat;
  const lon0 = frame.origin.lon;
  const mLat = frame.metresPerDegLat;
  const mLon = frame.metresPerDegLon;

  for (let i = 0; ; i++) {
    const now = trackStartMs + i * 1000;
    if (now >= capEndMs || now > endAtMs) break;
    const wi = Math.min(windLast, Math.max(0, windOffset + i));
    const twd = wind.twdDeg[wi] as number;
    const tws = wind.twsKn[wi] as number;

    // A new course version re-aims a boat still heading for the moved mark.
    while (courseIndex + 1 < courses.length && (courses[courseIndex + 1] as CourseGeometry).appliedFromMs <= now) {
      courseIndex++;
      course = courses[courseIndex] as CourseGeometry;
      if (phase === Phase.Racing) aimAt(step);
    }

    const overLine = (x - start.centre.x) * u.x + (y - start.centre.y) * u.y > 0;
    const mustReturn = setup.overEarlyReturn === true && overLine && !crossedStart;
    if (mustReturn && ((phase < Phase.Returning && now >= gunMs) || (phase === Phase.Racing && step === 1))) {
      phase = Phase.Returning;
      target = { x: startSpot.x - u.x * 30, y: startSpot.y - u.y * 30 };
    } else if (phase < Phase.Racing && now >= gunMs && !(phase === Phase.Returning && overLine)) {
      phase = Phase.Racing;
      aimAt(1);
    } else if (phase === Phase.Milling && now >= approachAtMs) {
      phase = Phase.Approaching;
      target = startSpot;
    }
    if (phase === Phase.Racing && setup.retireAtMs !== null && now >= setup.retireAtMs) {
      phase = Phase.Retired;
      retiredMs = now;
      endAtMs = now + RETIRE_TAIL_MS;
      setup.truth?.retired(now);
    }

    const dx = target.x - x;
    const dy = target.y - y;
    const distance = Math.sqrt(dx * dx + dy * dy);
    if (phase === Phase.Racing && step < finishStep && distance < ARRIVAL_M) {
      aimAt(step + 1);
    } else if (phase === Phase.Milling && (distance < 20 || now >= targetUntilMs)) {
      target = belowLine(rng.range(60, 320), rng.range(-halfLine - 60, halfLine + 60));
      targetUntilMs = now + rng.int(25, 60) * 1000;
    } else if (phase === Phase.Approaching && distance < 12) {
      phase = Phase.Holding;
    }

    const headingRad = (heading * Math.PI) / 180;
    const vx = speed * Math.sin(headingRad);
    const vy = speed * Math.cos(headingRad);

    if (recording) {
      noiseX = noiseX * 0.92 + gps.normal();
      noiseY = noiseY * 0.92 + gps.normal();
      accuracy = Math.min(15, Math.max(2, 4.5 + (accuracy - 4.5) * 0.97 + gps.normal() * 0.15));
      if (gapLeft > 0) {
        gapLeft--;
      } else if (i > 0 && gps.chance(GAP_PROBABILITY)) {
        gapLeft = gps.int(2, 7) - 1;
      } else {
        // Phones sample on their own clock: up to 0.18 s late, never out of order.
        const jitterMs = gps.int(0, 180);
        const fx = x + (vx * jitterMs) / 1000 + noiseX;
        const fy = y + (vy * jitterMs) / 1000 + noiseY;
        t.push(now + jitterMs);
        lat.push(Math.round((lat0 + fy / mLat) * 1e7) / 1e7);
        lon.push(Math.round((lon0 + fx / mLon) * 1e7) / 1e7);
        const knots = speed / KNOTS_TO_MS;
        sogKn.push(gps.chance(NULL_SOG_PROBABILITY) ? null : Math.max(0, Math.round((knots + gps.normal() * 0.08) * 100) / 100));
        const cogNoise = gps.normal() * (1 + 3 / (knots + 0.5));
        cogDeg.push(gps.chance(NULL_COG_PROBABILITY) ? null : (Math.round(normalizeDegrees(heading + cogNoise) * 10) / 10) % 360);
        accuracyM.push(Math.round(accuracy * 10) / 10);
      }
    }

    while (nextReading < readingTimesMs.length && (readingTimesMs[nextReading] as number) < now + 1000) {
      if (phase === Phase.Racing) {
        const mark = (course.steps[step] ?? start).centre;
        progressM[nextReading] = (course.cumulativeM[step] as number) - Math.hypot(mark.x - x, mark.y - y);
      } else if (phase === Phase.Finished) {
        progressM[nextReading] = course.totalM;
      }
      nextReading++;
    }

    // Steer, then sail one second.
    let desired: number;
    let speedScale = 1;
    let twaOverride = -1;
    switch (phase) {
      case Phase.Milling:
        desired = steer(helm, dx, dy, distance, twd, now, false, false, 0);
        speedScale = 0.55;
        break;
      case Phase.Approaching:
      case Phase.Returning:
        desired = steer(helm, dx, dy, distance, twd, now, false, false, 0);
        speedScale = 0.85;
        break;
      case Phase.Holding:
        // Luffing on the line, sails flapping, waiting for the gun.
        desired = twd + helm.tack * 40;
        twaOverride = 20;
        speedScale = 0.3;
        break;
      case Phase.Racing: {
        const crossM = (x - legFrom.x) * legUy - (y - legFrom.y) * legUx;
        const crossV = vx * legUy - vy * legUx;
        const outward = Math.abs(crossM) > corridorM && crossM * crossV > 0;
        desired = steer(helm, dx, dy, distance, twd, now, true, outward, rng.next());
        break;
      }
      case Phase.Finished:
        desired = heading;
        speedScale = 0.4;
        break;
      case Phase.Retired:
        desired = heading;
        speedScale = 0.5;
        break;
    }

    const turn = angleDifferenceDegrees(heading, desired);
    heading = normalizeDegrees(heading + Math.min(TURN_RATE_DEG_S, Math.max(-TURN_RATE_DEG_S, turn)));
    const twa = twaOverride >= 0 ? twaOverride : Math.abs(angleDifferenceDegrees(twd, heading));
    const targetSpeed = boatSpeedKn(twa, tws) * KNOTS_TO_MS * setup.speedFactor * speedScale;
    speed += (targetSpeed - speed) * ACCELERATION;
    const rad = (heading * Math.PI) / 180;
    const px = x;
    const py = y;
    x += speed * Math.sin(rad);
    y += speed * Math.cos(rad);
    setup.truth?.second(now, course, { x: px, y: py }, { x, y }, heading, twd, phase === Phase.Racing || phase === Phase.Returning);

    if (phase === Phase.Racing && step === 1 && !crossedStart) crossedStart = crossingFraction(px, py, x, y, pin, committee) >= 0;
    if (phase === Phase.Racing && step === finishStep) {
      const finish = course.steps[finishStep];
      const a = finish?.marks[0];
      const b = finish?.marks[1];
      const f = a && b ? crossingFraction(px, py, x, y, a, b) : -1;
      if (f >= 0 || Math.hypot(target.x - x, target.y - y) < ARRIVAL_M) {
        const at = Math.round(now + (f >= 0 ? f : 1) * 1000);
        if (at < capEndMs) {
          finishMs = at;
          phase = Phase.Finished;
          endAtMs = at + FINISH_TAIL_MS;
          setup.truth?.finished(at, course);
        }
      }
    }
  }

  const track: Track | null = recording && t.length > 0 ? { entryId, t, lat, lon, sogKn, cogDeg, accuracyM } : null;
  return { track, finishMs, retiredMs, progressM };
}

/**
 * The heading a sailor steers for a target `dx`/`dy` metres away: straight at it when it
 * can be fetched; otherwise close-hauled or running on the current tack, tacking or
 * gybing once past the layline (plus an overstand), now and then at random, and when
 * the boat strays out of the leg's corridor (`outward`).
 */
function steer(
  helm: Helm,
  dx: number,
  dy: number,
  distance: number,
  twd: number,
  now: number,
  racing: boolean,
  outward: boolean,
  dice: number,
): number {
  const bearing = (Math.atan2(dx, dy) * 180) / Math.PI;
  const rel = angleDifferenceDegrees(twd, bearing);
  const targetSide = rel >= 0 ? 1 : -1;
  if (distance < SHOOT_M) {
    setTack(helm, targetSide, now);
    return bearing;
  }
  const overstand = targetSide !== helm.tack ? helm.overstandDeg : 0;
  const absRel = rel < 0 ? -rel : rel;
  const beating = absRel < UPWIND_TWA_DEG + overstand;
  const running = absRel > DOWNWIND_TWA_DEG - overstand;
  if (!beating && !running) {
    setTack(helm, targetSide, now);
    return bearing;
  }
  if (racing) {
    const sinceTurn = now - helm.lastTurnMs;
    if ((outward && sinceTurn > MIN_CORRIDOR_TURN_GAP_MS) || (sinceTurn > MIN_RANDOM_TURN_GAP_MS && dice < helm.randomTurnPerS)) {
      setTack(helm, -helm.tack, now);
    }
  }
  return twd + helm.tack * (beating ? UPWIND_TWA_DEG : DOWNWIND_TWA_DEG);
}

function setTack(helm: Helm, tack: number, now: number): void {
  if (helm.tack !== tack) {
    helm.tack = tack;
    helm.lastTurnMs = now;
  }
}

/** Where along p0->p1 (0-1) the boat crossed the line a-b, or -1 if it did not. */
function crossingFraction(x0: number, y0: number, x1: number, y1: number, a: Point, b: Point): number {
  const rx = x1 - x0;
  const ry = y1 - y0;
  const sx = b.x - a.x;
  const sy = b.y - a.y;
  const denom = rx * sy - ry * sx;
  if (denom === 0) return -1;
  const qx = a.x - x0;
  const qy = a.y - y0;
  const along = (qx * sy - qy * sx) / denom;
  const onLine = (qx * ry - qy * rx) / denom;
  return along >= 0 && along <= 1 && onLine >= 0 && onLine <= 1 ? along : -1;
}
