// A fact for the insight templates' tests: a lead change in IRC 1 at a fixed moment,
// with whatever a test sets over it.

import { type Fact, NO_DETAILS } from "../../src/domain/facts.js";

export function fact(overrides: Partial<Fact>): Fact {
  return {
    id: "0123456789abcdef",
    kind: "leadChange",
    startGroupId: "33333333-3333-4333-8333-333333333333",
    startGroupName: "IRC 1",
    atMs: Date.parse("2026-11-21T10:30:00Z"),
    boats: [],
    ...NO_DETAILS,
    ...overrides,
  };
}
