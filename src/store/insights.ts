// Live insights in MySQL: each race's generation state and lease, its facts, their
// phrased texts per language, and the languages recently asked for. Everything an
// instance needs to serve what another generated.

import type { ResultSetHeader, RowDataPacket } from "mysql2/promise";
import type { Fact } from "../domain/facts.js";
import type { Connection, Pool } from "./pool.js";

type Db = Pool | Connection;

export interface GenerationState {
  generatedAtMs: number | null;
  /** The generation's cut-off: generation time minus the event's delay. */
  dataAsOfMs: number | null;
  /** Detection has covered the race up to here. */
  coveredToMs: number | null;
}

export interface PhrasedText {
  text: string;
  source: "model" | "template";
}

const ms = (value: unknown) => (value instanceof Date ? value.getTime() : null);

export async function generationState(db: Db, raceId: number): Promise<GenerationState> {
  const [[row]] = await db.query<RowDataPacket[]>(
    "SELECT generated_at, data_as_of, covered_to FROM insight_generations WHERE race_id = ?",
    [raceId],
  );
  return { generatedAtMs: ms(row?.generated_at), dataAsOfMs: ms(row?.data_as_of), coveredToMs: ms(row?.covered_to) };
}

/**
 * Takes the race's generation lease if generation is due (never generated, or last at
 * or before `dueIfGeneratedBy`) and no other instance holds an unexpired lease. One
 * conditional UPDATE, so of several instances exactly one wins.
 */
export async function takeLease(
  db: Db,
  raceId: number,
  owner: string,
  nowMs: number,
  dueIfGeneratedBy: number,
  leaseMs: number,
): Promise<boolean> {
  await db.query("INSERT IGNORE INTO insight_generations (race_id) VALUES (?)", [raceId]);
  const [result] = await db.query<ResultSetHeader>(
    `UPDATE insight_generations SET lease_owner = ?, lease_until = ?
     WHERE race_id = ? AND (lease_until IS NULL OR lease_until < ?) AND (generated_at IS NULL OR generated_at <= ?)`,
    [owner, new Date(nowMs + leaseMs), raceId, new Date(nowMs), new Date(dueIfGeneratedBy)],
  );
  return result.affectedRows === 1;
}

export async function finishGeneration(
  db: Db,
  raceId: number,
  owner: string,
  state: Required<{ [K in keyof GenerationState]: number }>,
): Promise<void> {
  await db.query(
    `UPDATE insight_generations SET generated_at = ?, data_as_of = ?, covered_to = ?, lease_owner = NULL, lease_until = NULL
     WHERE race_id = ? AND lease_owner = ?`,
    [new Date(state.generatedAtMs), new Date(state.dataAsOfMs), new Date(state.coveredToMs), raceId, owner],
  );
}

export async function releaseLease(db: Db, raceId: number, owner: string): Promise<void> {
  await db.query("UPDATE insight_generations SET lease_owner = NULL, lease_until = NULL WHERE race_id = ? AND lease_owner = ?", [
    raceId,
    owner,
  ]);
}

/** Facts are keyed by their stable id: detecting one again replaces it with the same content. */
export async function saveFacts(db: Db, raceId: number, facts: readonly Fact[]): Promise<void> {
  if (facts.length === 0) return;
  await db.query(
    "INSERT INTO insight_facts (race_id, fact_id, at, fact) VALUES ? ON DUPLICATE KEY UPDATE at = VALUES(at), fact = VALUES(fact)",
    [facts.map((fact) => [raceId, fact.id, new Date(fact.atMs), JSON.stringify(fact)])],
  );
}

/** Facts with fromMs < at <= toMs, newest first (ties by id), at most `limit`. */
export async function factsBetween(db: Db, raceId: number, fromMs: number, toMs: number, limit: number): Promise<Fact[]> {
  const [rows] = await db.query<RowDataPacket[]>(
    "SELECT fact FROM insight_facts WHERE race_id = ? AND at > ? AND at <= ? ORDER BY at DESC, fact_id LIMIT ?",
    [raceId, new Date(fromMs), new Date(toMs), limit],
  );
  return rows.map((row) => JSON.parse(row.fact as string) as Fact);
}

/** A model line is never replaced by a template line: a later call may only upgrade. */
export async function saveTexts(db: Db, raceId: number, lang: string, texts: ReadonlyMap<string, PhrasedText>): Promise<void> {
  if (texts.size === 0) return;
  await db.query(
    `INSERT INTO insight_texts (race_id, fact_id, lang, text, source) VALUES ?
     ON DUPLICATE KEY UPDATE text = IF(source = 'model' AND VALUES(source) = 'template', text, VALUES(text)),
       source = IF(source = 'model', 'model', VALUES(source))`,
    [[...texts].map(([factId, phrased]) => [raceId, factId, lang, phrased.text, phrased.source])],
  );
}

export async function textsFor(db: Db, raceId: number, lang: string, factIds: readonly string[]): Promise<Map<string, PhrasedText>> {
  if (factIds.length === 0) return new Map();
  const [rows] = await db.query<RowDataPacket[]>(
    "SELECT fact_id, text, source FROM insight_texts WHERE race_id = ? AND lang = ? AND fact_id IN (?)",
    [raceId, lang, factIds],
  );
  return new Map(rows.map((row) => [row.fact_id as string, { text: row.text as string, source: row.source as PhrasedText["source"] }]));
}

/** Remembers that `lang` was asked for; returns when it was last phrased (null: never). */
export async function noteLanguage(db: Db, raceId: number, lang: string, nowMs: number): Promise<number | null> {
  await db.query(
    "INSERT INTO insight_languages (race_id, lang, requested_at) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE requested_at = GREATEST(requested_at, VALUES(requested_at))",
    [raceId, lang, new Date(nowMs)],
  );
  const [[row]] = await db.query<RowDataPacket[]>("SELECT phrased_at FROM insight_languages WHERE race_id = ? AND lang = ?", [
    raceId,
    lang,
  ]);
  return ms(row?.phrased_at);
}

export async function languagesRequestedSince(db: Db, raceId: number, sinceMs: number): Promise<string[]> {
  const [rows] = await db.query<RowDataPacket[]>(
    "SELECT lang FROM insight_languages WHERE race_id = ? AND requested_at >= ? ORDER BY lang",
    [raceId, new Date(sinceMs)],
  );
  return rows.map((row) => row.lang as string);
}

export async function markPhrased(db: Db, raceId: number, lang: string, atMs: number): Promise<void> {
  await db.query("UPDATE insight_languages SET phrased_at = ? WHERE race_id = ? AND lang = ?", [new Date(atMs), raceId, lang]);
}
