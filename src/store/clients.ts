// The SQL of API clients: the state the request guard checks, and the rows behind
// `race-api clients` (auth/clients.ts checks scopes, allowlists and origins and makes
// secrets before they come here). Only secret hashes are stored, and no listing returns one.

import type { ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { ORIGINS_OF_CLIENT, ORIGINS_OF_CLUB, originList, originsByOwner, replaceClientOrigins, replaceClubOrigins } from "./origins.js";
import { inTransaction, type Connection, type Pool } from "./pool.js";

type Db = Pool | Connection;

/** What the request guard needs to know about a client, from one query. */
export interface ClientState {
  id: number;
  clientId: string;
  clubId: number;
  clubUuid: string;
  name: string | null;
  scopes: string[];
  disabled: boolean;
  expiresAt: Date | null;
  /** Addresses and CIDR ranges as stored; [] = any address. */
  ipAllowlist: string[];
  secretVersion: number;
  secretHash: string;
  /** The club's general data-call limit; null = the default. */
  rateLimitPerMinute: number | null;
  /** The club's tracking:read limit; null = the default. */
  trackingRateLimitPerMinute: number | null;
  /** The club's tracking:write (IngestService) limit; null = the default. */
  ingestRateLimitPerMinute: number | null;
  /** Web origins whose pages may read its answers (CORS): its own and its club's. */
  allowedOrigins: string[];
}

/** A client as administrators see it: never its secret or hash. */
export interface ClientSummary {
  clientId: string;
  clubUuid: string;
  clubName: string;
  name: string | null;
  scopes: string[];
  disabled: boolean;
  expiresAt: Date | null;
  ipAllowlist: string[];
  /** The client's own web origins (CORS), without its club's. */
  allowedOrigins: string[];
  /** The club's web origins, shared by all its clients. */
  clubAllowedOrigins: string[];
  secretVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A client row to insert: scopes and allowlist already checked, the secret already hashed. */
export interface ClientRecord {
  clientId: string;
  clubUuid: string;
  name: string | null;
  secretHash: string;
  scopes: string[];
  expiresAt: Date | null;
  ipAllowlist: string[];
  /** Normalised web origins (auth/origins.ts). */
  allowedOrigins: string[];
}

export class UnknownClient extends Error {
  constructor(readonly clientId: string) {
    super(`unknown client "${clientId}"`);
    this.name = "UnknownClient";
  }
}

export class UnknownClub extends Error {
  constructor(readonly clubUuid: string) {
    super(`unknown club "${clubUuid}"`);
    this.name = "UnknownClub";
  }
}

export class ClientIdTaken extends Error {
  constructor(readonly clientId: string) {
    super(`client id "${clientId}" is already taken`);
    this.name = "ClientIdTaken";
  }
}

/** A value the schema or the API cannot take (client id, name, date, empty scope list). */
export class ClientInputInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClientInputInvalid";
  }
}

// Unreserved URI characters: safe in a form post, in HTTP Basic and on a command line.
const CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;
const NAME_MAX = 200;

export async function findClientState(db: Db, clientId: string): Promise<ClientState | null> {
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT c.id, c.client_id, c.club_id, k.uuid AS club_uuid, c.name, c.scopes, c.disabled, c.expires_at,
            c.ip_allowlist, c.secret_version, c.secret_hash, k.rate_limit_per_minute, k.tracking_rate_limit_per_minute,
            il.rate_limit_per_minute AS ingest_rate_limit_per_minute,
            ${ORIGINS_OF_CLIENT} AS client_origins, ${ORIGINS_OF_CLUB} AS club_origins
       FROM api_clients c JOIN clubs k ON k.id = c.club_id LEFT JOIN club_ingest_limits il ON il.club_id = c.club_id
      WHERE c.client_id = ?`,
    [clientId],
  );
  const row = rows[0];
  if (row === undefined) return null;
  return {
    id: Number(row.id),
    clientId: row.client_id as string,
    clubId: Number(row.club_id),
    clubUuid: row.club_uuid as string,
    name: (row.name as string | null) ?? null,
    scopes: splitScopes(row.scopes as string),
    disabled: Boolean(row.disabled),
    expiresAt: (row.expires_at as Date | null) ?? null,
    ipAllowlist: storedAllowlist(row.client_id as string, row.ip_allowlist as string),
    secretVersion: Number(row.secret_version),
    secretHash: row.secret_hash as string,
    rateLimitPerMinute: nullableNumber(row.rate_limit_per_minute),
    trackingRateLimitPerMinute: nullableNumber(row.tracking_rate_limit_per_minute),
    ingestRateLimitPerMinute: nullableNumber(row.ingest_rate_limit_per_minute),
    allowedOrigins: [...new Set([...originList(row.client_origins), ...originList(row.club_origins)])].sort(),
  };
}

/** Inserts a client; ClientIdTaken when its id is in use. */
export async function insertClient(db: Db, client: ClientRecord): Promise<void> {
  checkClientId(client.clientId);
  const name = checkName(client.name);
  const expiresAt = checkDate(client.expiresAt);
  const clubId = await findClubId(db, client.clubUuid);
  await transaction(db, async (conn) => {
    let inserted: ResultSetHeader;
    try {
      [inserted] = await conn.query<ResultSetHeader>(
        `INSERT INTO api_clients (client_id, club_id, name, secret_hash, secret_version, scopes, disabled, expires_at, ip_allowlist)
         VALUES (?, ?, ?, ?, 1, ?, FALSE, ?, ?)`,
        [client.clientId, clubId, name, client.secretHash, client.scopes.join(" "), expiresAt, JSON.stringify(client.ipAllowlist)],
      );
    } catch (error) {
      if ((error as { code?: string }).code === "ER_DUP_ENTRY") throw new ClientIdTaken(client.clientId);
      throw error;
    }
    await replaceClientOrigins(conn, inserted.insertId, client.allowedOrigins);
  });
}

/** Every client, or one club's, ordered by club name and client id. */
export async function listClients(db: Db, clubUuid?: string): Promise<ClientSummary[]> {
  const clubId = clubUuid === undefined ? null : await findClubId(db, clubUuid);
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT c.id, c.club_id, c.client_id, k.uuid AS club_uuid, k.name AS club_name, c.name, c.scopes, c.disabled, c.expires_at,
            c.ip_allowlist, c.secret_version, c.created_at, c.updated_at
       FROM api_clients c JOIN clubs k ON k.id = c.club_id
      ${clubId === null ? "" : "WHERE c.club_id = ?"}
      ORDER BY k.name, k.uuid, c.client_id`,
    clubId === null ? [] : [clubId],
  );
  const origins = await originsByOwner(db);
  return rows.map((row) => ({
    clientId: row.client_id as string,
    clubUuid: row.club_uuid as string,
    clubName: row.club_name as string,
    name: (row.name as string | null) ?? null,
    scopes: splitScopes(row.scopes as string),
    disabled: Boolean(row.disabled),
    expiresAt: (row.expires_at as Date | null) ?? null,
    ipAllowlist: storedAllowlist(row.client_id as string, row.ip_allowlist as string),
    allowedOrigins: origins.clients.get(Number(row.id)) ?? [],
    clubAllowedOrigins: origins.clubs.get(Number(row.club_id)) ?? [],
    secretVersion: Number(row.secret_version),
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  }));
}

/** A new secret's hash; bumping secret_version retires every token issued under the old one. */
export async function replaceSecretHash(db: Db, clientId: string, secretHash: string): Promise<void> {
  await update(db, clientId, "secret_hash = ?, secret_version = secret_version + 1", [secretHash]);
}

export async function setDisabled(db: Db, clientId: string, disabled: boolean): Promise<void> {
  await update(db, clientId, "disabled = ?", [disabled]);
}

/** null = never expires. */
export async function setExpiry(db: Db, clientId: string, expiresAt: Date | null): Promise<void> {
  await update(db, clientId, "expires_at = ?", [checkDate(expiresAt)]);
}

/** Checked entries (auth/ip-allowlist.ts); [] = any address. */
export async function writeAllowlist(db: Db, clientId: string, entries: readonly string[]): Promise<void> {
  await update(db, clientId, "ip_allowlist = ?", [JSON.stringify(entries)]);
}

/** Checked scopes (auth/scopes.ts). */
export async function writeScopes(db: Db, clientId: string, scopes: readonly string[]): Promise<void> {
  await update(db, clientId, "scopes = ?", [scopes.join(" ")]);
}

/** Normalised web origins (auth/origins.ts) of the client alone; [] = only its club's. */
export async function writeClientOrigins(db: Db, clientId: string, origins: readonly string[]): Promise<void> {
  await transaction(db, async (conn) => {
    const [rows] = await conn.query<RowDataPacket[]>("SELECT id FROM api_clients WHERE client_id = ? FOR UPDATE", [clientId]);
    if (rows[0] === undefined) throw new UnknownClient(clientId);
    await replaceClientOrigins(conn, Number(rows[0].id), origins);
    // Touch the client, so `clients list` shows when it changed.
    await conn.query("UPDATE api_clients SET updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?", [rows[0].id]);
  });
}

/** Normalised web origins (auth/origins.ts) every client of the club may be read from; [] = none. */
export async function writeClubOrigins(db: Db, clubUuid: string, origins: readonly string[]): Promise<void> {
  await transaction(db, async (conn) => replaceClubOrigins(conn, await findClubId(conn, clubUuid), origins));
}

/** `work` in one transaction: a connection of its own from a pool, or the caller's connection (and transaction). */
function transaction(db: Db, work: (conn: Db) => Promise<void>): Promise<void> {
  return "getConnection" in db ? inTransaction(db, work) : work(db);
}

async function update(db: Db, clientId: string, assignments: string, values: unknown[]): Promise<void> {
  // mysql2 connects with FOUND_ROWS, so affectedRows counts matched rows even when a
  // value is set to what it already was.
  const [result] = await db.query<ResultSetHeader>(`UPDATE api_clients SET ${assignments} WHERE client_id = ?`, [...values, clientId]);
  if (result.affectedRows === 0) throw new UnknownClient(clientId);
}

async function findClubId(db: Db, clubUuid: string): Promise<number> {
  if (!/^[0-9a-f-]{36}$/i.test(clubUuid)) throw new UnknownClub(clubUuid);
  // UUIDs are stored lower-case (the scenario format accepts either case).
  const [rows] = await db.query<RowDataPacket[]>("SELECT id FROM clubs WHERE uuid = ?", [clubUuid.toLowerCase()]);
  const row = rows[0];
  if (row === undefined) throw new UnknownClub(clubUuid);
  return Number(row.id);
}

function checkClientId(clientId: string): void {
  if (!CLIENT_ID.test(clientId)) {
    throw new ClientInputInvalid(`client id "${clientId}" must be 1 to 128 letters, digits, ".", "_", "~" or "-"`);
  }
}

function checkName(name: string | null): string | null {
  if (name === null || name.trim() === "") return null;
  if (name.length > NAME_MAX) throw new ClientInputInvalid(`client name "${name.slice(0, 20)}..." is longer than ${NAME_MAX} characters`);
  return name;
}

// The range of a DATETIME column.
const EARLIEST = Date.UTC(1000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function checkDate(date: Date | null): Date | null {
  if (date === null) return null;
  const time = date.getTime();
  if (Number.isNaN(time)) throw new ClientInputInvalid("the expiry is not a valid date");
  if (time < EARLIEST || time > LATEST) throw new ClientInputInvalid(`the expiry ${date.toISOString()} is outside the years 1000 to 9999`);
  return date;
}

function splitScopes(scopes: string): string[] {
  return scopes.split(" ").filter((scope) => scope !== "");
}

/** A malformed stored list is an error, never "any address": the guard must fail closed. */
function storedAllowlist(clientId: string, text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((entry) => typeof entry === "string")) {
    throw new Error(`api_clients.ip_allowlist of client "${clientId}" is not a JSON array of strings`);
  }
  return parsed;
}

function nullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
