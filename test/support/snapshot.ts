// A fingerprint of every read-model table, to prove that an import changed nothing
// (refused files) or changed nothing more (a second import of the same file).

import type { RowDataPacket } from "mysql2/promise";
import { MIGRATIONS } from "../../src/store/migrations.js";
import type { Pool } from "../../src/store/pool.js";

export const TABLES = MIGRATIONS.flatMap((m) => m.statements)
  .map((sql) => /CREATE TABLE IF NOT EXISTS (\w+)/.exec(sql)?.[1])
  .filter((name): name is string => name !== undefined);

export async function snapshot(pool: Pool): Promise<Record<string, { rows: number; checksum: string }>> {
  const result: Record<string, { rows: number; checksum: string }> = {};
  const [sums] = await pool.query<RowDataPacket[]>(`CHECKSUM TABLE ${TABLES.join(", ")}`);
  for (const table of TABLES) {
    const [[count]] = await pool.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${table}`);
    const sum = sums.find((row) => String(row.Table).endsWith(`.${table}`));
    result[table] = { rows: Number(count?.n), checksum: String(sum?.Checksum) };
  }
  return result;
}
