// Which parts of a scenario would change track windows already served as immutable
// (domain/settled-window.ts): a moved or cleared gun, a start group moved to another
// race, a boat shown or hidden or renamed, a finish cutting points. Checked inside the
// writing transaction, against the stored rows it locks. ApplyScenario refuses the
// first; `race-api import`, the operator's override, reports them all and writes.

import type { Scenario } from "../domain/scenario.js";
import { gunMayChange, settledBefore } from "../domain/fix-rules.js";
import { dataAsOf } from "../domain/race-time.js";
import { settledEdge } from "../domain/track-window.js";
import { raiseSettledFloor, storedEvents } from "../store/ingest.js";
import { finishCut, isShown, settledBoatChange, settledRange, type BoatShown } from "../domain/settled-window.js";
import type { Connection } from "../store/pool.js";
import { lockGroups, rangesWithFixes, storedBoats, type BoatRange } from "../store/settled-boats.js";
import type { ScenarioProblem } from "./validate.js";

const SETTLED =
  "would change track windows that may already have been served as immutable (race-api import --override-settled writes it anyway)";

/** The scenario's changes to settled track windows as of `nowMs`, by JSON path; empty when it keeps them. */
export async function settledWindowChanges(conn: Connection, scenario: Scenario, nowMs: number): Promise<ScenarioProblem[]> {
  const lower = (id: string) => id.toLowerCase();
  const groups = new Map<
    string,
    {
      path: string;
      raceUuid: string;
      entryIds: Set<string>;
      gunMs: number | null;
      finishes: { entryUuid: string; finishMs: number; path: string }[];
    }
  >();
  const entries = new Map<string, { path: string; approved: boolean; hasPhone: boolean; sailNumber: string; boatName: string }>();
  for (const [e, event] of scenario.events.entries()) {
    for (const [n, entry] of event.entries.entries()) {
      entries.set(lower(entry.id), {
        path: `$.events[${e}].entries[${n}]`,
        approved: entry.approved ?? true,
        hasPhone: entry.hasPhone ?? true,
        sailNumber: entry.sailNumber,
        boatName: entry.boatName,
      });
    }
    for (const [r, race] of event.races.entries()) {
      for (const [g, group] of race.startGroups.entries()) {
        const path = `$.events[${e}].races[${r}].startGroups[${g}]`;
        groups.set(lower(group.id), {
          path,
          raceUuid: lower(race.id),
          entryIds: new Set(group.entryIds.map(lower)),
          gunMs: group.startTimeUtc === null ? null : Date.parse(group.startTimeUtc),
          finishes: (group.finishes ?? []).map((f, i) => ({
            entryUuid: lower(f.entryId),
            finishMs: Date.parse(f.finishTimeUtc),
            path: `${path}.finishes[${i}].finishTimeUtc`,
          })),
        });
      }
    }
  }

  const problems: ScenarioProblem[] = [];
  const problem = (path: string) => problems.push({ path, message: SETTLED });
  const stored = await lockGroups(conn, [...groups.keys()]);
  for (const [uuid, group] of groups) {
    const was = stored.get(uuid);
    if (!was) continue;
    const settledMs = settledBefore(nowMs, was.event.delaySeconds, was.event.settledFloorMs);
    if (!gunMayChange(was.gunMs, group.gunMs, settledMs)) problem(`${group.path}.startTimeUtc`);
    else if (was.raceUuid !== group.raceUuid && !gunMayChange(was.gunMs, null, settledMs)) problem(`${group.path}.id`);
  }

  // Each stored boat that settled windows may show (a point in its settled range), and what the scenario makes of it.
  const boats = (await storedBoats(conn, [...stored.keys()], [...entries.keys()])).flatMap((boat) => {
    const range = settledRange(boat.gunMs, boat.finishMs, settledBefore(nowMs, boat.event.delaySeconds, boat.event.settledFloorMs));
    return range ? [{ boat, range }] : [];
  });
  const ranges: BoatRange[] = boats.map(({ boat, range }) => ({ groupId: boat.groupId, entryId: boat.entryId, ...range }));
  const withPoints = await rangesWithFixes(conn, ranges);
  const cuts: Array<{ range: BoatRange; path: string }> = [];
  for (const [i, { boat, range }] of boats.entries()) {
    const group = groups.get(boat.groupUuid);
    const entry = entries.get(boat.entryUuid);
    if (withPoints.has(i)) {
      const before: BoatShown = boat;
      const after: BoatShown = {
        member: group ? group.entryIds.has(boat.entryUuid) : boat.member,
        approved: entry?.approved ?? boat.approved,
        hasPhone: entry?.hasPhone ?? boat.hasPhone,
        sailNumber: entry?.sailNumber ?? boat.sailNumber,
        boatName: entry?.boatName ?? boat.boatName,
      };
      const field = settledBoatChange(before, after);
      if (field === "member") problem(`${group!.path}.entryIds`);
      else if (field !== null) problem(`${entry!.path}.${field}`);
    }
    if (!isShown(boat)) continue;
    for (const finish of group?.finishes ?? []) {
      const cut = finish.entryUuid === boat.entryUuid ? finishCut(finish.finishMs, range) : null;
      if (cut) cuts.push({ range: { groupId: boat.groupId, entryId: boat.entryId, ...cut }, path: finish.path });
    }
  }
  const cutting = await rangesWithFixes(
    conn,
    cuts.map((c) => c.range),
  );
  for (const [i, cut] of cuts.entries()) if (cutting.has(i)) problem(cut.path);
  return problems;
}

/**
 * A raised delay moves the cut-off back, so windows settled under the shorter one
 * would look open again: keep the edge it had reached (as UpdateEvent does), whoever
 * raises it. Only ever makes ingest stricter, so the override keeps it too.
 */
export async function keepSettledFloors(conn: Connection, scenario: Scenario, nowMs: number): Promise<void> {
  const stored = await storedEvents(
    conn,
    scenario.events.map((event) => event.id.toLowerCase()),
  );
  for (const event of scenario.events) {
    const was = stored.get(event.id.toLowerCase());
    if (was && (event.delaySeconds ?? 0) > was.delaySeconds) {
      await raiseSettledFloor(conn, was.id, settledEdge(dataAsOf(nowMs, was.delaySeconds)));
    }
  }
}
