// Official results as the club published them (official_results and
// official_result_rows): never the live order readings.

import type { RowDataPacket } from "mysql2/promise";
import type { Connection, Pool } from "./pool.js";

export interface ResultRowRecord {
  entryUuid: string;
  sailNumber: string;
  boatName: string;
  rank: number | null;
  status: string;
  elapsedSeconds: number | null;
  correctedSeconds: number | null;
  points: number | null;
}

export interface GroupResultsRecord {
  startGroupId: number;
  status: "provisional" | "final";
  publishedAtMs: number;
  /** Unsorted: the order is the service's rule. */
  rows: ResultRowRecord[];
}

/** The published results of those of `startGroupIds` that have any, by start group id. */
export async function officialResults(db: Pool | Connection, startGroupIds: readonly number[]): Promise<Map<number, GroupResultsRecord>> {
  const results = new Map<number, GroupResultsRecord>();
  if (startGroupIds.length === 0) return results;
  const [headers] = await db.query<RowDataPacket[]>(
    "SELECT start_group_id, status, published_at FROM official_results WHERE start_group_id IN (?)",
    [startGroupIds],
  );
  if (headers.length === 0) return results;
  for (const header of headers) {
    results.set(header.start_group_id, {
      startGroupId: header.start_group_id,
      status: header.status,
      publishedAtMs: (header.published_at as Date).getTime(),
      rows: [],
    });
  }
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT r.start_group_id, e.uuid, e.sail_number, e.boat_name, r.rank_no, r.status, r.elapsed_seconds, r.corrected_seconds, r.points
     FROM official_result_rows r JOIN entries e ON e.id = r.entry_id
     WHERE r.start_group_id IN (?)`,
    [[...results.keys()]],
  );
  for (const row of rows) {
    results.get(row.start_group_id)?.rows.push({
      entryUuid: row.uuid,
      sailNumber: row.sail_number,
      boatName: row.boat_name,
      rank: row.rank_no,
      status: row.status,
      elapsedSeconds: row.elapsed_seconds,
      correctedSeconds: row.corrected_seconds,
      points: row.points,
    });
  }
  return results;
}
