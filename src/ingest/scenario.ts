// ApplyScenario: the events part of a race-scenario/v1 document, applied exactly as
// `race-api import` applies a file (the same validation, the same one transaction),
// fenced to the caller's club: every event must be the club's own, no id may belong
// to another club, and nothing may break the track promises: no tracks, nothing that
// changes a settled track window (scenario/settled.ts), a raised delay keeps its edge,
// a shortened one is held for readers.

import { toJson } from "@bufbuild/protobuf";
import { ListValueSchema, type ListValue } from "@bufbuild/protobuf/wkt";
import type { Caller } from "../auth/guard.js";
import { DELAY_HOLD_MS } from "../domain/fix-rules.js";
import { ApiError } from "../errors/api-error.js";
import { importScenario, ScenarioRejected, type ImportSummary } from "../scenario/import.js";
import { SCENARIO_FORMAT, type Scenario } from "../domain/scenario.js";
import { validateScenarioShape } from "../scenario/validate.js";
import { holdDelay, idsOfOtherClubs, storedEvents } from "../store/ingest.js";
import { inTransaction, type Pool } from "../store/pool.js";

export async function applyScenario(pool: Pool, caller: Caller, events: ListValue | undefined): Promise<ImportSummary> {
  if (events === undefined) throw refused("events");
  const doc = { format: SCENARIO_FORMAT, clubs: [], clients: [], events: toJson(ListValueSchema, events) };
  const shaped = validateScenarioShape(doc);
  if (!shaped.ok) throw refused(shaped.problem.path);
  const shortened = await checkFence(pool, caller, shaped.scenario);
  try {
    const summary = await importScenario(pool, shaped.scenario, "keep");
    // Held again from the commit, however long the import took (see checkFence).
    await holdDelays(pool, shortened);
    return summary;
  } catch (error) {
    if (error instanceof ScenarioRejected) throw refused(error.problem.path);
    throw error;
  }
}

/** Readers keep each event's longer delay for DELAY_HOLD_MS from now (see UpdateEvent). */
async function holdDelays(pool: Pool, events: ReadonlyArray<{ id: number; delaySeconds: number }>): Promise<void> {
  for (const event of events) {
    const nowMs = Date.now();
    await inTransaction(pool, (conn) => holdDelay(conn, event.id, event.delaySeconds, nowMs, nowMs + DELAY_HOLD_MS));
  }
}

/** Refuses what the caller may not apply; answers the stored events whose delay the scenario shortens, their delays held. */
async function checkFence(pool: Pool, caller: Caller, scenario: Scenario): Promise<Array<{ id: number; delaySeconds: number }>> {
  const lower = (id: string) => id.toLowerCase();
  for (const [e, event] of scenario.events.entries()) {
    if (lower(event.clubId) !== caller.clubUuid) throw refused(`$.events[${e}].clubId`);
    for (const [r, race] of event.races.entries()) {
      for (const [g, group] of race.startGroups.entries()) {
        if (group.tracks !== undefined && group.tracks.length > 0) throw refused(`$.events[${e}].races[${r}].startGroups[${g}].tracks`);
      }
    }
  }
  const groups = scenario.events.flatMap((event, e) =>
    event.races.flatMap((race, r) => race.startGroups.map((group, g) => ({ group, path: `$.events[${e}].races[${r}].startGroups[${g}]` }))),
  );
  const taken = await idsOfOtherClubs(pool, caller.clubId, {
    events: scenario.events.map((event) => lower(event.id)),
    entries: scenario.events.flatMap((event) => event.entries.map((entry) => lower(entry.id))),
    races: scenario.events.flatMap((event) => event.races.map((race) => lower(race.id))),
    startGroups: groups.map(({ group }) => lower(group.id)),
  });
  for (const [e, event] of scenario.events.entries()) {
    if (taken.has(lower(event.id))) throw refused(`$.events[${e}].id`);
    for (const [n, entry] of event.entries.entries()) if (taken.has(lower(entry.id))) throw refused(`$.events[${e}].entries[${n}].id`);
    for (const [r, race] of event.races.entries()) if (taken.has(lower(race.id))) throw refused(`$.events[${e}].races[${r}].id`);
  }
  for (const { group, path } of groups) if (taken.has(lower(group.id))) throw refused(`${path}.id`);

  // A shortened delay: readers keep the longer one's settled edge from before the import
  // until after it (see UpdateEvent). The gun and a raised delay's edge are checked and
  // kept inside the import's transaction (scenario/settled.ts).
  const stored = await storedEvents(
    pool,
    scenario.events.map((event) => lower(event.id)),
  );
  const shortened = scenario.events.flatMap((event) => {
    const before = stored.get(lower(event.id));
    return before && (event.delaySeconds ?? 0) < before.delaySeconds ? [{ id: before.id, delaySeconds: before.delaySeconds }] : [];
  });
  await holdDelays(pool, shortened);
  return shortened;
}

function refused(path: string): ApiError {
  return new ApiError("API_PARAM_INVALID", { name: path });
}
