// What a fix-writing RPC answers about the fixes it was sent: how many were written,
// how many were there already, and which were refused. The stream answers (StreamFixes
// sums a whole call, PushFixes one message) list the first LISTED_REJECTIONS refused
// fixes and count the rest per reason, so their size has a bound however much was
// sent; AppendFixes lists every one, as its request bounds them (20,000 fixes).

import type { MessageInitShape } from "@bufbuild/protobuf";
import { FixRejectionReason, type PushFixesResponseSchema } from "../../gen/racing/v1/ingest_pb.js";
import type { FixRejection } from "../domain/fix-rules.js";
import type { FixCounts, RejectedFix } from "./fixes.js";

/**
 * Refused fixes an answer lists one by one. 100 keeps the worst answer (100 listed
 * fixes of the longest reason, six reason counts) at 13 KB as Connect JSON and 5 KB as
 * protobuf, far under any client's receive limit (grpc-js: 4 MiB), and still names
 * every fix of an ordinary batch that had a few refused.
 */
export const LISTED_REJECTIONS = 100;

/** The proto enum of each rejection reason. */
export const FIX_REJECTION_REASONS: Record<FixRejection, FixRejectionReason> = {
  UNKNOWN_ENTRY: FixRejectionReason.UNKNOWN_ENTRY,
  OUT_OF_RANGE: FixRejectionReason.OUT_OF_RANGE,
  OUTSIDE_CAPTURE_WINDOW: FixRejectionReason.OUTSIDE_CAPTURE_WINDOW,
  IN_FUTURE: FixRejectionReason.IN_FUTURE,
  WINDOW_SETTLED: FixRejectionReason.WINDOW_SETTLED,
  CONFLICT: FixRejectionReason.CONFLICT,
};

type Answer = Pick<MessageInitShape<typeof PushFixesResponseSchema>, "accepted" | "duplicates" | "rejected" | "rejectedUnlisted">;

/** Every refused fix listed: AppendFixes. */
export function fullAnswer(counts: FixCounts): Omit<Answer, "rejectedUnlisted"> {
  return { accepted: counts.accepted, duplicates: counts.duplicates, rejected: counts.rejected.map(listed) };
}

/** Counts added up over one or more batches, keeping no more than an answer lists. */
export class FixTally {
  private accepted = 0;
  private duplicates = 0;
  private readonly listed: RejectedFix[] = [];
  private readonly unlisted = new Map<FixRejection, number>();

  add(counts: FixCounts): this {
    this.accepted += counts.accepted;
    this.duplicates += counts.duplicates;
    for (const rejected of counts.rejected) {
      if (this.listed.length < LISTED_REJECTIONS) this.listed.push(rejected);
      else this.unlisted.set(rejected.reason, (this.unlisted.get(rejected.reason) ?? 0) + 1);
    }
    return this;
  }

  /** The bounded answer: the first LISTED_REJECTIONS refused fixes, the rest counted per reason (in the enum's order). */
  answer(): Answer {
    return {
      accepted: this.accepted,
      duplicates: this.duplicates,
      rejected: this.listed.map(listed),
      rejectedUnlisted: [...this.unlisted]
        .map(([reason, count]) => ({ reason: FIX_REJECTION_REASONS[reason], count }))
        .sort((a, b) => a.reason - b.reason),
    };
  }
}

function listed(rejected: RejectedFix) {
  return { entryId: rejected.entryId, t: rejected.t, reason: FIX_REJECTION_REASONS[rejected.reason] };
}
