// Decides whether a document is an importable `race-scenario/v1` file: the JSON
// Schema first, then the cross rules of the format's README that a schema cannot say.
// The first problem found is reported with its JSON path; the importer refuses the
// whole file on any problem.

import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import addFormatsPlugin from "ajv-formats";
import schema from "./scenario.schema.json" with { type: "json" };
import { parseAllowlist } from "../auth/ip-allowlist.js";
import { InvalidOrigin, parseOrigin } from "../auth/origins.js";
import { isScope, SCOPES } from "../auth/scopes.js";
import type { Scenario, StartGroup } from "../domain/scenario.js";

export interface ScenarioProblem {
  /** JSONPath of the offending value, e.g. `$.events[0].races[0].startGroups[1].tracks[3].t[17]`. */
  path: string;
  message: string;
}

export type ScenarioValidation = { ok: true; scenario: Scenario } | { ok: false; problem: ScenarioProblem };

/** What the database already holds that a file may reference without defining it. */
export interface KnownIds {
  clubIds: ReadonlySet<string>;
  /** Entry id -> id of the event the entry belongs to. */
  entryEvents: ReadonlyMap<string, string>;
}

export const NOTHING_KNOWN: KnownIds = { clubIds: new Set(), entryEvents: new Map() };

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;
const ajv = new Ajv2020({ allErrors: false, strict: true });
addFormats(ajv, ["date-time"]);
const matchesSchema = ajv.compile<Scenario>(schema);

/** Schema and cross rules against what the file itself defines (nothing known in a database). */
export function validateScenario(doc: unknown, known: KnownIds = NOTHING_KNOWN): ScenarioValidation {
  const shaped = validateScenarioShape(doc);
  if (!shaped.ok) return shaped;
  const problem = findCrossRuleProblem(shaped.scenario, known);
  return problem ? { ok: false, problem } : shaped;
}

export function validateScenarioShape(doc: unknown): ScenarioValidation {
  if (matchesSchema(doc)) return { ok: true, scenario: doc };
  const error = matchesSchema.errors?.[0];
  if (!error) return { ok: false, problem: { path: "$", message: "does not match the race-scenario/v1 schema" } };
  return { ok: false, problem: describeSchemaError(error) };
}

/** Ids a file references without defining them; the importer looks these up in the database. */
export function externalReferences(scenario: Scenario): { clubIds: string[]; entryIds: string[] } {
  const clubIds = new Set(scenario.clubs.map((c) => lower(c.id)));
  const entryIds = new Set(scenario.events.flatMap((e) => e.entries.map((en) => lower(en.id))));
  const referencedClubs = [
    ...scenario.clients.map((c) => c.clubId),
    ...scenario.events.flatMap((e) => [e.clubId, ...(e.coHostClubIds ?? [])]),
  ].map(lower);
  const referencedEntries = scenario.events.flatMap((e) => e.races.flatMap((r) => r.startGroups.flatMap((g) => g.entryIds))).map(lower);
  return {
    clubIds: [...new Set(referencedClubs.filter((id) => !clubIds.has(id)))],
    // Entries defined in the file are looked up too: an entry may not move to another event.
    entryIds: [...new Set([...referencedEntries, ...entryIds])],
  };
}

export function findCrossRuleProblem(scenario: Scenario, known: KnownIds): ScenarioProblem | null {
  const problems = crossRuleProblems(scenario, known);
  const first = problems.next();
  return first.done ? null : first.value;
}

function* crossRuleProblems(s: Scenario, known: KnownIds): Generator<ScenarioProblem> {
  const clubIds = new Set(known.clubIds);
  const seenClubs = new Set<string>();
  for (const [i, club] of s.clubs.entries()) {
    const id = lower(club.id);
    if (seenClubs.has(id)) yield { path: `$.clubs[${i}].id`, message: `duplicate club id ${club.id}` };
    seenClubs.add(id);
    clubIds.add(id);
    yield* originProblems(`$.clubs[${i}].allowedOrigins`, club.allowedOrigins);
  }
  const clubExists = (path: string, id: string): ScenarioProblem | null =>
    clubIds.has(lower(id)) ? null : { path, message: `unknown club ${id}` };

  const seenClients = new Set<string>();
  for (const [i, client] of s.clients.entries()) {
    if (seenClients.has(client.clientId)) yield { path: `$.clients[${i}].clientId`, message: `duplicate clientId ${client.clientId}` };
    seenClients.add(client.clientId);
    const problem = clubExists(`$.clients[${i}].clubId`, client.clubId);
    if (problem) yield problem;
    for (const [k, scope] of client.scopes.entries()) {
      if (!isScope(scope))
        yield { path: `$.clients[${i}].scopes[${k}]`, message: `unknown scope ${scope}; the scopes are ${Object.keys(SCOPES).join(", ")}` };
    }
    for (const [k, entry] of (client.ipAllowlist ?? []).entries()) {
      try {
        parseAllowlist([entry]);
      } catch {
        yield { path: `$.clients[${i}].ipAllowlist[${k}]`, message: `${entry} is not an IPv4 or IPv6 address or CIDR range` };
      }
    }
    yield* originProblems(`$.clients[${i}].allowedOrigins`, client.allowedOrigins);
  }

  const ids = { event: new Set<string>(), entry: new Set<string>(), race: new Set<string>(), "start group": new Set<string>() };
  const unique = (kind: keyof typeof ids, id: string, path: string): ScenarioProblem | null => {
    const key = lower(id);
    if (ids[kind].has(key)) return { path, message: `duplicate ${kind} id ${id}` };
    ids[kind].add(key);
    return null;
  };

  for (const [e, event] of s.events.entries()) {
    const ep = `$.events[${e}]`;
    const dup = unique("event", event.id, `${ep}.id`);
    if (dup) yield dup;
    const owner = clubExists(`${ep}.clubId`, event.clubId);
    if (owner) yield owner;
    for (const [c, coHost] of (event.coHostClubIds ?? []).entries()) {
      const problem = clubExists(`${ep}.coHostClubIds[${c}]`, coHost);
      if (problem) yield problem;
    }
    const eventEntries = new Set<string>();
    for (const [n, entry] of event.entries.entries()) {
      const path = `${ep}.entries[${n}].id`;
      const problem = unique("entry", entry.id, path);
      if (problem) yield problem;
      const storedEvent = known.entryEvents.get(lower(entry.id));
      if (storedEvent !== undefined && storedEvent !== lower(event.id)) {
        yield { path, message: `entry ${entry.id} already belongs to another event` };
      }
      eventEntries.add(lower(entry.id));
    }
    const belongsToEvent = (id: string) => eventEntries.has(lower(id)) || known.entryEvents.get(lower(id)) === lower(event.id);

    for (const [r, race] of event.races.entries()) {
      const rp = `${ep}.races[${r}]`;
      const problem = unique("race", race.id, `${rp}.id`);
      if (problem) yield problem;
      for (const [g, group] of race.startGroups.entries()) {
        const gp = `${rp}.startGroups[${g}]`;
        const dupGroup = unique("start group", group.id, `${gp}.id`);
        if (dupGroup) yield dupGroup;
        for (const [k, entryId] of group.entryIds.entries()) {
          if (!belongsToEvent(entryId)) yield { path: `${gp}.entryIds[${k}]`, message: `entry ${entryId} is not an entry of this event` };
        }
        yield* startGroupProblems(group, gp);
      }
    }
  }
}

/** Rules inside one start group: references to its own entries, keys by time, aligned tracks. */
function* startGroupProblems(group: StartGroup, gp: string): Generator<ScenarioProblem> {
  const members = new Set(group.entryIds.map(lower));
  const seenMembers = new Set<string>();
  for (const [k, entryId] of group.entryIds.entries()) {
    if (seenMembers.has(lower(entryId))) yield { path: `${gp}.entryIds[${k}]`, message: `duplicate entry id ${entryId}` };
    seenMembers.add(lower(entryId));
  }
  const member = (path: string, entryId: string): ScenarioProblem | null =>
    members.has(lower(entryId)) ? null : { path, message: `entry ${entryId} is not in this start group's entryIds` };

  yield* duplicateKeys(group.courses ?? [], (c) => String(c.version), `${gp}.courses`, "version", "course version");
  yield* duplicateKeys(group.wind ?? [], (w) => instant(w.measuredAtUtc), `${gp}.wind`, "measuredAtUtc", "wind reading time");
  yield* duplicateKeys(group.liveOrder ?? [], (o) => instant(o.asOfUtc), `${gp}.liveOrder`, "asOfUtc", "live-order reading time");
  for (const [o, reading] of (group.liveOrder ?? []).entries()) {
    const op = `${gp}.liveOrder[${o}].rows`;
    yield* duplicateKeys(reading.rows, (row) => lower(row.entryId), op, "entryId", "entry in one reading");
    for (const [w, row] of reading.rows.entries()) {
      const problem = member(`${op}[${w}].entryId`, row.entryId);
      if (problem) yield problem;
    }
  }
  const finishes = group.finishes ?? [];
  yield* duplicateKeys(finishes, (f) => `${lower(f.entryId)}@${instant(f.finishTimeUtc)}`, `${gp}.finishes`, "finishTimeUtc", "finish");
  for (const [f, finish] of finishes.entries()) {
    const problem = member(`${gp}.finishes[${f}].entryId`, finish.entryId);
    if (problem) yield problem;
  }
  const tracks = group.tracks ?? [];
  yield* duplicateKeys(tracks, (t) => lower(t.entryId), `${gp}.tracks`, "entryId", "track for one entry");
  for (const [k, track] of tracks.entries()) {
    const tp = `${gp}.tracks[${k}]`;
    const problem = member(`${tp}.entryId`, track.entryId);
    if (problem) yield problem;
    for (const name of ["lat", "lon", "sogKn", "cogDeg", "accuracyM"] as const) {
      const values = track[name];
      if (values !== undefined && values.length !== track.t.length) {
        yield { path: `${tp}.${name}`, message: `has ${values.length} values but t has ${track.t.length}` };
      }
    }
    for (let i = 1; i < track.t.length; i++) {
      if (track.t[i]! <= track.t[i - 1]!) yield { path: `${tp}.t[${i}]`, message: "t must be strictly ascending" };
    }
  }
  const results = group.results;
  if (results) {
    const rp = `${gp}.results.rows`;
    yield* duplicateKeys(results.rows, (row) => lower(row.entryId), rp, "entryId", "entry in results");
    for (const [w, row] of results.rows.entries()) {
      const problem = member(`${rp}[${w}].entryId`, row.entryId);
      if (problem) yield problem;
    }
  }
}

function* originProblems(path: string, origins: readonly string[] | undefined): Generator<ScenarioProblem> {
  for (const [k, origin] of (origins ?? []).entries()) {
    try {
      parseOrigin(origin);
    } catch (error) {
      if (!(error instanceof InvalidOrigin)) throw error;
      yield { path: `${path}[${k}]`, message: error.message };
    }
  }
}

function* duplicateKeys<T>(
  items: readonly T[],
  key: (item: T) => string,
  path: string,
  field: string,
  what: string,
): Generator<ScenarioProblem> {
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    const k = key(item);
    if (seen.has(k)) yield { path: `${path}[${i}].${field}`, message: `duplicate ${what}` };
    seen.add(k);
  }
}

function describeSchemaError(error: ErrorObject): ScenarioProblem {
  const path = jsonPath(error.instancePath);
  if (error.keyword === "required") {
    return { path: `${path}${member(String(error.params.missingProperty))}`, message: "is required" };
  }
  if (error.keyword === "additionalProperties") {
    return { path: `${path}${member(String(error.params.additionalProperty))}`, message: "is not a field of race-scenario/v1" };
  }
  if (error.keyword === "pattern" && error.schemaPath.startsWith("#/$defs/uuid/")) return { path, message: "must be a UUID" };
  return { path, message: error.message ?? `fails ${error.keyword}` };
}

/** Ajv reports JSON Pointers (`/events/0/name`); people read JSONPath (`$.events[0].name`). */
function jsonPath(pointer: string): string {
  if (pointer === "") return "$";
  const segments = pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  return `$${segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : member(s))).join("")}`;
}

function member(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

function instant(dateTime: string): string {
  return String(Date.parse(dateTime));
}

function lower(id: string): string {
  return id.toLowerCase();
}
