// The track export's race: the track tests' races (a group whose window still reaches
// the cut-off, a group without a gun, an unshared event, another club's race) plus a
// race whose group's capture window closed an hour ago (settled), with names that need
// escaping, a course, a boat reporting twice a second (more than one read page) and a
// boat with a single fix. And the served fixes as the track pages answer them.

import type { Scenario } from "../../src/domain/scenario.js";
import { CLUB } from "./api.js";
import { MINUTE, NOW, TRACK_IDS, track, trackQuery, trackScenario, type TrackPageJson } from "./track-scenarios.js";

export const SETTLED_GUN = NOW - 4 * 60 * MINUTE;

export const EXPORT_IDS = {
  ...TRACK_IDS,
  settledRace: "7a000000-0000-4000-8000-0000000000e1",
  settledGroup: "76000000-0000-4000-8000-0000000000e1",
  /** Twice a second for the whole window: more fixes than one read page holds. */
  fast: "7b000000-0000-4000-8000-0000000000e1",
  /** Names that need escaping in XML and quoting in CSV. */
  quoted: "7b000000-0000-4000-8000-0000000000e2",
  /** A single fix. */
  once: "7b000000-0000-4000-8000-0000000000e3",
} as const;

/** The quoted boat's names: XML's five specials, CSV's comma, quote and line break, and a character XML cannot carry. */
export const QUOTED = { sailNumber: 'GBR "7", <&>', boatName: "Ça'va\r\nà\u0001 bord" };

export const COURSE_STEPS = [
  {
    kind: "start" as const,
    marks: [
      { key: "pin", lat: 50.79, lon: -1.31 },
      { key: "committee", lat: 50.79, lon: -1.29 },
    ],
  },
  { kind: "mark" as const, label: "Windward & <top>", marks: [{ key: "W", lat: 50.81, lon: -1.3 }] },
  {
    kind: "finish" as const,
    label: null,
    marks: [
      { key: "pin", lat: 50.79, lon: -1.31 },
      { key: "committee", lat: 50.79, lon: -1.29 },
    ],
  },
];

export function exportScenario(): Scenario {
  const scenario = trackScenario();
  const ids = EXPORT_IDS;
  const event = scenario.events.find((e) => e.id === ids.event)!;
  event.entries.push(
    { id: ids.fast, sailNumber: "FRA 3", boatName: "Fast", userId: "user-fast", deviceId: "device-fast", phoneModel: "Phone X" },
    { id: ids.quoted, ...QUOTED, userId: "user-quoted", deviceId: "device-quoted", phoneModel: "Phone X" },
    { id: ids.once, sailNumber: "ESP 1", boatName: "Once", userId: "user-once", deviceId: "device-once", phoneModel: "Phone X" },
  );
  const gun = SETTLED_GUN;
  event.races.push({
    id: ids.settledRace,
    raceNo: 3,
    name: "Race 3 (Sunday)",
    isLive: false,
    startGroups: [
      {
        id: ids.settledGroup,
        name: "Fleet S",
        state: "Finished",
        startTimeUtc: new Date(gun).toISOString(),
        entryIds: [ids.steady, ids.fast, ids.quoted, ids.once, ids.unapproved],
        courses: [{ version: 1, appliedFromUtc: new Date(gun - 30 * MINUTE).toISOString(), steps: COURSE_STEPS }],
        tracks: [
          // Before the window opens and after it closes too: only the window is served.
          track(ids.steady, gun - 10 * MINUTE, gun + 190 * MINUTE, 1000, (t) => (t % 7000 === 0 ? "sog" : t % 11000 === 0 ? "both" : null)),
          track(ids.fast, gun - 5 * MINUTE, gun + 180 * MINUTE, 500),
          track(ids.quoted, gun, gun + 30 * MINUTE, 3000),
          track(ids.once, gun + MINUTE, gun + MINUTE + 1, 1000),
          track(ids.unapproved, gun, gun + 60 * MINUTE, 1000),
        ],
      },
    ],
  });
  return scenario;
}

/** A fix as the track pages serve it. */
export interface ServedFix {
  t: number;
  lat: number;
  lon: number;
  sogKn: number | null;
  cogDeg: number | null;
}

export interface ServedBoat {
  entryId: string;
  sailNumber: string;
  boatName: string;
  fixes: ServedFix[];
}

/** Every fix the track pages of a group serve, paged from its capture window's start until nextSince is null or reaches the cut-off. */
export async function servedByPages(
  url: string,
  token: string,
  raceId: string,
  startGroupId: string,
  fromMs: number,
): Promise<ServedBoat[]> {
  const boats = new Map<string, ServedBoat>();
  let since: number | null = fromMs;
  while (since !== null) {
    const response = await fetch(`${url}/api/v1/races/${raceId}/track${trackQuery({ startGroupId, since })}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    // Past the cut-off: every window before it has been read.
    if (response.status === 400) break;
    if (response.status !== 200) throw new Error(`track page: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as TrackPageJson;
    for (const boat of page.boats) {
      let served = boats.get(boat.entryId);
      if (!served)
        boats.set(boat.entryId, (served = { entryId: boat.entryId, sailNumber: boat.sailNumber, boatName: boat.boatName, fixes: [] }));
      for (let i = 0; i < boat.t.length; i++) {
        served.fixes.push({ t: boat.t[i]!, lat: boat.lat[i]!, lon: boat.lon[i]!, sogKn: boat.sogKn[i]!, cogDeg: boat.cogDeg[i]! });
      }
    }
    since = page.nextSince === null ? null : Date.parse(page.nextSince);
  }
  // In the order of the pages, which is the export's: by sail number.
  return [...boats.values()];
}

export { CLUB };
