// The longest text a client may send for each column its input fills: one table. The
// numbers are the race-scenario/v1 schema's own maxLength, so `race-api import` and
// ApplyScenario refuse a file at the field's path before the database could refuse the
// row; the RPCs that fill the same columns (SetCourse, AppendFixes, PublishResults) read
// them here. test/scenario/text-limits.test.ts holds each to its column's width.

import schema from "./scenario.schema.json" with { type: "json" };

export interface TextLimit {
  /** The column it bounds, `table.column`. */
  column: string;
  /** Longest value in characters (code points), as the column counts them. */
  maxLength: number;
}

/** Each limit's column and where the schema says its maxLength (a JSON Pointer into the schema). */
const FIELDS = {
  clubName: ["clubs.name", "/$defs/club/properties/name"],
  clubOrigin: ["club_origins.origin", "/$defs/club/properties/allowedOrigins/items"],
  clientId: ["api_clients.client_id", "/$defs/client/properties/clientId"],
  clientName: ["api_clients.name", "/$defs/client/properties/name"],
  clientOrigin: ["client_origins.origin", "/$defs/client/properties/allowedOrigins/items"],
  eventName: ["events.name", "/$defs/event/properties/name"],
  sailNumber: ["entries.sail_number", "/$defs/entry/properties/sailNumber"],
  boatName: ["entries.boat_name", "/$defs/entry/properties/boatName"],
  userId: ["entry_private.user_id", "/$defs/entry/properties/userId"],
  deviceId: ["entry_private.device_id", "/$defs/entry/properties/deviceId"],
  phoneModel: ["entry_private.phone_model", "/$defs/entry/properties/phoneModel"],
  raceName: ["races.name", "/$defs/race/properties/name"],
  startGroupName: ["start_groups.name", "/$defs/startGroup/properties/name"],
  stepLabel: ["course_steps.label", "/$defs/courseStep/properties/label"],
  markKey: ["course_marks.mark_key", "/$defs/courseStep/properties/marks/items/properties/key"],
  resultStatus: ["official_result_rows.status", "/$defs/results/properties/rows/items/properties/status"],
} as const satisfies Record<string, readonly [string, string]>;

export type TextField = keyof typeof FIELDS;

export const TEXT_LIMITS: Readonly<Record<TextField, TextLimit>> = Object.fromEntries(
  Object.entries(FIELDS).map(([field, [column, pointer]]) => [field, { column, maxLength: schemaMaxLength(pointer) }]),
) as Record<TextField, TextLimit>;

/** Whether `value` fits `field`'s column, counted in characters (an emoji is one, as in the column, not two). */
export function fitsColumn(field: TextField, value: string): boolean {
  const { maxLength } = TEXT_LIMITS[field];
  // UTF-16 units are never fewer than code points: count these only when the units are too many.
  return value.length <= maxLength || [...value].length <= maxLength;
}

function schemaMaxLength(pointer: string): number {
  let node: unknown = schema;
  for (const step of pointer.slice(1).split("/")) node = (node as Record<string, unknown> | undefined)?.[step];
  const maxLength = (node as { maxLength?: unknown } | undefined)?.maxLength;
  if (typeof maxLength !== "number") throw new Error(`scenario.schema.json has no maxLength at ${pointer}`);
  return maxLength;
}
