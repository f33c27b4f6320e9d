// The simulated fleet: entries with sail numbers, boat names and private phone fields,
// and each boat's hidden traits (speed, handicap, skill, role in the race).

import type { Entry } from "../domain/scenario.js";
import { uuidFrom, type Rng } from "./random.js";

/** What an entry does in the race, beyond the plain approved-with-phone case. */
export type BoatRole = "racer" | "unapproved" | "noPhone" | "retires";

export interface BoatTraits {
  entry: Entry;
  group: number;
  role: BoatRole;
  /** Multiplies polar speeds: crew and boat quality, 0.9-1.06. */
  speedFactor: number;
  /** Time correction factor of the handicap rating: corrected = elapsed * tcf. */
  tcf: number;
  /** 0-1: better crews overstand laylines less and tack less at random. */
  skill: number;
}

const NATIONS = ["GBR", "GBR", "GBR", "GBR", "GBR", "IRL", "FRA", "NED", "GER", "TUR", "USA", "AUS"];
/** Digit counts of sail numbers, weighted: "GBR 7", "GBR 12", "TUR 101", "FRA 2044"... */
const DIGITS = [1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5];

const ADJECTIVES = [
  "Blue",
  "Silver",
  "Wild",
  "Salty",
  "Quick",
  "Night",
  "Red",
  "Golden",
  "Restless",
  "Lucky",
  "Northern",
  "Jolly",
  "Crimson",
  "Swift",
  "Midnight",
  "Rolling",
  "Black",
  "Whispering",
  "Fair",
  "Bold",
];
const NOUNS = [
  "Heron",
  "Kestrel",
  "Tern",
  "Dolphin",
  "Wind",
  "Tide",
  "Gannet",
  "Spirit",
  "Star",
  "Fox",
  "Comet",
  "Petrel",
  "Otter",
  "Osprey",
  "Breeze",
  "Harrier",
  "Swallow",
  "Magic",
  "Rover",
  "Moon",
];
const SINGLE_NAMES = ["Aurora", "Jester", "Mistral", "Calypso", "Sirocco", "Valkyrie", "Zephyr", "Halcyon", "Tempest", "Allegro"];
const PHONES = [
  "iPhone 13",
  "iPhone 14",
  "iPhone 15 Pro",
  "iPhone SE (3rd generation)",
  "Pixel 7",
  "Pixel 8a",
  "Samsung Galaxy S23",
  "Samsung Galaxy A54",
  "OnePlus 11",
  "Xiaomi Redmi Note 12",
];

export interface FleetOptions {
  startGroups: number;
  boatsPerGroup: number;
}

/**
 * Every group gets one unapproved entry and one without a phone (from 4 boats), and the
 * first group one boat that retires (from 6 boats), so that filters and DNF have data.
 */
export function createFleet(traitsRng: Rng, idsRng: Rng, options: FleetOptions): BoatTraits[][] {
  const sailNumbers = new Set<string>();
  const names = new Set<string>();
  const groups: BoatTraits[][] = [];
  for (let g = 0; g < options.startGroups; g++) {
    const n = options.boatsPerGroup;
    const roles: BoatRole[] = new Array<BoatRole>(n).fill("racer");
    const order = traitsRng.shuffled([...Array(n).keys()]);
    if (n >= 4) {
      roles[order[0] as number] = "unapproved";
      roles[order[1] as number] = "noPhone";
    }
    if (g === 0 && n >= 6) roles[order[2] as number] = "retires";

    const boats: BoatTraits[] = [];
    for (let i = 0; i < n; i++) {
      const role = roles[i] as BoatRole;
      const hasPhone = role !== "noPhone";
      const entry: Entry = {
        id: uuidFrom(idsRng),
        sailNumber: uniqueSailNumber(traitsRng, sailNumbers),
        boatName: uniqueBoatName(traitsRng, names),
        approved: role !== "unapproved",
        hasPhone,
        userId: `usr_${hex(traitsRng, 12)}`,
      };
      if (hasPhone) {
        const model = traitsRng.pick(PHONES);
        // iPhones report an uppercase vendor UUID, Android phones a 16-hex ANDROID_ID.
        entry.deviceId = model.startsWith("iPhone") ? uuidFrom(traitsRng).toUpperCase() : hex(traitsRng, 16);
        entry.phoneModel = model;
      }
      const speedFactor = clamp(1 + traitsRng.normal() * 0.03, 0.9, 1.06);
      boats.push({
        entry,
        group: g,
        role,
        speedFactor,
        // A rating follows the boat's potential speed, imperfectly: what is left over
        // after correction is crew work and luck, as in real handicap racing.
        tcf: Math.round(speedFactor * (1 + traitsRng.normal() * 0.012) * 1000) / 1000,
        skill: traitsRng.next(),
      });
    }
    groups.push(boats);
  }
  return groups;
}

function uniqueSailNumber(rng: Rng, taken: Set<string>): string {
  for (;;) {
    const digits = rng.pick(DIGITS);
    const lo = digits === 1 ? 1 : 10 ** (digits - 1);
    const candidate = `${rng.pick(NATIONS)} ${rng.int(lo, 10 ** digits - 1)}`;
    if (!taken.has(candidate)) {
      taken.add(candidate);
      return candidate;
    }
  }
}

function uniqueBoatName(rng: Rng, taken: Set<string>): string {
  const base = rng.chance(0.2) ? rng.pick(SINGLE_NAMES) : `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`;
  let candidate = base;
  // Real fleets answer a clash with a numeral: "Aurora II".
  for (let n = 2; taken.has(candidate); n++) candidate = `${base} ${roman(n)}`;
  taken.add(candidate);
  return candidate;
}

function roman(n: number): string {
  const table: [number, string][] = [
    [1000, "M"],
    [900, "CM"],
    [500, "D"],
    [400, "CD"],
    [100, "C"],
    [90, "XC"],
    [50, "L"],
    [40, "XL"],
    [10, "X"],
    [9, "IX"],
    [5, "V"],
    [4, "IV"],
    [1, "I"],
  ];
  let out = "";
  for (const [value, numeral] of table) {
    while (n >= value) {
      out += numeral;
      n -= value;
    }
  }
  return out;
}

function hex(rng: Rng, length: number): string {
  let out = "";
  while (out.length < length) out += rng.nextUint32().toString(16).padStart(8, "0");
  return out.slice(0, length);
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
