// `race-api import`: a scenario file goes in whole or not at all. It is validated
// (schema, then cross rules against the file and what the database already holds),
// secrets are hashed outside the transaction (scrypt is deliberately slow), and then
// one transaction writes everything.

import { readFile } from "node:fs/promises";
import { parseOrigins } from "../auth/origins.js";
import { hashSecret, verifySecret } from "../auth/secrets.js";
import { inTransaction, type Pool } from "../store/pool.js";
import {
  findStoredIds,
  storedSecretHashes,
  writeScenario,
  type SecretChange,
  type StoredIds,
  type WriteCounts,
} from "../store/scenario-writes.js";
import type { Client, Scenario } from "../domain/scenario.js";
import { externalReferences, findCrossRuleProblem, validateScenarioShape, type ScenarioProblem } from "./validate.js";

export class ScenarioRejected extends Error {
  constructor(readonly problem: ScenarioProblem) {
    super(`${problem.path}: ${problem.message}`);
    this.name = "ScenarioRejected";
  }
}

export interface ImportSummary extends WriteCounts {
  secretRotations: number;
}

export async function importScenarioFile(pool: Pool, file: string): Promise<ImportSummary> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ScenarioRejected({ path: "$", message: `not a JSON document (${(error as Error).message})` });
  }
  return importScenario(pool, doc);
}

export async function importScenario(pool: Pool, doc: unknown): Promise<ImportSummary> {
  const { scenario, stored } = await validated(pool, doc);
  const secrets = await secretChanges(pool, scenario.clients);
  const counts = await inTransaction(pool, (conn) => writeScenario(conn, scenario, stored, secrets));
  return { ...counts, secretRotations: [...secrets.values()].filter((s) => s.kind === "rotated").length };
}

async function validated(pool: Pool, doc: unknown): Promise<{ scenario: Scenario; stored: StoredIds }> {
  const shaped = validateScenarioShape(doc);
  if (!shaped.ok) throw new ScenarioRejected(shaped.problem);
  const references = externalReferences(shaped.scenario);
  const stored = await findStoredIds(pool, references.clubIds, references.entryIds);
  const problem = findCrossRuleProblem(shaped.scenario, {
    clubIds: new Set(stored.clubs.keys()),
    entryEvents: new Map([...stored.entries].map(([id, entry]) => [id, entry.eventUuid])),
  });
  if (problem) throw new ScenarioRejected(problem);
  return { scenario: withOriginsAsBrowsersSendThem(shaped.scenario), stored };
}

/** Origins are stored as browsers send them (lower-case, no default port), so a page's Origin matches. */
function withOriginsAsBrowsersSendThem(scenario: Scenario): Scenario {
  const normalised = <T extends { allowedOrigins?: string[] }>(owner: T): T =>
    owner.allowedOrigins ? { ...owner, allowedOrigins: parseOrigins(owner.allowedOrigins) } : owner;
  return { ...scenario, clubs: scenario.clubs.map(normalised), clients: scenario.clients.map(normalised) };
}

/** A secret that still verifies against the stored hash is not a rotation. */
async function secretChanges(pool: Pool, clients: Client[]): Promise<Map<string, SecretChange>> {
  const stored = await storedSecretHashes(
    pool,
    clients.map((c) => c.clientId),
  );
  const changes = new Map<string, SecretChange>();
  for (const client of clients) {
    const hash = stored.get(client.clientId);
    if (hash !== undefined && (await verifySecret(client.clientSecret, hash))) changes.set(client.clientId, { kind: "unchanged" });
    else changes.set(client.clientId, { kind: hash === undefined ? "new" : "rotated", hash: await hashSecret(client.clientSecret) });
  }
  return changes;
}
