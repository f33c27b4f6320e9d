import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";

/** A Timestamp as v1 JSON: ISO 8601 UTC with milliseconds, or null for an unset one. */
export function dateTime(timestamp: Timestamp | undefined): string | null {
  return timestamp ? timestampDate(timestamp).toISOString() : null;
}
