// A fact's id: the same fact gets the same one wherever and whenever it is detected.
// The fact's shape is domain/facts.ts.

import { createHash } from "node:crypto";
import type { InsightKind } from "../domain/facts.js";

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
  const key = [
    identity.raceId,
    identity.startGroupId,
    identity.kind,
    identity.entryIds.join(","),
    identity.atMs,
    identity.bucket ?? "",
  ].join("|");
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}
