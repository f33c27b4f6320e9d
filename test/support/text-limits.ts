// Where each limited text sits in a race-scenario/v1 document (smallScenario's shape),
// and values at a column's limit and one character past it.

import type { Scenario } from "../../src/domain/scenario.js";
import { TEXT_LIMITS, type TextField } from "../../src/scenario/text-limits.js";

type Place = { path: string; set: (scenario: Scenario, value: string) => void };

const group = (s: Scenario) => s.events[0]!.races[0]!.startGroups[0]!;
const GROUP_PATH = "$.events[0].races[0].startGroups[0]";

export const PLACES: Record<TextField, Place> = {
  clubName: { path: "$.clubs[0].name", set: (s, v) => void (s.clubs[0]!.name = v) },
  clubOrigin: { path: "$.clubs[0].allowedOrigins[0]", set: (s, v) => void (s.clubs[0]!.allowedOrigins = [v]) },
  clientId: { path: "$.clients[0].clientId", set: (s, v) => void (s.clients[0]!.clientId = v) },
  clientName: { path: "$.clients[0].name", set: (s, v) => void (s.clients[0]!.name = v) },
  clientOrigin: { path: "$.clients[0].allowedOrigins[0]", set: (s, v) => void (s.clients[0]!.allowedOrigins = [v]) },
  eventName: { path: "$.events[0].name", set: (s, v) => void (s.events[0]!.name = v) },
  sailNumber: { path: "$.events[0].entries[0].sailNumber", set: (s, v) => void (s.events[0]!.entries[0]!.sailNumber = v) },
  boatName: { path: "$.events[0].entries[0].boatName", set: (s, v) => void (s.events[0]!.entries[0]!.boatName = v) },
  userId: { path: "$.events[0].entries[0].userId", set: (s, v) => void (s.events[0]!.entries[0]!.userId = v) },
  deviceId: { path: "$.events[0].entries[0].deviceId", set: (s, v) => void (s.events[0]!.entries[0]!.deviceId = v) },
  phoneModel: { path: "$.events[0].entries[0].phoneModel", set: (s, v) => void (s.events[0]!.entries[0]!.phoneModel = v) },
  raceName: { path: "$.events[0].races[0].name", set: (s, v) => void (s.events[0]!.races[0]!.name = v) },
  startGroupName: { path: `${GROUP_PATH}.name`, set: (s, v) => void (group(s).name = v) },
  stepLabel: { path: `${GROUP_PATH}.courses[0].steps[1].label`, set: (s, v) => void (group(s).courses![0]!.steps[1]!.label = v) },
  markKey: {
    path: `${GROUP_PATH}.courses[0].steps[1].marks[0].key`,
    set: (s, v) => void (group(s).courses![0]!.steps[1]!.marks[0]!.key = v),
  },
  resultStatus: { path: `${GROUP_PATH}.results.rows[0].status`, set: (s, v) => void (group(s).results!.rows[0]!.status = v) },
};

/** Origins are ASCII columns of a URL's origin; the other texts take any character. */
const ORIGINS = new Set<TextField>(["clubOrigin", "clientOrigin"]);

/**
 * A value of exactly the field's limit in characters. Outside origins it opens with an
 * emoji (two UTF-16 units, one character in the column) and an accented letter, so a
 * check that counts UTF-16 units or bytes would refuse it.
 */
export function atLimit(field: TextField): string {
  const n = TEXT_LIMITS[field].maxLength;
  if (ORIGINS.has(field)) return `https://${"a".repeat(n - "https://".length - ".example".length)}.example`;
  return `🙂é${"x".repeat(n - 2)}`;
}

/** One character past the limit. */
export function pastLimit(field: TextField): string {
  return ORIGINS.has(field) ? `https://a${atLimit(field).slice("https://".length)}` : `${atLimit(field)}x`;
}
