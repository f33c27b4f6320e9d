// The SQL of browser origins (CORS): the origins a club allows for all its clients
// (club_origins) and those one client adds (client_origins). Lists are replaced whole;
// values arrive normalised (auth/origins.ts).

import type { RowDataPacket } from "mysql2/promise";
import type { Connection, Pool } from "./pool.js";

type Db = Pool | Connection;

/** Every origin some club or client allows, each once. */
export async function listAllowedOrigins(db: Db): Promise<string[]> {
  const [rows] = await db.query<RowDataPacket[]>("SELECT origin FROM club_origins UNION SELECT origin FROM client_origins");
  return rows.map((row) => row.origin as string);
}

// Columns of a query over `api_clients c`: the client's own origins and its club's as JSON
// arrays (NULL when none), so the guard's client state stays one statement.
export const ORIGINS_OF_CLIENT = "(SELECT JSON_ARRAYAGG(o.origin) FROM client_origins o WHERE o.api_client_id = c.id)";
export const ORIGINS_OF_CLUB = "(SELECT JSON_ARRAYAGG(o.origin) FROM club_origins o WHERE o.club_id = c.club_id)";

/** A column of ORIGINS_OF_CLIENT or ORIGINS_OF_CLUB: MariaDB sends the array as text, MySQL 8 as JSON that mysql2 parses. */
export function originList(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const list: unknown = typeof value === "string" ? JSON.parse(value) : value;
  if (!Array.isArray(list) || !list.every((origin) => typeof origin === "string"))
    throw new Error("origins are not a JSON array of strings");
  return list;
}

/** Each client's own origins and each club's, by client and club key. */
export async function originsByOwner(db: Db): Promise<{ clients: Map<number, string[]>; clubs: Map<number, string[]> }> {
  const [clientRows] = await db.query<RowDataPacket[]>(
    "SELECT api_client_id AS owner, origin FROM client_origins ORDER BY api_client_id, origin",
  );
  const [clubRows] = await db.query<RowDataPacket[]>("SELECT club_id AS owner, origin FROM club_origins ORDER BY club_id, origin");
  return { clients: groupByOwner(clientRows), clubs: groupByOwner(clubRows) };
}

/** Replaces the origins of the client with key `clientKey`. */
export async function replaceClientOrigins(db: Db, clientKey: number, origins: readonly string[]): Promise<void> {
  await db.query("DELETE FROM client_origins WHERE api_client_id = ?", [clientKey]);
  if (origins.length > 0)
    await db.query("INSERT INTO client_origins (api_client_id, origin) VALUES ?", [origins.map((origin) => [clientKey, origin])]);
}

/** Replaces the origins of the club with key `clubKey`. */
export async function replaceClubOrigins(db: Db, clubKey: number, origins: readonly string[]): Promise<void> {
  await db.query("DELETE FROM club_origins WHERE club_id = ?", [clubKey]);
  if (origins.length > 0)
    await db.query("INSERT INTO club_origins (club_id, origin) VALUES ?", [origins.map((origin) => [clubKey, origin])]);
}

function groupByOwner(rows: RowDataPacket[]): Map<number, string[]> {
  const owners = new Map<number, string[]>();
  for (const row of rows) {
    const owner = Number(row.owner);
    owners.set(owner, [...(owners.get(owner) ?? []), row.origin as string]);
  }
  return owners;
}
