// A fact of the live commentary feed: what happened, machine-readable, before it is
// phrased in any language. Detection makes facts; templates and the model phrase them.

import { createHash } from "node:crypto";

export const INSIGHT_KINDS = ["leadChange", "markRounding", "gain", "finish", "windShift"] as const;
export type InsightKind = (typeof INSIGHT_KINDS)[number];

export interface BoatRef {
  entryId: string;
  sailNumber: string;
  boatName: string;
}

export interface Fact {
  /** 16 lowercase hex characters, derived from the fact's identity (factId). */
  id: string;
  kind: InsightKind;
  startGroupId: string;
  startGroupName: string;
  /** When the underlying event happened (order reading, GPS sample, phone finish or wind entry), epoch ms. */
  atMs: number;
  /** leadChange: [new leader, previous leader]; markRounding, gain, finish: [boat]; windShift: []. */
  boats: BoatRef[];
  /** markRounding: the course step's label, or the mark key when unlabelled. */
  markLabel: string | null;
  /** gain: the live place now; finish: the unofficial live place if known. */
  rank: number | null;
  /** gain: places gained against the start of the detection window, >= 2. */
  placesGained: number | null;
  twdFrom: number | null;
  twdTo: number | null;
  /** null: the reading was direction-only. */
  twsFrom: number | null;
  twsTo: number | null;
}

/** The kind-specific fields, none applying: a fact starts from these and sets its own. */
export const NO_DETAILS = {
  markLabel: null,
  rank: null,
  placesGained: null,
  twdFrom: null,
  twdTo: null,
  twsFrom: null,
  twsTo: null,
} as const satisfies Partial<Fact>;

export interface FactIdentity {
  raceId: string;
  startGroupId: string;
  kind: InsightKind;
  /** Entry ids in the kind's order. */
  entryIds: readonly string[];
  /** The event's own time, epoch ms. */
  atMs: number;
  /** gain only: the 5-minute bucket (floor(atMs / 300000)), so one gain per boat per bucket keeps its id. */
  bucket?: number;
}

/**
 * The same fact gets the same id on every call and every instance: the id hashes what
 * the fact is about, never when or where it was detected.
 */
export function factId(identity: FactIdentity): string {
  const key = [identity.raceId, identity.startGroupId, identity.kind, identity.entryIds.join(","), identity.atMs, identity.bucket ?? ""].join("|");
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}
