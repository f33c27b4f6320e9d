// A course as the analytics see it: its steps in sailing order (start line, marks,
// gates, finish line, numbered from 1), the legs between them with their bearing,
// length and kind under a wind, and the axis a boat's progress and VMG are measured on.

import { angleDifferenceDegrees, haversineDistanceM, initialBearingDeg, type LatLon, normalizeDegrees, planeDistanceM } from "../geo.js";
import type { CourseStep } from "../scenario.js";
import { displacementAlongM, midpoint, nearestPointOnSegment } from "./geometry.js";

export type LegKind = "upwind" | "downwind" | "reach";

/** A leg is upwind within this many degrees of the wind's direction, downwind within it of the opposite. */
export const LEG_KIND_TOLERANCE_DEG = 45;

export interface CourseLeg {
  /** Leg n runs from passing step n to passing step n+1 (leg 1: start to first mark). */
  legIndex: number;
  kind: LegKind;
  bearingDeg: number;
  lengthM: number;
  from: LatLon;
  to: LatLon;
}

/** Where a step is aimed at: a rounding mark itself, the midpoint of a line or gate. */
export function stepReferencePoint(step: CourseStep): LatLon {
  const [a, b] = step.marks;
  if (a === undefined) throw new Error(`a ${step.kind} step without marks`);
  return b === undefined ? a : midpoint(a, b);
}

/**
 * The distance from a point to a step: to a mark, or to a line's or gate's nearest point.
 * On the local plane, both: asked every fix, and within 5e-8 of haversine's at 5 km.
 */
export function distanceToStepM(p: LatLon, step: CourseStep): number {
  const [a, b] = step.marks;
  if (a === undefined) throw new Error(`a ${step.kind} step without marks`);
  return b === undefined ? planeDistanceM(p, a) : nearestPointOnSegment(p, a, b).distanceM;
}

export function legKindFor(bearingDeg: number, twdDeg: number): LegKind {
  if (Math.abs(angleDifferenceDegrees(twdDeg, bearingDeg)) <= LEG_KIND_TOLERANCE_DEG) return "upwind";
  if (Math.abs(angleDifferenceDegrees(twdDeg + 180, bearingDeg)) <= LEG_KIND_TOLERANCE_DEG) return "downwind";
  return "reach";
}

/** The legs of a course (steps in sailing order) under a wind direction. */
export function courseLegs(steps: readonly CourseStep[], twdDeg: number): CourseLeg[] {
  const points = steps.map(stepReferencePoint);
  return points.slice(1).map((to, i) => {
    const from = points[i]!;
    const bearingDeg = initialBearingDeg(from, to);
    return { legIndex: i + 1, kind: legKindFor(bearingDeg, twdDeg), bearingDeg, lengthM: haversineDistanceM(from, to), from, to };
  });
}

/**
 * The axis progress is measured on, pointing toward the leg's end: the wind axis for
 * upwind (toward the wind) and downwind legs, the rhumb line for reaches.
 */
export function progressAxisDeg(leg: CourseLeg, twdDeg: number): number {
  if (leg.kind === "upwind") return normalizeDegrees(twdDeg);
  if (leg.kind === "downwind") return normalizeDegrees(twdDeg + 180);
  return leg.bearingDeg;
}

/**
 * The axis VMG is taken on from `position`: the wind axis on upwind and downwind legs,
 * the direction to the next step (VMC) on reaches.
 */
export function vmgAxisDeg(leg: CourseLeg, twdDeg: number, position: LatLon): number {
  return leg.kind === "reach" ? initialBearingDeg(position, leg.to) : progressAxisDeg(leg, twdDeg);
}

/** What a whole leg counts for in course progress: its extent along its progress axis. */
export function legMeasureM(leg: CourseLeg, twdDeg: number): number {
  return leg.kind === "reach" ? leg.lengthM : Math.abs(displacementAlongM(leg.from, leg.to, progressAxisDeg(leg, twdDeg)));
}
