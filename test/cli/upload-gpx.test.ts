// `race-api upload-gpx` against a running server: plaka's recording (signalk-server's
// sample) written as a GPX file, loaded into an unshared event's start group over
// Connect and over gRPC, stored exactly, counted as duplicates when loaded again, and
// refused once the event is shared; bad files and command lines say what is wrong.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAPTURE_AFTER_GUN_MS, CAPTURE_BEFORE_GUN_MS } from "../../src/domain/race-time.js";
import { importScenario } from "../../src/scenario/import.js";
import { CLUB, identityScenario, secretOf, startApi, type Api } from "../support/api.js";
import { runMain } from "../support/cli.js";
import { useFreshDatabase } from "../support/database.js";
import { entry, sharedEvent, uuid } from "../support/race-scenarios.js";
import { readPlaka, type RecordedFix } from "../support/signalk-recordings.js";
import { PLAKA_DAY_MS } from "../support/recorded-race.js";

const db = useFreshDatabase();
let api: Api;
const IDS = { event: uuid("e8000000", 1), race: uuid("a8000000", 1), group: uuid("b8000000", 1), plaka: uuid("d8000000", 1) };
const plaka = readPlaka(PLAKA_DAY_MS).fixes;
const GUN = plaka[0]!.tMs + CAPTURE_BEFORE_GUN_MS;
const inWindow = plaka.filter((f) => f.tMs < GUN + CAPTURE_AFTER_GUN_MS);
const dir = mkdtempSync(join(tmpdir(), "race-api-gpx-"));

beforeAll(async () => {
  const scenario = identityScenario();
  scenario.clients.push({ clientId: "platform", clientSecret: secretOf("platform"), clubId: CLUB, scopes: ["tracking:write"] });
  scenario.events.push(
    sharedEvent(IDS.event, CLUB, {
      trackingShared: false,
      entries: [entry(IDS.plaka, "PLAKA", "Plaka")],
      races: [
        {
          id: IDS.race,
          raceNo: 1,
          name: "Plaka",
          isLive: false,
          startGroups: [
            { id: IDS.group, name: "Plaka", state: "Finished", startTimeUtc: new Date(GUN).toISOString(), entryIds: [IDS.plaka] },
          ],
        },
      ],
    }),
  );
  await importScenario(db.pool, scenario);
  api = await startApi(db);
});
afterAll(() => api?.close());

/** A GPX 1.1 file as a logger writes it: speed (m/s) and course in Garmin's TrackPointExtension v2. */
function gpx(fixes: readonly RecordedFix[]): string {
  const points = fixes.map((f) => {
    const extension =
      f.sogKn === null && f.cogDeg === null
        ? ""
        : `<extensions><gpxtpx:TrackPointExtension>${f.sogKn === null ? "" : `<gpxtpx:speed>${(f.sogKn * 1852) / 3600}</gpxtpx:speed>`}` +
          `${f.cogDeg === null ? "" : `<gpxtpx:course>${f.cogDeg}</gpxtpx:course>`}</gpxtpx:TrackPointExtension></extensions>`;
    return `<trkpt lat="${f.lat}" lon="${f.lon}"><time>${new Date(f.tMs).toISOString()}</time>${extension}</trkpt>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
<trk><name>Plaka</name><trkseg>${points.join("\n")}</trkseg></trk></gpx>`;
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const upload = (...args: string[]) =>
  runMain(
    ["upload-gpx", "--url", api.url, "--client-id", "platform", "--race", IDS.race, "--group", IDS.group, "--entry", IDS.plaka, ...args],
    { RACE_API_CLIENT_SECRET: secretOf("platform") },
  );

async function stored(): Promise<RowDataPacket[]> {
  const [rows] = await db.pool.query<RowDataPacket[]>(
    "SELECT f.t, f.lat, f.lon, f.sog_kn, f.cog_deg FROM fixes f JOIN start_groups g ON g.id = f.start_group_id WHERE g.uuid = ? ORDER BY f.t",
    [IDS.group],
  );
  return rows;
}

describe("race-api upload-gpx", () => {
  it("loads plaka's recording from two GPX files, out of order, and stores every point of the capture window exactly", async () => {
    // The second half first, and a point repeated in both: sorted, the repeat dropped.
    const half = Math.floor(plaka.length / 2);
    const first = file("first.gpx", gpx(plaka.slice(half)));
    const second = file("second.gpx", gpx(plaka.slice(0, half + 1)));
    const { code, stdout, stderr } = await upload(first, second);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const outside = plaka.length - inWindow.length;
    expect(stdout).toContain(`read ${plaka.length} points from ${first}, ${second} (1 at a time already read, dropped)`);
    expect(stdout).toContain(`loaded: ${inWindow.length} accepted, 0 duplicates, refused ${outside} OUTSIDE_CAPTURE_WINDOW`);
    const rows = await stored();
    expect(rows.map((r) => [Number(r.t), r.lat, r.lon])).toEqual(inWindow.map((f) => [f.tMs, f.lat, f.lon]));
    // Speed went through m/s and back: equal to the last bits of a double, not bit for bit.
    rows.forEach((row, i) => {
      const sent = inWindow[i]!;
      if (sent.sogKn === null) expect(row.sog_kn).toBeNull();
      else expect(row.sog_kn).toBeCloseTo(sent.sogKn, 9);
      expect(row.cog_deg).toBe(sent.cogDeg);
    });
  });

  it("changes nothing when run again, over gRPC: every point a duplicate", async () => {
    const all = file("all.gpx", gpx(plaka));
    const { code, stdout } = await upload("--grpc-url", api.grpcUrl, all);
    expect(code).toBe(0);
    expect(stdout).toContain(`loaded: 0 accepted, ${inWindow.length} duplicates`);
  });

  it("says what is wrong with a file, naming the point, and loads nothing", async () => {
    const before = (await stored()).length;
    const cases: Array<[string, string]> = [
      ["<gpx><trk><trkseg><trkpt lat='1' lon='2'></trkseg></trk></gpx>", "not well-formed XML (line 1"],
      ["<kml/>", "not a GPX file"],
      ["<gpx><trk><trkseg></trkseg></trk></gpx>", "no track points"],
      [
        "<gpx><trk><trkseg><trkpt lat='60' lon='25'/></trkseg></trk></gpx>",
        "trk 1, trkseg 1, trkpt 1: <time> null is not a date and time with a zone",
      ],
      [
        "<gpx><trk><trkseg><trkpt lat='60' lon='25'><time>2014-08-15T10:00:00Z</time></trkpt><trkpt lat='95' lon='25'><time>2014-08-15T10:00:01Z</time></trkpt></trkseg></trk></gpx>",
        'trkpt 2: lat "95" is not a latitude',
      ],
      [
        "<gpx><trk><trkseg><trkpt lat='60' lon='25'><time>2014-08-15 10:00</time></trkpt></trkseg></trk></gpx>",
        "is not a date and time with a zone",
      ],
    ];
    for (const [text, message] of cases) {
      const { code, stderr } = await upload(file("bad.gpx", text));
      expect(code, text).toBe(1);
      expect(stderr, text).toContain(message);
    }
    expect((await upload(join(dir, "missing.gpx"))).stderr).toContain("ENOENT");
    expect((await stored()).length).toBe(before);
  });

  it("refuses usage errors with exit code 2", async () => {
    const ran = await runMain(["upload-gpx", "--url", api.url, "--client-id", "platform", "--race", "nope", "x.gpx"], {
      RACE_API_CLIENT_SECRET: secretOf("platform"),
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("--race must be a UUID");
    expect((await upload()).stderr).toContain("name at least one GPX file");
    expect((await runMain(["upload-gpx", "--help"])).stdout).toContain("LoadRecordedTracks");
  });

  it("is refused once the event is published and shared", async () => {
    await db.pool.query("UPDATE events SET tracking_shared = TRUE WHERE uuid = ?", [IDS.event]);
    await db.pool.query("INSERT INTO event_tracks_readable (event_id, since) SELECT id, NOW(3) FROM events WHERE uuid = ?", [IDS.event]);
    const { code, stderr } = await upload(file("again.gpx", gpx(plaka.slice(0, 10))));
    expect(code).toBe(1);
    expect(stderr).toContain("the server refused the points from 1 on: FailedPrecondition: TRACKS_ALREADY_SERVED");
  });
});
