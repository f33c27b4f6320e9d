// The token signing keys: JWKs with their kid; retired keys no longer verify.

import type { ResultSetHeader, RowDataPacket } from "mysql2/promise";
import type { Connection, Pool } from "./pool.js";

export interface StoredKey {
  kid: string;
  alg: string;
  privateJwk: string;
  publicJwk: string;
  createdAt: Date;
}

/** Unretired keys, newest first: the first signs, all of them verify. */
export async function activeKeys(db: Pool | Connection): Promise<StoredKey[]> {
  const [rows] = await db.query<RowDataPacket[]>(
    "SELECT kid, alg, private_jwk, public_jwk, created_at FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid",
  );
  return rows.map((row) => ({
    kid: row.kid,
    alg: row.alg,
    privateJwk: row.private_jwk,
    publicJwk: row.public_jwk,
    createdAt: row.created_at,
  }));
}

export async function insertKey(db: Pool | Connection, key: Omit<StoredKey, "createdAt">): Promise<void> {
  await db.query("INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk) VALUES (?, ?, ?, ?)", [
    key.kid,
    key.alg,
    key.privateJwk,
    key.publicJwk,
  ]);
}

/** Returns false when no unretired key has that kid. */
export async function retireKey(db: Pool | Connection, kid: string): Promise<boolean> {
  const [result] = await db.query<ResultSetHeader>(
    "UPDATE signing_keys SET retired_at = CURRENT_TIMESTAMP(3) WHERE kid = ? AND retired_at IS NULL",
    [kid],
  );
  return result.affectedRows > 0;
}

export async function listKeys(
  db: Pool | Connection,
): Promise<Array<{ kid: string; alg: string; createdAt: Date; retiredAt: Date | null }>> {
  const [rows] = await db.query<RowDataPacket[]>("SELECT kid, alg, created_at, retired_at FROM signing_keys ORDER BY created_at DESC, kid");
  return rows.map((row) => ({ kid: row.kid, alg: row.alg, createdAt: row.created_at, retiredAt: row.retired_at }));
}
