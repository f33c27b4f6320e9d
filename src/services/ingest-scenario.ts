// ApplyScenario: the events part of a race-scenario/v1 document, applied exactly as
// `race-api import` applies a file (the same validation, the same one transaction),
// fenced to the caller's club: every event must be the club's own, no id may belong
// to another club, and nothing may break the track promises: no tracks, nothing that
// changes a settled track window (scenario/settled.ts), a raised delay keeps its edge.

import { toJson } from "@bufbuild/protobuf";
import { ListValueSchema, type ListValue } from "@bufbuild/protobuf/wkt";
import type { Caller } from "../auth/guard.js";
import { ApiError } from "../errors/api-error.js";
import { importScenario, ScenarioRejected, type ImportSummary } from "../scenario/import.js";
import { SCENARIO_FORMAT, type Scenario } from "../domain/scenario.js";
import { validateScenarioShape } from "../scenario/validate.js";
import { idsOfOtherClubs } from "../store/ingest.js";
import type { Pool } from "../store/pool.js";

export async function applyScenario(pool: Pool, caller: Caller, events: ListValue | undefined): Promise<ImportSummary> {
  if (events === undefined) throw refused("events");
  const doc = { format: SCENARIO_FORMAT, clubs: [], clients: [], events: toJson(ListValueSchema, events) };
  const shaped = validateScenarioShape(doc);
  if (!shaped.ok) throw refused(shaped.problem.path);
  await checkFence(pool, caller, shaped.scenario);
  try {
    return await importScenario(pool, shaped.scenario, "keep");
  } catch (error) {
    if (error instanceof ScenarioRejected) throw refused(error.problem.path);
    throw error;
  }
}

async function checkFence(pool: Pool, caller: Caller, scenario: Scenario): Promise<void> {
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
}

function refused(path: string): ApiError {
  return new ApiError("API_PARAM_INVALID", { name: path });
}
