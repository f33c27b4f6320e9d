// `race-api import`: a scenario file goes in whole or not at all. It is validated
// (schema, then cross rules against the file and what the database already holds),
// secrets are hashed outside the transaction (scrypt is deliberately slow), and then
// one transaction writes everything. That transaction first checks what the file
// would change of track windows already served as immutable (settled.ts): kept
// (ApplyScenario: refused) or overridden (`race-api import`: written and reported).

import { readFile } from "node:fs/promises";
import { parseOrigins } from "../auth/origins.js";
import { hashSecret, verifySecret } from "../auth/secrets.js";
import { COMMIT_DEADLINE_MS } from "../domain/fix-rules.js";
import { tracksReadable } from "../domain/settled-window.js";
import { ApiError } from "../errors/api-error.js";
import { markTracksReadable } from "../store/ingest.js";
import { inTransactionRetryingDeadlocks, type Pool } from "../store/pool.js";
import {
  findStoredIds,
  storedSecretHashes,
  writeScenario,
  type SecretChange,
  type StoredIds,
  type WriteCounts,
} from "../store/scenario-writes.js";
import type { Client, Scenario } from "../domain/scenario.js";
import { keepSettledFloors, settledWindowChanges } from "./settled.js";
import { externalReferences, findCrossRuleProblem, validateScenarioShape, type ScenarioProblem } from "./validate.js";

export class ScenarioRejected extends Error {
  constructor(readonly problem: ScenarioProblem) {
    super(`${problem.path}: ${problem.message}`);
    this.name = "ScenarioRejected";
  }
}

export interface ImportSummary extends WriteCounts {
  secretRotations: number;
  /** JSON paths of what changed track windows that may have been served as immutable (override only). */
  settledOverrides: string[];
}

/**
 * What the import does with a change to a settled track window: `keep` refuses the
 * file (naming the path), `override` writes it and reports the paths.
 */
export type SettledWindows = "keep" | "override";

export async function importScenarioFile(pool: Pool, file: string, settled: SettledWindows = "override"): Promise<ImportSummary> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ScenarioRejected({ path: "$", message: `not a JSON document (${(error as Error).message})` });
  }
  return importScenario(pool, doc, settled);
}

export async function importScenario(pool: Pool, doc: unknown, settled: SettledWindows = "override"): Promise<ImportSummary> {
  const { scenario, stored } = await validated(pool, doc);
  const secrets = await secretChanges(pool, scenario.clients);
  const written = await inTransactionRetryingDeadlocks(pool, async (conn) => {
    const checkedMs = Date.now();
    const changes = await settledWindowChanges(conn, scenario, checkedMs);
    if (settled === "keep" && changes.length > 0) throw new ScenarioRejected(changes[0]!);
    await keepSettledFloors(conn, scenario, checkedMs);
    const counts = await writeScenario(conn, scenario, stored, secrets);
    // Published and shared now: its windows may be served from this commit on (LoadRecordedTracks).
    const readable = scenario.events.filter((event) =>
      tracksReadable({ published: event.published ?? true, trackingShared: event.trackingShared ?? false, legacy: event.legacy ?? false }),
    );
    await markTracksReadable(
      conn,
      readable.map((event) => event.id.toLowerCase()),
      checkedMs,
    );
    // As for a batch of fixes: what was checked as not yet settled must be visible before it can be.
    if (settled === "keep" && Date.now() - checkedMs > COMMIT_DEADLINE_MS) throw new ApiError("API_UNAVAILABLE");
    return { counts, settledOverrides: changes.map((change) => change.path) };
  });
  return {
    ...written.counts,
    secretRotations: [...secrets.values()].filter((s) => s.kind === "rotated").length,
    settledOverrides: written.settledOverrides,
  };
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
