import type { RowDataPacket } from "mysql2/promise";
import { describe, expect, it } from "vitest";
import { verifySecret } from "../../src/auth/secrets.js";
import { importScenario, ScenarioRejected } from "../../src/scenario/import.js";
import type { Scenario } from "../../src/domain/scenario.js";
import { useFreshDatabase } from "../support/database.js";
import { copy, GUN, IDS, smallScenario } from "../support/scenarios.js";
import { snapshot } from "../support/snapshot.js";

const db = useFreshDatabase();

async function rows(sql: string, values: unknown[] = []): Promise<RowDataPacket[]> {
  const [result] = await db.pool.query<RowDataPacket[]>(sql, values);
  return result;
}

async function rejection(doc: unknown): Promise<ScenarioRejected> {
  const error = await importScenario(db.pool, doc).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ScenarioRejected);
  return error as ScenarioRejected;
}

describe("importing a scenario", () => {
  it("stores every object of the file", async () => {
    const summary = await importScenario(db.pool, smallScenario());
    expect(summary).toMatchObject({ clubs: 2, clients: 1, events: 1, entries: 3, races: 1, startGroups: 1, fixes: 6, secretRotations: 0 });

    expect(await rows("SELECT uuid, name, rate_limit_per_minute AS rl FROM clubs ORDER BY uuid")).toEqual([
      { uuid: IDS.club, name: "Royal Test Yacht Club", rl: 90 },
      { uuid: IDS.otherClub, name: "Co-host Sailing Club", rl: null },
    ]);
    const [event] = await rows("SELECT e.id, e.start_date, e.delay_seconds, e.tracking_shared, e.published, e.legacy FROM events e");
    expect(event).toMatchObject({ delay_seconds: 30, tracking_shared: 1, published: 1, legacy: 0 });
    expect((event!.start_date as Date).toISOString()).toBe("2026-11-21T09:00:00.000Z");
    expect(await rows("SELECT c.uuid FROM event_co_hosts h JOIN clubs c ON c.id = h.club_id")).toEqual([{ uuid: IDS.otherClub }]);

    expect(
      await rows(
        "SELECT e.sail_number, e.approved, p.user_id, p.device_id, p.phone_model FROM entries e JOIN entry_private p ON p.entry_id = e.id ORDER BY e.uuid",
      ),
    ).toEqual([
      { sail_number: "GBR 9", approved: 1, user_id: "user-private-1", device_id: "device-private-1", phone_model: "Phone X" },
      { sail_number: "GBR 10", approved: 1, user_id: null, device_id: null, phone_model: null },
      { sail_number: "GBR 11", approved: 0, user_id: null, device_id: null, phone_model: null },
    ]);
    expect(await rows("SELECT state, start_time FROM start_groups")).toEqual([{ state: "Started", start_time: new Date(GUN) }]);
    expect(await rows("SELECT COUNT(*) AS n FROM start_group_entries")).toEqual([{ n: 3 }]);
    expect(
      await rows(
        "SELECT s.step_no, s.kind, s.label, m.mark_no, m.mark_key FROM course_steps s JOIN course_marks m USING (course_version_id, step_no) ORDER BY s.step_no, m.mark_no",
      ),
    ).toEqual([
      { step_no: 0, kind: "start", label: null, mark_no: 0, mark_key: "pin" },
      { step_no: 0, kind: "start", label: null, mark_no: 1, mark_key: "committee" },
      { step_no: 1, kind: "mark", label: "Windward", mark_no: 0, mark_key: "W" },
      { step_no: 2, kind: "finish", label: null, mark_no: 0, mark_key: "f1" },
      { step_no: 2, kind: "finish", label: null, mark_no: 1, mark_key: "f2" },
    ]);
    expect(await rows("SELECT twd, tws FROM wind_readings ORDER BY measured_at")).toEqual([
      { twd: 350, tws: 12.5 },
      { twd: 5, tws: null },
    ]);
    expect(
      await rows(
        "SELECT e.uuid, r.rank_no, r.elapsed_seconds, r.corrected_seconds, r.delta_seconds FROM live_order_rows r JOIN entries e ON e.id = r.entry_id ORDER BY e.uuid",
      ),
    ).toEqual([
      { uuid: IDS.entryA, rank_no: null, elapsed_seconds: null, corrected_seconds: null, delta_seconds: null },
      { uuid: IDS.entryB, rank_no: 1, elapsed_seconds: 20, corrected_seconds: 21.5, delta_seconds: 0 },
    ]);
    expect(await rows("SELECT finish_time FROM phone_finishes")).toEqual([{ finish_time: new Date("2026-11-21T10:45:00.000Z") }]);
    expect(await rows("SELECT status, rank_no, points FROM official_result_rows")).toEqual([{ status: "OK", rank_no: 1, points: 1 }]);
    expect(
      await rows(
        "SELECT t, lat, sog_kn, cog_deg, accuracy_m FROM fixes f JOIN entries e ON e.id = f.entry_id WHERE e.uuid = ? ORDER BY t",
        [IDS.entryA],
      ),
    ).toEqual([
      { t: GUN, lat: 50.77, sog_kn: 5.1, cog_deg: 10, accuracy_m: 3 },
      { t: GUN + 1000, lat: 50.7701, sog_kn: null, cog_deg: 11, accuracy_m: 4 },
      { t: GUN + 2000, lat: 50.7702, sog_kn: 5.3, cog_deg: null, accuracy_m: 5 },
      { t: GUN + 3000, lat: 50.7703, sog_kn: 5.4, cog_deg: 13, accuracy_m: 6 },
    ]);
  });

  it("stores the client secret only as a slow hash", async () => {
    const [client] = await rows("SELECT secret_hash, secret_version, scopes, ip_allowlist FROM api_clients WHERE client_id = 'overlay-1'");
    expect(client).toMatchObject({ secret_version: 1, scopes: "tracking:read events:read", ip_allowlist: '["10.0.0.0/8"]' });
    expect(client!.secret_hash).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(client!.secret_hash).not.toContain("s3cret-overlay-1");
    expect(await verifySecret("s3cret-overlay-1", client!.secret_hash as string)).toBe(true);
    expect(await verifySecret("wrong-secret", client!.secret_hash as string)).toBe(false);
  });

  it("is idempotent: the same file again changes nothing", async () => {
    const before = await snapshot(db.pool);
    const summary = await importScenario(db.pool, smallScenario());
    expect(summary.secretRotations).toBe(0);
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it("treats a changed secret as a rotation", async () => {
    const scenario = smallScenario();
    scenario.clients[0]!.clientSecret = "rotated-secret-2";
    expect((await importScenario(db.pool, scenario)).secretRotations).toBe(1);
    const [client] = await rows("SELECT secret_hash, secret_version FROM api_clients WHERE client_id = 'overlay-1'");
    expect(client!.secret_version).toBe(2);
    expect(await verifySecret("rotated-secret-2", client!.secret_hash as string)).toBe(true);
    expect(await verifySecret("s3cret-overlay-1", client!.secret_hash as string)).toBe(false);
  });

  it("merges tracks, replacing points with the same t", async () => {
    const scenario = smallScenario();
    const group = scenario.events[0]!.races[0]!.startGroups[0]!;
    group.tracks = [{ entryId: IDS.entryB, t: [GUN + 1000, GUN + 5000], lat: [51, 52], lon: [-1, -1], sogKn: [7, 8] }];
    await importScenario(db.pool, scenario);
    expect(
      await rows("SELECT t, lat, sog_kn FROM fixes f JOIN entries e ON e.id = f.entry_id WHERE e.uuid = ? ORDER BY t", [IDS.entryB]),
    ).toEqual([
      { t: GUN, lat: 50.771, sog_kn: null },
      { t: GUN + 1000, lat: 51, sog_kn: 7 },
      { t: GUN + 5000, lat: 52, sog_kn: 8 },
    ]);
  });

  it("stores a club's and a client's web origins as browsers send them, and replaces them whole", async () => {
    const origins = () =>
      rows(`SELECT 'club' AS owner, c.uuid AS id, o.origin FROM club_origins o JOIN clubs c ON c.id = o.club_id
            UNION ALL SELECT 'client', c.client_id, o.origin FROM client_origins o JOIN api_clients c ON c.id = o.api_client_id
            ORDER BY owner, id, origin`);
    const scenario = smallScenario();
    scenario.clubs[0]!.allowedOrigins = ["https://WWW.Royal-Test.example", "https://www.royal-test.example:443/"];
    scenario.clients[0]!.allowedOrigins = ["http://localhost:5173", "https://overlay.example"];
    await importScenario(db.pool, scenario);
    expect(await origins()).toEqual([
      { owner: "client", id: "overlay-1", origin: "http://localhost:5173" },
      { owner: "client", id: "overlay-1", origin: "https://overlay.example" },
      { owner: "club", id: IDS.club, origin: "https://www.royal-test.example" },
    ]);
    const again = await snapshot(db.pool);
    await importScenario(db.pool, scenario);
    expect(await snapshot(db.pool)).toEqual(again);

    scenario.clients[0]!.allowedOrigins = ["https://overlay.example"];
    delete scenario.clubs[0]!.allowedOrigins;
    await importScenario(db.pool, scenario);
    expect(await origins()).toEqual([{ owner: "client", id: "overlay-1", origin: "https://overlay.example" }]);
    await importScenario(db.pool, smallScenario());
    expect(await origins()).toEqual([]);
  });

  it("accepts references to objects already in the database", async () => {
    const clientOnly: Scenario = {
      format: "race-scenario/v1",
      clubs: [],
      events: [],
      clients: [{ clientId: "late-client", clientSecret: "late-client-secret", clubId: IDS.club, scopes: [] }],
    };
    expect((await importScenario(db.pool, clientOnly)).clients).toBe(1);
  });
});

describe("a refused file", () => {
  const group = (s: Scenario) => s.events[0]!.races[0]!.startGroups[0]!;
  const cases: Array<[string, (s: Scenario) => unknown, string, RegExp]> = [
    [
      "violates the schema",
      (s) => {
        (group(s) as { state: string }).state = "Racing";
        return s;
      },
      "$.events[0].races[0].startGroups[0].state",
      /allowed values/,
    ],
    [
      "misses a required field",
      (s) => {
        delete (s.events[0] as Partial<Scenario["events"][0]>).name;
        return s;
      },
      "$.events[0].name",
      /required/,
    ],
    ["has a field the format does not know", (s) => ({ ...s, extra: 1 }), "$.extra", /not a field/],
    [
      "has a malformed id",
      (s) => {
        s.clubs[0]!.id = "not-a-uuid";
        return s;
      },
      "$.clubs[0].id",
      /UUID/,
    ],
    [
      "grants a scope that does not exist",
      (s) => {
        s.clients[0]!.scopes.push("admin:all");
        return s;
      },
      "$.clients[0].scopes[2]",
      /unknown scope admin:all/,
    ],
    [
      "has a bad allowlist entry",
      (s) => {
        s.clients[0]!.ipAllowlist = ["10.0.0.0/8", "10.0.0.0/33"];
        return s;
      },
      "$.clients[0].ipAllowlist[1]",
      /not an IPv4 or IPv6 address or CIDR range/,
    ],
    [
      "has an origin with a path",
      (s) => {
        s.clients[0]!.allowedOrigins = ["https://club.example", "https://club.example/overlay/"];
        return s;
      },
      "$.clients[0].allowedOrigins[1]",
      /no path, wildcard or credentials/,
    ],
    [
      "has a wildcard origin",
      (s) => {
        s.clubs[1]!.allowedOrigins = ["*"];
        return s;
      },
      "$.clubs[1].allowedOrigins[0]",
      /is not an origin/,
    ],
    [
      "has an origin of another scheme",
      (s) => {
        s.clubs[0]!.allowedOrigins = ["ftp://club.example"];
        return s;
      },
      "$.clubs[0].allowedOrigins[0]",
      /must be http:\/\/ or https:\/\//,
    ],
    [
      "references an unknown club",
      (s) => {
        s.clients[0]!.clubId = "99999999-9999-4999-8999-999999999999";
        return s;
      },
      "$.clients[0].clubId",
      /unknown club/,
    ],
    [
      "references an entry outside the group",
      (s) => {
        group(s).entryIds = [IDS.entryA];
        return s;
      },
      "$.events[0].races[0].startGroups[0].liveOrder[0].rows[0].entryId",
      /not in this start group/,
    ],
    [
      "has misaligned track arrays",
      (s) => {
        group(s).tracks![0]!.lon.pop();
        return s;
      },
      "$.events[0].races[0].startGroups[0].tracks[0].lon",
      /has 3 values but t has 4/,
    ],
    [
      "has a t that does not ascend",
      (s) => {
        group(s).tracks![0]!.t[2] = GUN + 1000;
        return s;
      },
      "$.events[0].races[0].startGroups[0].tracks[0].t[2]",
      /strictly ascending/,
    ],
    [
      "has a race number its column cannot hold",
      (s) => {
        s.events[0]!.races[0]!.raceNo = 2 ** 31;
        return s;
      },
      "$.events[0].races[0].raceNo",
      /must be <= 2147483647/,
    ],
    [
      "has a rate limit its column cannot hold",
      (s) => {
        s.clubs[0]!.rateLimitPerMinute = 2 ** 32;
        return s;
      },
      "$.clubs[0].rateLimitPerMinute",
      /must be <= 4294967295/,
    ],
    [
      "repeats an id",
      (s) => {
        s.events[0]!.entries[1]!.id = IDS.entryA;
        return s;
      },
      "$.events[0].entries[1].id",
      /duplicate entry id/,
    ],
    [
      "repeats a reading time",
      (s) => {
        group(s).wind![1]!.measuredAtUtc = "2026-11-21T09:59:00Z";
        return s;
      },
      "$.events[0].races[0].startGroups[0].wind[1].measuredAtUtc",
      /duplicate wind reading time/,
    ],
  ];

  it.each(cases)("when it %s: names the JSON path and writes nothing", async (_what, breakIt, path, message) => {
    const before = await snapshot(db.pool);
    const problem = (await rejection(breakIt(copy(smallScenario())))).problem;
    expect(problem.path).toBe(path);
    expect(problem.message).toMatch(message);
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it("is rolled back whole when the database refuses a row late in the transaction", async () => {
    const scenario = smallScenario();
    const event = scenario.events[0]!;
    const newEvent = { ...copy(event), id: "66666666-6666-4666-8666-666666666666", name: "Doomed", entries: [], races: [] };
    scenario.events = [{ ...event, name: "Renamed before the failure" }, newEvent];
    // Validation refuses whatever a column cannot hold, so the database is made to refuse this row after earlier writes.
    await db.pool.query(`CREATE TRIGGER refuse_doomed BEFORE INSERT ON events FOR EACH ROW
      BEGIN IF NEW.name = 'Doomed' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'; END IF; END`);
    try {
      const before = await snapshot(db.pool);
      await expect(importScenario(db.pool, scenario)).rejects.toThrow(/refused by the test/);
      expect(await snapshot(db.pool)).toEqual(before);
      expect(await rows("SELECT name FROM events")).toEqual([{ name: "Autumn Series" }]);
    } finally {
      await db.pool.query("DROP TRIGGER refuse_doomed");
    }
  });
});
