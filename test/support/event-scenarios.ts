// The hand-written event of the event live status and results tests: races stored
// out of order, start groups in every state, official results that differ from the
// live order, and events the main club must not see.

import type { Event, Scenario } from "../../src/domain/scenario.js";
import { CLUB, CO_HOST_CLUB, identityScenario, OTHER_CLUB } from "./api.js";
import { entry, sharedEvent, uuid } from "./race-scenarios.js";

export const EVENT = uuid("e5000000", 1);
export const RACE_1 = uuid("a5000000", 1);
/** Race number 1 as well: after RACE_1 by id. */
export const RACE_1_RESAIL = uuid("a5000000", 2);
export const RACE_2 = uuid("a5000000", 3);
export const RACE_3 = uuid("a5000000", 4);
export const GROUP_1A = uuid("b5000000", 1);
export const GROUP_1B = uuid("b5000000", 2);
export const GROUP_2A = uuid("b5000000", 3);
export const GROUP_3A = uuid("b5000000", 4);
export const GROUP_3B = uuid("b5000000", 5);
export const E = { 1: uuid("d5000000", 1), 2: uuid("d5000000", 2), 3: uuid("d5000000", 3), 4: uuid("d5000000", 4) } as const;

export const HIDDEN_EVENTS = { unpublished: uuid("e6000000", 1), legacy: uuid("e6000000", 2), otherClub: uuid("e6000000", 3) };
export const HIDDEN_RACES = { unpublished: uuid("a6000000", 1), legacy: uuid("a6000000", 2), otherClub: uuid("a6000000", 3) };
/** An event of the main club without races. */
export const EMPTY_EVENT = uuid("e5000000", 2);

function mainEvent(): Event {
  const all = [E[1], E[2], E[3], E[4]];
  return sharedEvent(EVENT, CLUB, {
    name: "Spring Series",
    startDate: "2026-04-01T00:00:00.000Z",
    endDate: "2026-04-03T00:00:00.000Z",
    // Results are not tracking data: they are served without the opt-in.
    trackingShared: false,
    delaySeconds: 90,
    coHostClubIds: [CO_HOST_CLUB],
    entries: [
      entry(E[1], "GBR 10", "Tenacious"),
      entry(E[2], "GBR 9", "Ninefold"),
      entry(E[3], "GBR 100", "Centurion"),
      entry(E[4], "GBR 11", "Eleven"),
    ],
    // Stored out of order on purpose: the order must come from race_no, then id.
    races: [
      {
        id: RACE_3,
        raceNo: 3,
        name: "Race 3",
        isLive: false,
        startGroups: [
          { id: GROUP_3A, name: "Fleet A", state: "Scheduled", startTimeUtc: "2026-04-03T10:00:00.000Z", entryIds: all },
          { id: GROUP_3B, name: "Fleet B", state: "Postponed", startTimeUtc: null, entryIds: [] },
        ],
      },
      {
        id: RACE_2,
        raceNo: 2,
        name: "Race 2",
        isLive: true,
        startGroups: [
          {
            id: GROUP_2A,
            name: "Fleet A",
            state: "Started",
            startTimeUtc: "2026-04-02T10:00:00.000Z",
            finishTimeUtc: null,
            entryIds: [E[1], E[2], E[3]],
            // The unofficial order ranks the boats the other way round: results must never show it.
            liveOrder: [
              {
                asOfUtc: "2026-04-02T10:30:00.000Z",
                rows: [
                  { entryId: E[3], rank: 1, elapsedSeconds: 11, correctedSeconds: 12, deltaSeconds: 0 },
                  { entryId: E[2], rank: 3, elapsedSeconds: 31, correctedSeconds: 32, deltaSeconds: 5 },
                  { entryId: E[1], rank: 2, elapsedSeconds: 21, correctedSeconds: 22, deltaSeconds: 3 },
                ],
              },
            ],
            results: {
              status: "provisional",
              publishedAtUtc: "2026-04-02T12:00:00.000Z",
              rows: [
                { entryId: E[3], rank: 2, status: "OK", elapsedSeconds: 2000, correctedSeconds: 1900, points: 2 },
                { entryId: E[1], rank: 1, status: "OK", elapsedSeconds: 1800, correctedSeconds: 1750.5, points: 1 },
                { entryId: E[2], rank: 2, status: "OK", elapsedSeconds: 2000, correctedSeconds: 1900, points: 2 },
              ],
            },
          },
        ],
      },
      { id: RACE_1_RESAIL, raceNo: 1, name: "Race 1 resail", isLive: false, startGroups: [] },
      {
        id: RACE_1,
        raceNo: 1,
        name: "Race 1",
        isLive: false,
        startGroups: [
          {
            id: GROUP_1A,
            name: "Fleet A",
            state: "Finished",
            startTimeUtc: "2026-04-01T10:00:00.000Z",
            finishTimeUtc: "2026-04-01T11:30:00.000Z",
            entryIds: all,
            results: {
              status: "final",
              publishedAtUtc: "2026-04-01T15:00:00.000Z",
              rows: [
                { entryId: E[3], rank: null, status: "DNF", points: 5 },
                { entryId: E[1], rank: 2, status: "OK", elapsedSeconds: 3600.5, correctedSeconds: 3500.25, points: 2 },
                { entryId: E[4], rank: null, status: "DNS", elapsedSeconds: null, correctedSeconds: null, points: null },
                { entryId: E[2], rank: 1, status: "OK", elapsedSeconds: 3500, correctedSeconds: 3400, points: 1 },
              ],
            },
          },
          // Abandoned: no results published for it.
          { id: GROUP_1B, name: "Fleet B", state: "Abandoned", startTimeUtc: null, entryIds: [] },
        ],
      },
    ],
  });
}

function hiddenEvents(): Event[] {
  const race = (id: string) => ({ id, raceNo: 1, name: "Hidden", isLive: true, startGroups: [] });
  return [
    sharedEvent(HIDDEN_EVENTS.unpublished, CLUB, { published: false, races: [race(HIDDEN_RACES.unpublished)] }),
    sharedEvent(HIDDEN_EVENTS.legacy, CLUB, { legacy: true, races: [race(HIDDEN_RACES.legacy)] }),
    sharedEvent(HIDDEN_EVENTS.otherClub, OTHER_CLUB, { races: [race(HIDDEN_RACES.otherClub)] }),
  ];
}

/** The identity scenario plus an events-only and a results-only client, the main event, an empty one and the hidden ones. */
export function eventScenario(): Scenario {
  const scenario = identityScenario();
  scenario.clients.push(
    { clientId: "eventsOnly", clientSecret: "eventsOnly-secret", clubId: CLUB, scopes: ["events:read"] },
    { clientId: "resultsOnly", clientSecret: "resultsOnly-secret", clubId: CLUB, scopes: ["results:read"] },
  );
  scenario.events = [
    ...hiddenEvents(),
    mainEvent(),
    sharedEvent(EMPTY_EVENT, CLUB, { name: "Empty", startDate: null, trackingShared: true, delaySeconds: 0 }),
  ];
  return scenario;
}
