// The two real recordings signalk-server ships (test/fixtures/signalk/, extracted by its
// extract.sh), decoded with maintained NMEA libraries: plaka.nmea (NMEA 0183, a yacht's
// GPS and wind instruments) with nmea-simple, aava.n2k (NMEA 2000, AIS of some 95 vessels
// and Aava's own wind instruments) with canboatjs. Test input, not product code.

import { readFileSync } from "node:fs";
import { FromPgn } from "@canboat/canboatjs";
import { type GLLPacket, type MWVPacket, parseNmeaSentence, type VTGPacket } from "nmea-simple";

const FIXTURES = new URL("../fixtures/signalk/", import.meta.url);
const DAY_MS = 86_400_000;
const KN_PER_M_PER_S = 3600 / 1852;

/** One recorded position, as a track holds it. */
export interface RecordedFix {
  tMs: number;
  lat: number;
  lon: number;
  sogKn: number | null;
  cogDeg: number | null;
}

/** The instruments' true wind at a moment: angle off the bow, negative over port, and speed. */
export interface TrueWindSample {
  tMs: number;
  twaDeg: number;
  twsKn: number;
}

export interface PlakaRecording {
  fixes: RecordedFix[];
  trueWind: TrueWindSample[];
}

/**
 * plaka.nmea: GLL positions every 2 s, each with the VTG speed and course and the MWV true
 * wind sent just before it (the log repeats one block of sentences that ends with GLL).
 * GLL carries the time of day only; `dayUtcMs` (midnight UTC) dates it.
 */
export function readPlaka(dayUtcMs: number): PlakaRecording {
  const fixes: RecordedFix[] = [];
  const trueWind: TrueWindSample[] = [];
  let course: VTGPacket | null = null;
  let wind: MWVPacket | null = null;
  let dayMs = dayUtcMs;
  for (const line of lines("plaka.nmea")) {
    const packet = parseNmeaSentence(line);
    if (packet.sentenceId === "VTG") course = packet;
    // "V": the instrument had no reading; nmea-simple reads its empty fields as 0.
    else if (packet.sentenceId === "MWV" && packet.status === "valid" && packet.reference === "true") wind = packet;
    else if (packet.sentenceId === "GLL" && packet.status === "valid") {
      let tMs = dayMs + timeOfDayMs(packet);
      // Past midnight the time of day starts again.
      if (fixes.length > 0 && tMs < fixes.at(-1)!.tMs - DAY_MS / 2) {
        dayMs += DAY_MS;
        tMs += DAY_MS;
      }
      fixes.push({
        tMs,
        lat: packet.latitude,
        lon: packet.longitude,
        sogKn: course?.speedKnots ?? null,
        cogDeg: course?.trackTrue ?? null,
      });
      if (wind !== null) trueWind.push({ tMs, twaDeg: signedDeg(wind.windAngle), twsKn: knots(wind.speed, wind.units) });
      course = null;
      wind = null;
    }
  }
  return { fixes, trueWind };
}

export interface AisVessel {
  mmsi: number;
  /** From the vessel's static report; null when none was received in the 10 minutes. */
  name: string | null;
  /** The navigational status of its last class A report ("At anchor", "Moored", ...); null for class B. */
  navStatus: string | null;
  fixes: RecordedFix[];
}

export interface AavaRecording {
  vessels: AisVessel[];
  /** Aava's own true wind, from its apparent wind, heading and speed through the water. */
  trueWind: (TrueWindSample & { twdDeg: number })[];
  /** Aava's own MMSI: its transponder's reports are among the vessels. */
  ownMmsi: number;
}

const AIS_POSITIONS = new Set([129038, 129039]);
const AIS_NAMES = new Set([129794, 129809]);
const AAVA_MMSI = 230035780;

/**
 * aava.n2k: every AIS position report becomes a fix at the time the logger received it,
 * as a live tracker would have it (a report carries only the second of the minute it was
 * made, and some transmitters' clocks are a minute off).
 */
export function readAava(): AavaRecording {
  const parser = new FromPgn();
  const vessels = new Map<number, AisVessel>();
  const names = new Map<number, string>();
  const trueWind: AavaRecording["trueWind"] = [];
  let headingDeg: number | null = null;
  let waterSpeedKn: number | null = null;
  for (const line of lines("aava.n2k")) {
    const message = parser.parseString(line);
    if (message === undefined || message.timestamp === undefined) continue;
    const tMs = Date.parse(message.timestamp);
    const fields = message.fields as Record<string, unknown>;
    if (AIS_POSITIONS.has(message.pgn)) {
      const fix = aisFix(tMs, fields);
      if (fix === null) continue;
      const mmsi = Number(fields.userId);
      const vessel = vessels.get(mmsi) ?? { mmsi, name: null, navStatus: null, fixes: [] };
      vessels.set(mmsi, vessel);
      if (typeof fields.navStatus === "string") vessel.navStatus = fields.navStatus;
      // A track's times are strictly ascending; two receptions in one millisecond keep the first.
      if (vessel.fixes.length === 0 || tMs > vessel.fixes.at(-1)!.tMs) vessel.fixes.push(fix);
    } else if (AIS_NAMES.has(message.pgn) && typeof fields.name === "string" && fields.name.trim() !== "") {
      names.set(Number(fields.userId), fields.name.trim());
    } else if (message.pgn === 127250 && fields.reference === "True" && typeof fields.heading === "number") {
      headingDeg = toDeg(fields.heading);
    } else if (message.pgn === 128259 && typeof fields.speedWaterReferenced === "number") {
      waterSpeedKn = fields.speedWaterReferenced * KN_PER_M_PER_S;
    } else if (message.pgn === 130306 && fields.reference === "Apparent" && headingDeg !== null && waterSpeedKn !== null) {
      if (typeof fields.windAngle !== "number" || typeof fields.windSpeed !== "number") continue;
      const wind = trueFromApparent(toDeg(fields.windAngle), fields.windSpeed * KN_PER_M_PER_S, waterSpeedKn);
      trueWind.push({ tMs, ...wind, twdDeg: (headingDeg + wind.twaDeg + 360) % 360 });
    }
  }
  for (const vessel of vessels.values()) vessel.name = names.get(vessel.mmsi) ?? null;
  return { vessels: [...vessels.values()], trueWind, ownMmsi: AAVA_MMSI };
}

/**
 * The true wind (over the water) as a wind instrument computes it: the apparent wind's
 * vector less the wind the boat makes by moving through the water, which blows from dead
 * ahead at the boat's speed. Angles off the bow, negative over port.
 */
export function trueFromApparent(awaDeg: number, awsKn: number, waterSpeedKn: number): { twaDeg: number; twsKn: number } {
  const rad = (awaDeg * Math.PI) / 180;
  const ahead = awsKn * Math.cos(rad) - waterSpeedKn;
  const abeam = awsKn * Math.sin(rad);
  return { twaDeg: signedDeg((Math.atan2(abeam, ahead) * 180) / Math.PI), twsKn: Math.hypot(ahead, abeam) };
}

function aisFix(tMs: number, fields: Record<string, unknown>): RecordedFix | null {
  const { latitude: lat, longitude: lon, sog, cog } = fields;
  if (typeof lat !== "number" || typeof lon !== "number") return null;
  return {
    tMs,
    lat,
    lon,
    sogKn: typeof sog === "number" ? sog * KN_PER_M_PER_S : null,
    cogDeg: typeof cog === "number" ? toDeg(cog) : null,
  };
}

function lines(file: string): string[] {
  return readFileSync(new URL(file, FIXTURES), "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

function timeOfDayMs(packet: GLLPacket): number {
  return packet.time.getTime() % DAY_MS;
}

/** Degrees in (-180, 180]. */
function signedDeg(deg: number): number {
  const d = ((deg % 360) + 360) % 360;
  return d > 180 ? d - 360 : d;
}

function toDeg(rad: number): number {
  return ((((rad * 180) / Math.PI) % 360) + 360) % 360;
}

function knots(speed: number, units: MWVPacket["units"]): number {
  if (units === "M") return speed * KN_PER_M_PER_S;
  if (units === "K") return speed / 1.852;
  return speed;
}
