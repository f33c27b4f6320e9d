// ResultsService: the official results of an event or a race, per start group, as
// the club published them. Never the live order: that is an unofficial feed.
// Results are not tracking data, so a race is served whether or not its event
// shares tracking; the visibility rule is the race endpoints' (race-access.ts).

import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { ResultsService } from "../../gen/racing/v1/results_pb.js";
import { RESULTS_CACHE_CONTROL } from "../caching/cache-policy.js";
import { RESULT_STATUS_ENUMS } from "../messages/enum-words.js";
import { compareSailNumbers } from "../domain/sail-number.js";
import type { StartGroupRecord } from "../store/races.js";
import { officialResults, type GroupResultsRecord, type ResultRowRecord } from "../store/results.js";
import { visibleEvent } from "./event-access.js";
import { guarded } from "../calls/guarded.js";
import type { ServiceDeps } from "./deps.js";

interface RaceLike {
  uuid: string;
  raceNo: number;
  name: string;
  startGroups: StartGroupRecord[];
}

export function resultsService(deps: ServiceDeps): ServiceImpl<typeof ResultsService> {
  return {
    getEventResults: guarded(deps, ResultsService.method.getEventResults, async (request, caller, context) => {
      const pool = deps.reads.pool();
      const event = await visibleEvent(pool, caller, request.eventId);
      const results = await officialResults(
        pool,
        event.races.flatMap((race) => race.startGroups.map((group) => group.id)),
      );
      context.responseHeader.set("cache-control", RESULTS_CACHE_CONTROL);
      return {
        eventResults: { eventId: event.uuid, name: event.name, races: event.races.map((race) => raceResults(race, event.uuid, results)) },
      };
    }),
    getRaceResults: guarded(deps, ResultsService.method.getRaceResults, async (request, caller, context) => {
      const race = await deps.races.visibleRace(caller, request.raceId);
      const results = await officialResults(
        deps.reads.pool(),
        race.startGroups.map((group) => group.id),
      );
      context.responseHeader.set("cache-control", RESULTS_CACHE_CONTROL);
      return { raceResults: raceResults(race, race.event.uuid, results) };
    }),
  };
}

/** Only the groups with published results, in the race's order. */
function raceResults(race: RaceLike, eventUuid: string, results: Map<number, GroupResultsRecord>) {
  return {
    raceId: race.uuid,
    eventId: eventUuid,
    raceNo: race.raceNo,
    name: race.name,
    startGroups: race.startGroups.flatMap((group) => {
      const published = results.get(group.id);
      if (!published) return [];
      return [
        {
          startGroupId: group.uuid,
          name: group.name,
          status: RESULT_STATUS_ENUMS[published.status],
          publishedAtUtc: timestampFromMs(published.publishedAtMs),
          rows: [...published.rows].sort(byRank).map(rowMessage),
        },
      ];
    }),
  };
}

/** By rank, unranked last; equal ranks and the unranked by sail number in natural order. */
function byRank(a: ResultRowRecord, b: ResultRowRecord): number {
  return (
    (a.rank ?? Infinity) - (b.rank ?? Infinity) || compareSailNumbers(a.sailNumber, b.sailNumber) || a.entryUuid.localeCompare(b.entryUuid)
  );
}

function rowMessage(row: ResultRowRecord) {
  return {
    entryId: row.entryUuid,
    sailNumber: row.sailNumber,
    boatName: row.boatName,
    rank: row.rank ?? undefined,
    status: row.status,
    elapsedSeconds: row.elapsedSeconds ?? undefined,
    correctedSeconds: row.correctedSeconds ?? undefined,
    points: row.points ?? undefined,
  };
}
