// The administration of API clients behind `race-api clients`: checks scopes,
// allowlists and web origins, makes secrets and hashes them, then writes plain rows
// through store/clients.ts. A secret leaves this module once, when made.

import { randomBytes } from "node:crypto";
import {
  ClientInputInvalid,
  insertClient,
  replaceSecretHash,
  writeAllowlist,
  writeClientOrigins,
  writeClubOrigins,
  writeScopes,
} from "../store/clients.js";
import type { Connection, Pool } from "../store/pool.js";
import { parseAllowlist } from "./ip-allowlist.js";
import { parseOrigins } from "./origins.js";
import { parseScopes } from "./scopes.js";
import { hashSecret } from "./secrets.js";

type Db = Pool | Connection;

const SECRET_BYTES = 32;

export interface NewClient {
  clubUuid: string;
  /** Default: `client-` and 12 random hex digits. */
  clientId?: string;
  name?: string | null;
  scopes: string[];
  /** Default: never expires. */
  expiresAt?: Date | null;
  /** Default: [] (any address). */
  ipAllowlist?: string[];
  /** Web origins whose pages may read its answers (CORS); default: only its club's. */
  allowedOrigins?: string[];
}

/** Creates a client and returns its secret: the only time anyone sees it. */
export async function createClient(db: Db, client: NewClient): Promise<{ clientId: string; secret: string }> {
  const clientId = client.clientId ?? `client-${randomBytes(6).toString("hex")}`;
  const scopes = checkScopes(client.scopes);
  const ipAllowlist = checkAllowlist(client.ipAllowlist ?? []);
  const allowedOrigins = parseOrigins(client.allowedOrigins ?? []);
  const secret = newSecret();
  const secretHash = await hashSecret(secret);
  await insertClient(db, {
    clientId,
    clubUuid: client.clubUuid,
    name: client.name ?? null,
    secretHash,
    scopes,
    expiresAt: client.expiresAt ?? null,
    ipAllowlist,
    allowedOrigins,
  });
  return { clientId, secret };
}

/** A new secret, returned once; tokens issued under the old one die with it. */
export async function rotateSecret(db: Db, clientId: string): Promise<string> {
  const secret = newSecret();
  await replaceSecretHash(db, clientId, await hashSecret(secret));
  return secret;
}

/** [] = any address. */
export async function setAllowlist(db: Db, clientId: string, entries: string[]): Promise<void> {
  await writeAllowlist(db, clientId, checkAllowlist(entries));
}

export async function setScopes(db: Db, clientId: string, scopes: string[]): Promise<void> {
  await writeScopes(db, clientId, checkScopes(scopes));
}

/** The client's own web origins (CORS); [] = only its club's. Returns them normalised. */
export async function setClientOrigins(db: Db, clientId: string, entries: string[]): Promise<string[]> {
  const origins = parseOrigins(entries);
  await writeClientOrigins(db, clientId, origins);
  return origins;
}

/** The web origins (CORS) every client of the club may be read from; [] = none. Returns them normalised. */
export async function setClubOrigins(db: Db, clubUuid: string, entries: string[]): Promise<string[]> {
  const origins = parseOrigins(entries);
  await writeClubOrigins(db, clubUuid, origins);
  return origins;
}

function newSecret(): string {
  return randomBytes(SECRET_BYTES).toString("base64url");
}

function checkScopes(scopes: string[]): string[] {
  const parsed = parseScopes(scopes);
  if (parsed.length === 0) throw new ClientInputInvalid("a client needs at least one scope");
  return parsed;
}

function checkAllowlist(entries: string[]): string[] {
  return [...parseAllowlist(entries).entries];
}
