// The simulated course: windward-leeward and triangle layouts in local metres around the
// course centre, their versions, the waypoints boats steer for, and progress along legs.

import type { CourseStepKind, CourseVersion } from "../domain/scenario.js";
import { metresPerDegree, type LatLon } from "../domain/geo.js";

/** A point in local metres: x east, y north of the course centre. */
export interface Point {
  x: number;
  y: number;
}

export interface LocalFrame {
  origin: LatLon;
  metresPerDegLat: number;
  metresPerDegLon: number;
}

export interface MarkGeometry extends Point {
  key: string;
}

export interface StepGeometry {
  kind: CourseStepKind;
  label: string;
  marks: MarkGeometry[];
  /** Where the rhumb-line legs meet: the mark, or the middle of a gate or line. */
  centre: Point;
  /** A mark other than the windward one: the unit direction, from it, of the outside of the turn. */
  outside?: Point;
}

export interface CourseGeometry {
  version: number;
  appliedFromMs: number;
  /** Wind direction (from, degrees) the course was laid to. */
  windDeg: number;
  steps: StepGeometry[];
  /** `cumulativeM[k]`: distance along the rhumb-line legs from the start to step k. */
  cumulativeM: number[];
  totalM: number;
}

/**
 * `windwardLeewardGate`: each lap a beat to the windward mark and a run through a leeward
 * gate. `windwardLeeward`: the same with one leeward mark. `triangle`: each lap a beat,
 * a broad reach to a wing mark and another to the leeward mark (reaches 60 degrees off
 * the run). All marks are left to port.
 */
export type CourseLayout = "windwardLeewardGate" | "windwardLeeward" | "triangle";
export const COURSE_LAYOUTS: readonly CourseLayout[] = ["windwardLeewardGate", "windwardLeeward", "triangle"];

export interface LayoutOptions {
  layout: CourseLayout;
  laps: number;
  /** Start line to windward mark. */
  legLengthM: number;
  windDeg: number;
  startLineM: number;
  appliedFromMs: number;
}

/** The leeward gate sits this far above the start line, clear of boats starting. */
const GATE_ABOVE_START_M = 250;
/** The finish line sits this far below the gate: the last run ends through it. */
const FINISH_BELOW_GATE_M = 100;
const GATE_WIDTH_M = 70;
const FINISH_LINE_M = 100;

export function localFrame(origin: LatLon): LocalFrame {
  const scale = metresPerDegree(origin.lat);
  return { origin, metresPerDegLat: scale.lat, metresPerDegLon: scale.lon };
}

export function toLatLon(frame: LocalFrame, p: Point): LatLon {
  return {
    lat: round7(frame.origin.lat + p.y / frame.metresPerDegLat),
    lon: round7(frame.origin.lon + p.x / frame.metresPerDegLon),
  };
}

/** Unit vector towards where the wind comes from. */
export function upwindUnit(windDeg: number): Point {
  const r = (windDeg * Math.PI) / 180;
  return { x: Math.sin(r), y: Math.cos(r) };
}

/** Unit vector to the right of a boat heading upwind. */
export function rightOfUpwindUnit(windDeg: number): Point {
  const r = (windDeg * Math.PI) / 180;
  return { x: Math.cos(r), y: -Math.sin(r) };
}

/**
 * Start, then `laps` rounds of the layout, then a finish line just below the leeward gate
 * or mark: "finish on the run" (on the triangle, a short run after the last reach). The
 * course centre is halfway between the start line and the windward mark.
 */
export function layCourse(options: LayoutOptions): CourseGeometry {
  const { layout, laps, legLengthM, windDeg, startLineM } = options;
  const u = upwindUnit(windDeg);
  const c = rightOfUpwindUnit(windDeg);
  const along = (d: number, across = 0): Point => ({ x: u.x * d + c.x * across, y: u.y * d + c.y * across });

  const startD = -legLengthM / 2;
  const gateD = startD + GATE_ABOVE_START_M;
  const finishD = gateD - FINISH_BELOW_GATE_M;
  const windward = along(startD + legLengthM);

  const beatM = legLengthM - GATE_ABOVE_START_M;
  const steps: StepGeometry[] = [line("start", "Start", along(startD), c, startLineM, "pin", "committee")];
  for (let lap = 0; lap < laps; lap++) {
    steps.push(windwardStep(windward));
    if (layout === "windwardLeewardGate") steps.push(gateStep(along(gateD), c));
    // A mark left to port after a run: the boat passes below it, on the side away from the beat's right.
    else if (layout === "windwardLeeward") steps.push(markStep("Leeward", "leeward", along(gateD), along(-0.5, -0.866)));
    else {
      // The wing lies to port of the beat, so that both reaches turn left round their marks.
      steps.push(markStep("Wing", "wing", along(gateD + beatM / 2, -0.866 * beatM), along(0, -1)));
      steps.push(markStep("Leeward", "leeward", along(gateD), along(-0.866, 0.5)));
    }
  }
  steps.push(line("finish", "Finish", along(finishD), c, FINISH_LINE_M, "finish-pin", "finish-committee"));
  return withDistances({ version: 1, appliedFromMs: options.appliedFromMs, windDeg, steps });
}

/**
 * The committee's answer to a persistent shift: the windward mark is laid again straight
 * upwind of the gate (or leeward mark) in the new wind, at the same distance; a wing mark
 * turns with it about the leeward mark, so the reaches stay reaches. Everything else stays.
 */
export function moveWindwardMark(course: CourseGeometry, windDeg: number, appliedFromMs: number): CourseGeometry {
  const gate = course.steps.find((s) => s.kind === "gate" || s.marks[0]?.key === "leeward");
  const oldWindward = course.steps.find(isWindward);
  if (!gate || !oldWindward) return course;
  const beat = Math.hypot(oldWindward.centre.x - gate.centre.x, oldWindward.centre.y - gate.centre.y);
  const u = upwindUnit(windDeg);
  const windward = { x: gate.centre.x + u.x * beat, y: gate.centre.y + u.y * beat };
  // Clockwise in x-east, y-north, as bearings turn.
  const turn = ((windDeg - course.windDeg) * Math.PI) / 180;
  const rotate = (v: Point): Point => ({ x: v.x * Math.cos(turn) + v.y * Math.sin(turn), y: v.y * Math.cos(turn) - v.x * Math.sin(turn) });
  const steps = course.steps.map((s): StepGeometry => {
    if (isWindward(s)) return windwardStep(windward);
    if (s.marks[0]?.key !== "wing" || !s.outside) return s;
    const arm = rotate({ x: s.centre.x - gate.centre.x, y: s.centre.y - gate.centre.y });
    return markStep(s.label, "wing", { x: gate.centre.x + arm.x, y: gate.centre.y + arm.y }, rotate(s.outside));
  });
  return withDistances({ version: course.version + 1, appliedFromMs, windDeg, steps });
}

/** The scenario's JSON form of a course version. */
export function toCourseVersion(course: CourseGeometry, frame: LocalFrame): CourseVersion {
  return {
    version: course.version,
    appliedFromUtc: new Date(course.appliedFromMs).toISOString(),
    steps: course.steps.map((s) => ({
      kind: s.kind,
      label: s.label,
      marks: s.marks.map((m) => ({ key: m.key, ...toLatLon(frame, m) })),
    })),
  };
}

/** Rounding distance choices a boat makes for one step. */
export interface RoundingChoice {
  /** How wide of the mark the boat passes, metres. */
  offsetM: number;
  /** Gate: which of the two marks (0 = port, 1 = starboard). */
  gateMark: 0 | 1;
  /** Finish: where along the line the boat crosses, 0-1. */
  lineFraction: number;
}

/** How far past the finish line a boat aims, so that it sails through it. */
const FINISH_OVERRUN_M = 40;

/**
 * The point a boat steers for to round step `k`: `offsetM` wide of the mark on the
 * outside of the turn (windward mark left to port, gate mark from inside the gate), or
 * a spot beyond the finish line.
 */
export function roundingWaypoint(course: CourseGeometry, k: number, choice: RoundingChoice): Point {
  const step = course.steps[k];
  if (!step) throw new Error(`course has no step ${k}`);
  const u = upwindUnit(course.windDeg);
  const c = rightOfUpwindUnit(course.windDeg);
  switch (step.kind) {
    case "mark": {
      const m = step.centre;
      // The windward mark's outside is above it and to the right of the beat.
      const out = step.outside ?? { x: 0.5 * u.x + 0.866 * c.x, y: 0.5 * u.y + 0.866 * c.y };
      return { x: m.x + choice.offsetM * out.x, y: m.y + choice.offsetM * out.y };
    }
    case "gate": {
      const m = step.marks[choice.gateMark] ?? step.marks[0];
      if (!m) return step.centre;
      const inward = choice.gateMark === 0 ? -1 : 1;
      return {
        x: m.x + choice.offsetM * (0.866 * inward * c.x - 0.5 * u.x),
        y: m.y + choice.offsetM * (0.866 * inward * c.y - 0.5 * u.y),
      };
    }
    case "finish":
    case "start": {
      const [a, b] = step.marks;
      if (!a || !b) return step.centre;
      const f = 0.2 + 0.6 * choice.lineFraction;
      return {
        x: a.x + (b.x - a.x) * f - u.x * FINISH_OVERRUN_M,
        y: a.y + (b.y - a.y) * f - u.y * FINISH_OVERRUN_M,
      };
    }
  }
}

function windwardStep(at: Point): StepGeometry {
  return { kind: "mark", label: "Windward", marks: [{ key: "windward", ...at }], centre: at };
}

function isWindward(step: StepGeometry): boolean {
  return step.marks[0]?.key === "windward";
}

function markStep(label: string, key: string, at: Point, outside: Point): StepGeometry {
  const len = Math.hypot(outside.x, outside.y);
  return { kind: "mark", label, marks: [{ key, ...at }], centre: at, outside: { x: outside.x / len, y: outside.y / len } };
}

function gateStep(centre: Point, right: Point): StepGeometry {
  const half = GATE_WIDTH_M / 2;
  // Looking downwind, port is the upwind-facing right: gate-port lies on +right.
  return {
    kind: "gate",
    label: "Leeward gate",
    marks: [
      { key: "gate-port", x: centre.x + right.x * half, y: centre.y + right.y * half },
      { key: "gate-stbd", x: centre.x - right.x * half, y: centre.y - right.y * half },
    ],
    centre,
  };
}

function line(
  kind: "start" | "finish",
  label: string,
  centre: Point,
  right: Point,
  lengthM: number,
  leftKey: string,
  rightKey: string,
): StepGeometry {
  const half = lengthM / 2;
  return {
    kind,
    label,
    marks: [
      { key: leftKey, x: centre.x - right.x * half, y: centre.y - right.y * half },
      { key: rightKey, x: centre.x + right.x * half, y: centre.y + right.y * half },
    ],
    centre,
  };
}

function withDistances(course: Omit<CourseGeometry, "cumulativeM" | "totalM">): CourseGeometry {
  const cumulativeM = [0];
  let total = 0;
  for (let k = 1; k < course.steps.length; k++) {
    const a = (course.steps[k - 1] as StepGeometry).centre;
    const b = (course.steps[k] as StepGeometry).centre;
    total += Math.hypot(b.x - a.x, b.y - a.y);
    cumulativeM.push(total);
  }
  return { ...course, cumulativeM, totalM: total };
}

function round7(v: number): number {
  return Math.round(v * 1e7) / 1e7;
}
