// The administration of API clients behind `race-api clients`: checks scopes and
// allowlists, makes secrets and hashes them, then writes plain rows through
// store/clients.ts. A secret leaves this module once, when made.

import { randomBytes } from "node:crypto";
import { ClientInputInvalid, insertClient, replaceSecretHash, writeAllowlist, writeScopes } from "../store/clients.js";
import type { Connection, Pool } from "../store/pool.js";
import { parseAllowlist } from "./ip-allowlist.js";
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
}

/** Creates a client and returns its secret: the only time anyone sees it. */
export async function createClient(db: Db, client: NewClient): Promise<{ clientId: string; secret: string }> {
  const clientId = client.clientId ?? `client-${randomBytes(6).toString("hex")}`;
  const scopes = checkScopes(client.scopes);
  const ipAllowlist = checkAllowlist(client.ipAllowlist ?? []);
  const secret = newSecret();
  const secretHash = await hashSecret(secret);
  await insertClient(db, { clientId, clubUuid: client.clubUuid, name: client.name ?? null, secretHash, scopes, expiresAt: client.expiresAt ?? null, ipAllowlist });
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
