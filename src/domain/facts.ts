// A fact of the live commentary feed: what happened, machine-readable, before it is
// phrased in any language. Detection (insights/) makes facts, the store keeps them,
// templates and the model phrase them.

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
