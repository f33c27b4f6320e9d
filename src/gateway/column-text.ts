// The JSON text of a window's number columns (a track boat's `t`, `lat`, ...), reusing
// the text written for the same column a moment before when the new values begin with
// the old ones. A track window near the cut-off is asked for again every few seconds
// with a few more fixes at the end of each boat's columns: its part written before is
// not written again. Exact whatever the values: the old ones are compared, not assumed
// (a late fix inserted earlier in a column, or other values, mean it is written whole).

import { LRUCache } from "lru-cache";

/** A window's texts are let go when it has not been written for this long. */
const KEPT_MS = 10_000;
/**
 * At most this many values' text in all windows: the near-now windows of 40 start
 * groups of 50 boats at 1 Hz, about 14 bytes of text and 8 of the values' array each.
 */
const KEPT_VALUES = 3_000_000;

interface Written {
  /** The values written: compared, never changed (they belong to an answer message). */
  values: readonly number[];
  /** Their JSON text without the brackets: "1,2.5,null". */
  text: string;
}

/** The columns written for one window, by the caller's name for each column. */
export class WindowColumns {
  private readonly written = new Map<string, Written>();
  /** Values whose text is held. */
  size = 1;

  /**
   * `values` as a JSON array, as JSON.stringify writes it (a number that is not finite
   * as null), reusing the text written under `column` if its values begin `values`.
   */
  text(column: string, values: readonly number[]): string {
    const before = this.written.get(column);
    const from = before && startsWith(values, before.values) ? before.values.length : 0;
    const tail = from === values.length ? "" : JSON.stringify(from === 0 ? values : values.slice(from)).slice(1, -1);
    const text = from === 0 ? tail : tail === "" ? before!.text : `${before!.text},${tail}`;
    this.size += values.length - (before?.values.length ?? 0);
    this.written.set(column, { values, text });
    return `[${text}]`;
  }
}

const windows = new LRUCache<string, WindowColumns>({
  maxSize: KEPT_VALUES,
  sizeCalculation: (columns) => columns.size,
  ttl: KEPT_MS,
  ttlAutopurge: true,
});

/**
 * Writes the columns of the window named `key` with `write`, reusing what was written
 * for it in the last KEPT_MS.
 */
export function writeWindowColumns<T>(key: string, write: (columns: WindowColumns) => T): T {
  const columns = windows.get(key) ?? new WindowColumns();
  const written = write(columns);
  // Set again: its size has changed, and its KEPT_MS start again.
  windows.set(key, columns);
  return written;
}

/** Whether `values` begins with every value of `prefix` (NaN matching NaN: both are written as null). */
function startsWith(values: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > values.length || prefix.length === 0) return false;
  for (let i = 0; i < prefix.length; i++) {
    const a = values[i]!;
    const b = prefix[i]!;
    if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) return false;
  }
  return true;
}
