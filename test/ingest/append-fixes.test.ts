// IngestService.AppendFixes through the real service over Connect's in-memory
// transport: what a batch writes and counts, each per-fix reason, malformed and
// hostile batches (refused whole, nothing written), idempotency, who may write
// what, the ingest bucket, and a property test against a model of the table.

import diagnostics from "node:diagnostics_channel";
import type { RowDataPacket } from "mysql2/promise";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixRejectionReason } from "../../gen/racing/v1/ingest_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import { createPool } from "../../src/store/pool.js";
import { bearer, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { boatFixes, INGEST_IDS as IDS, ingestClient, ingestScenario, paramInvalid, refusal } from "../support/ingest-scenarios.js";
import { snapshot } from "../support/snapshot.js";

const db = useFreshDatabase();
let api: Api;
let writer: Record<string, string>;
let client: ReturnType<typeof ingestClient>;

beforeAll(async () => {
  await importScenario(db.pool, ingestScenario());
  api = await startApi(db);
  writer = bearer(await tokenFor(api.url, "writer"));
  client = ingestClient(api.runtime);
});
afterAll(() => api?.close());

/** Now, in whole seconds: batches a test builds from it are in time order. */
const now = () => Math.floor(Date.now() / 1000) * 1000;

function append(boats: ReturnType<typeof boatFixes>[], group: string = IDS.group, raceId: string = IDS.race) {
  return client.appendFixes({ raceId, startGroupId: group, boats }, { headers: writer });
}

async function storedFixes(group: string, entry: string): Promise<RowDataPacket[]> {
  const [rows] = await db.pool.query<RowDataPacket[]>(
    `SELECT f.t, f.lat, f.lon, f.sog_kn, f.cog_deg, f.accuracy_m FROM fixes f
     JOIN start_groups g ON g.id = f.start_group_id JOIN entries e ON e.id = f.entry_id
     WHERE g.uuid = ? AND e.uuid = ? ORDER BY f.t`,
    [group, entry],
  );
  return rows;
}

/** The SQL this test file's database was sent while `work` ran (the service runs in this process). */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const database = new URL(db.url).pathname.slice(1);
  const sent: string[] = [];
  const record = (message: unknown) => {
    const { query, database: to } = message as { query: string; database: string };
    if (to === database) sent.push(query);
  };
  diagnostics.subscribe("tracing:mysql2:query:start", record);
  diagnostics.subscribe("tracing:mysql2:execute:start", record);
  try {
    await work();
  } finally {
    diagnostics.unsubscribe("tracing:mysql2:query:start", record);
    diagnostics.unsubscribe("tracing:mysql2:execute:start", record);
  }
  return sent;
}

/** What a statement of a batch is for; the guard's own re-reads (client state, signing keys) are left out. */
function statementKind(sql: string): string[] {
  if (/FROM (api_clients|signing_keys)/.test(sql)) return [];
  return [batchStatement(sql)];
}

function batchStatement(sql: string): string {
  if (/^SET TRANSACTION ISOLATION LEVEL READ COMMITTED$/.test(sql)) return "read committed";
  if (/^START TRANSACTION/i.test(sql)) return "begin";
  if (/^COMMIT/i.test(sql)) return "commit";
  if (/FROM races r .*LEFT JOIN start_groups.*start_group_entries/s.test(sql)) return "race, group and entries";
  if (/^INSERT IGNORE INTO fixes/.test(sql)) return "insert fixes";
  if (/FROM fixes/.test(sql)) return "stored fixes";
  return sql;
}

const reasons = (answer: { rejected: Array<{ reason: FixRejectionReason }> }) => answer.rejected.map((r) => FixRejectionReason[r.reason]);

describe("a batch", () => {
  it("writes its fixes, answers the counts, and a re-sent batch changes nothing and counts duplicates", async () => {
    const from = now() - 60_000;
    const boats = [boatFixes(IDS.a, from, 5), boatFixes(IDS.b, from, 3)];
    const first = await append(boats);
    expect({ accepted: first.accepted, duplicates: first.duplicates, rejected: first.rejected }).toEqual({
      accepted: 8,
      duplicates: 0,
      rejected: [],
    });
    const stored = await storedFixes(IDS.group, IDS.a);
    expect(stored.filter((r) => Number(r.t) >= from).map((r) => [Number(r.t), r.lat, r.lon, r.sog_kn, r.cog_deg])).toEqual(
      boats[0]!.t.map((t, k) => [Number(t), boats[0]!.lat[k], -1.3, 5.5, 10]),
    );
    const before = await snapshot(db.pool);
    const again = await append(boats);
    expect({ accepted: again.accepted, duplicates: again.duplicates, rejected: again.rejected }).toEqual({
      accepted: 0,
      duplicates: 8,
      rejected: [],
    });
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it("writes the new fixes of a batch that overlaps one already stored", async () => {
    const from = now() - 50_000;
    await append([boatFixes(IDS.a, from, 3)]);
    const answer = await append([boatFixes(IDS.a, from, 6)]);
    expect({ accepted: answer.accepted, duplicates: answer.duplicates }).toEqual({ accepted: 3, duplicates: 3 });
  });

  it("counts a re-sent fix as a duplicate whatever digits its values need", async () => {
    // mysql2's own parse of the text protocol answers 93.31733925378096 for the first speed (store/pool.ts reads it exactly).
    const boat = {
      ...boatFixes(IDS.b, now() - 55_000, 3),
      sogKn: [93.31733925378097, 90.94622683832839, 0.1],
      lat: [50.70000000000001, 1 / 3, -89.99999999999999],
    };
    expect((await append([boat])).accepted).toBe(3);
    const again = await append([boat]);
    expect({ accepted: again.accepted, duplicates: again.duplicates, rejected: again.rejected }).toEqual({
      accepted: 0,
      duplicates: 3,
      rejected: [],
    });
  });

  it("keeps a stored fix and rejects a re-sent one with other values as CONFLICT", async () => {
    const from = now() - 40_000;
    await append([boatFixes(IDS.b, from, 2)]);
    const sent = boatFixes(IDS.b, from, 2);
    const moved = { ...sent, lat: [10, sent.lat[1]!] };
    const answer = await append([moved]);
    expect({ accepted: answer.accepted, duplicates: answer.duplicates, reasons: reasons(answer) }).toEqual({
      accepted: 0,
      duplicates: 1,
      reasons: ["CONFLICT"],
    });
    expect((await storedFixes(IDS.group, IDS.b)).find((r) => Number(r.t) === from)?.lat).toBe(50.7);
  });

  it("counts a stored fix re-sent after it became late as a duplicate, or a conflict, not as late", async () => {
    // Stored 200 s ago, as a batch then would have stored it: now older than the settled edge (110 s at delay 0).
    const old = now() - 200_000;
    const sent = boatFixes(IDS.a, old, 3);
    const [[ids]] = await db.pool.query<RowDataPacket[]>(
      "SELECT g.id AS g, e.id AS e FROM start_groups g, entries e WHERE g.uuid = ? AND e.uuid = ?",
      [IDS.group, IDS.a],
    );
    await db.pool.query(
      "INSERT INTO fixes (start_group_id, entry_id, t, lat, lon, sog_kn, cog_deg) VALUES (?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?)",
      [...[ids!.g, ids!.e, old, sent.lat[0], sent.lon[0], 5.5, 10], ...[ids!.g, ids!.e, old + 1000, sent.lat[1], sent.lon[1], 5.5, 10]],
    );
    // The first as stored, the second moved, the third never stored; and a fresh fix beside them.
    const resent = { ...sent, lat: [sent.lat[0]!, 10, sent.lat[2]!] };
    const answer = await append([resent, boatFixes(IDS.b, now() - 70_000, 1)]);
    expect({ accepted: answer.accepted, duplicates: answer.duplicates, reasons: reasons(answer) }).toEqual({
      accepted: 1,
      duplicates: 1,
      reasons: ["CONFLICT", "WINDOW_SETTLED"],
    });
    expect(answer.rejected.map((r) => Number(r.t))).toEqual([old + 1000, old + 2000]);
  });

  it("sends a new batch as two statements, reads the stored fixes only for a retry, and locks nothing it reads", async () => {
    const from = now() - 80_000;
    const boats = [boatFixes(IDS.a, from, 4), boatFixes(IDS.b, from, 4)];
    const fresh = await statementsOf(() => append(boats));
    // The insert is the batch's one write: on its own (autocommit) it is one transaction.
    expect(fresh.flatMap(statementKind)).toEqual(["race, group and entries", "insert fixes"]);
    const retried = await statementsOf(() => append(boats));
    expect(retried.flatMap(statementKind)).toEqual(["race, group and entries", "insert fixes", "stored fixes"]);
    expect([...fresh, ...retried].filter((sql) => /LOCK IN SHARE MODE|FOR UPDATE|FOR SHARE/i.test(sql))).toEqual([]);
  });

  it("says 'not reported' for speed or course with NaN or an empty array, which the track page shows as null", async () => {
    const from = now() - 35_000;
    const boat = { ...boatFixes(IDS.a, from, 3), sogKn: [NaN, 4, 4.5], cogDeg: [] };
    expect((await append([boat])).accepted).toBe(3);
    const rows = (await storedFixes(IDS.group, IDS.a)).filter((r) => Number(r.t) >= from && Number(r.t) < from + 3000);
    expect(rows.map((r) => [r.sog_kn, r.cog_deg])).toEqual([
      [null, null],
      [4, null],
      [4.5, null],
    ]);
    const reader = await tokenFor(api.url, "reader");
    const page = await fetch(
      `${api.url}/api/v1/races/${IDS.race}/track?startGroupId=${IDS.group}&since=${new Date(from).toISOString()}&until=${new Date(from + 3000).toISOString()}`,
      {
        headers: bearer(reader),
      },
    );
    const body = (await page.json()) as { boats: Array<{ entryId: string; sogKn: unknown[]; cogDeg: unknown[] }> };
    expect(body.boats.find((b) => b.entryId === IDS.a)).toMatchObject({ sogKn: [null, 4, 4.5], cogDeg: [null, null, null] });
  });

  it("stores accuracy and device data privately, never serves them", async () => {
    const from = now() - 30_000;
    const boat = {
      ...boatFixes(IDS.b, from, 2),
      accuracyM: [4242.4242, NaN],
      deviceId: "device-PRIVATE-91",
      phoneModel: "model-PRIVATE-92",
    };
    expect((await append([boat])).accepted).toBe(2);
    const rows = (await storedFixes(IDS.group, IDS.b)).filter((r) => Number(r.t) >= from && Number(r.t) < from + 2000);
    expect(rows.map((r) => r.accuracy_m)).toEqual([4242.4242, null]);
    const [[device]] = await db.pool.query<RowDataPacket[]>(
      "SELECT p.device_id, p.phone_model FROM entry_private p JOIN entries e ON e.id = p.entry_id WHERE e.uuid = ?",
      [IDS.b],
    );
    expect(device).toEqual({ device_id: "device-PRIVATE-91", phone_model: "model-PRIVATE-92" });
    const reader = bearer(await tokenFor(api.url, "reader"));
    const answers = await Promise.all([
      fetch(`${api.url}/api/v1/races/${IDS.race}/live`, { headers: reader }),
      fetch(`${api.url}/api/v1/races/${IDS.race}/track?startGroupId=${IDS.group}&since=${new Date(from).toISOString()}`, {
        headers: reader,
      }),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const text = await answer.text();
      expect(text).not.toMatch(/4242|PRIVATE|accuracy|device/i);
    }
  });
  it("writes device data only when it differs from what is stored, as a platform sends it with every batch", async () => {
    const from = now() - 90_000;
    const device = { deviceId: "device-7", phoneModel: "Pixel 8" };
    const deviceOf = async () => {
      const [[row]] = await db.pool.query<RowDataPacket[]>(
        "SELECT p.device_id, p.phone_model FROM entry_private p JOIN entries e ON e.id = p.entry_id WHERE e.uuid = ?",
        [IDS.a],
      );
      return row;
    };
    // A change is a second write: the batch's fixes and the device data in one READ COMMITTED transaction.
    const first = await statementsOf(() => append([{ ...boatFixes(IDS.a, from, 2), ...device }]));
    expect(first.flatMap(statementKind).map((kind) => kind.replace(/^INSERT INTO entry_private.*/s, "device"))).toEqual([
      "race, group and entries",
      "read committed",
      "begin",
      "insert fixes",
      "device",
      "commit",
    ]);
    expect(await deviceOf()).toEqual({ device_id: "device-7", phone_model: "Pixel 8" });
    // The same device again: the batch's statements are those of a batch without device data.
    const same = await statementsOf(() => append([{ ...boatFixes(IDS.a, from + 2000, 2), ...device }]));
    expect(same.flatMap(statementKind)).toEqual(["race, group and entries", "insert fixes"]);
    // A new phone model is written; the device id, not sent, stays.
    const newModel = { ...boatFixes(IDS.a, from + 4000, 2), phoneModel: "Pixel 9" };
    await append([newModel]);
    expect(await deviceOf()).toEqual({ device_id: "device-7", phone_model: "Pixel 9" });
  });
});

describe("each fix's reason", () => {
  it("rejects an entry that is not in the start group as UNKNOWN_ENTRY, and writes the others", async () => {
    const from = now() - 25_000;
    const answer = await append([boatFixes(IDS.outsider, from, 2), boatFixes(IDS.otherEntry, from, 1), boatFixes(IDS.a, from, 1)]);
    expect({ accepted: answer.accepted, reasons: reasons(answer) }).toEqual({
      accepted: 1,
      reasons: ["UNKNOWN_ENTRY", "UNKNOWN_ENTRY", "UNKNOWN_ENTRY"],
    });
    expect(answer.rejected.map((r) => [r.entryId, Number(r.t)])).toEqual([
      [IDS.outsider, from],
      [IDS.outsider, from + 1000],
      [IDS.otherEntry, from],
    ]);
    expect(await storedFixes(IDS.group, IDS.outsider)).toEqual([]);
  });

  it.each([
    ["a NaN latitude", { lat: NaN }],
    ["an infinite latitude", { lat: Infinity }],
    ["a latitude over 90", { lat: 90.0001 }],
    ["a longitude under -180", { lon: -180.5 }],
    ["a NaN longitude", { lon: NaN }],
    ["an infinite speed", { sogKn: Infinity }],
    ["a negative speed", { sogKn: -1 }],
    ["a speed over 100 knots", { sogKn: 100.5 }],
    ["a course of 360", { cogDeg: 360 }],
    ["a negative course", { cogDeg: -0.5 }],
    ["an infinite course", { cogDeg: -Infinity }],
  ])("rejects %s as OUT_OF_RANGE", async (_, value) => {
    const t = now() - 20_000 - Math.floor(Math.random() * 10_000);
    const boat = { ...boatFixes(IDS.b, t, 1), ...Object.fromEntries(Object.entries(value).map(([k, v]) => [k, [v]])) };
    const answer = await append([boat]);
    expect({ accepted: answer.accepted, reasons: reasons(answer) }).toEqual({ accepted: 0, reasons: ["OUT_OF_RANGE"] });
  });

  it("accepts the edges of the ranges", async () => {
    const t = now() - 15_000;
    const boat = {
      entryId: IDS.a,
      t: [BigInt(t), BigInt(t + 1000)],
      lat: [90, -90],
      lon: [180, -180],
      sogKn: [0, 100],
      cogDeg: [0, 359.999],
      accuracyM: [],
    };
    expect((await append([boat])).accepted).toBe(2);
  });

  it("rejects a fix more than 5 s ahead of the server's clock as IN_FUTURE", async () => {
    const t = now();
    const answer = await append([{ ...boatFixes(IDS.b, t + 2000, 1) }, { ...boatFixes(IDS.a, t + 60_000, 1) }]);
    expect({ accepted: answer.accepted, reasons: reasons(answer) }).toEqual({ accepted: 1, reasons: ["IN_FUTURE"] });
  });

  it("rejects a fix where track windows may already be immutable (now - delay - 2 min, plus 10 s) as WINDOW_SETTLED", async () => {
    const t = now();
    const answer = await append([boatFixes(IDS.a, t - 125_000, 1), boatFixes(IDS.b, t - 100_000, 1)]);
    expect({ accepted: answer.accepted, reasons: reasons(answer) }).toEqual({ accepted: 1, reasons: ["WINDOW_SETTLED"] });
    expect((await storedFixes(IDS.group, IDS.a)).some((r) => Number(r.t) === t - 125_000)).toBe(false);
  });

  it("rejects a fix outside the capture window as OUTSIDE_CAPTURE_WINDOW, and keeps a gunless group's fixes", async () => {
    const t = now() - 20_000;
    // Fleet C's gun is 10 minutes ahead: its window opens in 5.
    const later = await append([boatFixes(IDS.a, t, 2)], IDS.later);
    expect({ accepted: later.accepted, reasons: reasons(later) }).toEqual({
      accepted: 0,
      reasons: ["OUTSIDE_CAPTURE_WINDOW", "OUTSIDE_CAPTURE_WINDOW"],
    });
    const gunless = await append([boatFixes(IDS.a, t, 2)], IDS.noGun);
    expect({ accepted: gunless.accepted, rejected: gunless.rejected }).toEqual({ accepted: 2, rejected: [] });
  });

  it("rejects a fix after the boat's own phone finish as OUTSIDE_CAPTURE_WINDOW", async () => {
    const t = now();
    await client.recordFinish(
      { raceId: IDS.race, startGroupId: IDS.noGun, entryId: IDS.b, finishTimeUtc: { seconds: BigInt((t - 30_000) / 1000), nanos: 0 } },
      { headers: writer },
    );
    await client.updateStartGroup(
      { raceId: IDS.race, startGroupId: IDS.noGun, startTimeUtc: { seconds: BigInt((t - 20 * 60_000) / 1000), nanos: 0 } },
      { headers: writer },
    );
    const answer = await append([boatFixes(IDS.b, t - 31_000, 3)], IDS.noGun);
    // t - 31 s and the finish itself (inclusive) are in; t - 29 s is out.
    expect({ accepted: answer.accepted, reasons: reasons(answer) }).toEqual({ accepted: 2, reasons: ["OUTSIDE_CAPTURE_WINDOW"] });
  });
});

describe("a malformed batch", () => {
  const t = () => now() - 10_000;
  const good = () => boatFixes(IDS.a, t(), 3);

  it.each([
    ["t not ascending", () => ({ ...good(), t: [BigInt(t()), BigInt(t() - 1000), BigInt(t() + 1000)] }), "boats[1].t[1]"],
    ["a repeated t", () => ({ ...good(), t: [BigInt(t()), BigInt(t()), BigInt(t() + 1000)] }), "boats[1].t[1]"],
    ["a negative t", () => ({ ...good(), t: [-1n, 0n, 1n] }), "boats[1].t[0]"],
    ["a t beyond the last date", () => ({ ...good(), t: [BigInt(t()), BigInt(t() + 1000), 2n ** 62n] }), "boats[1].t[2]"],
    ["a shorter lat", () => ({ ...good(), lat: [1, 2] }), "boats[1].lat"],
    ["a longer lon", () => ({ ...good(), lon: [1, 2, 3, 4] }), "boats[1].lon"],
    ["a sogKn of another length", () => ({ ...good(), sogKn: [1] }), "boats[1].sogKn"],
    ["a cogDeg of another length", () => ({ ...good(), cogDeg: [1, 2] }), "boats[1].cogDeg"],
    ["an accuracyM of another length", () => ({ ...good(), accuracyM: [1, 2, 3, 4, 5] }), "boats[1].accuracyM"],
    ["a malformed entryId", () => ({ ...good(), entryId: "not-a-uuid" }), "boats[1].entryId"],
    ["an empty entryId", () => ({ ...good(), entryId: "" }), "boats[1].entryId"],
    ["an entry twice", () => ({ ...good(), entryId: IDS.b.toUpperCase() }), "boats[1].entryId"],
    ["a device id over 200 characters", () => ({ ...good(), deviceId: "x".repeat(201) }), "boats[1].deviceId"],
  ])("with %s is INVALID_ARGUMENT naming the field, and writes nothing of the batch", async (_, boat, field) => {
    const before = await snapshot(db.pool);
    // The first boat is good: it must not be written either.
    expect(await refusal(append([boatFixes(IDS.b, t() - 5000, 2), boat()]))).toEqual(paramInvalid(field));
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it.each([
    ["unknown", "b4000000-0000-4000-8000-00000000ffff"],
    ["another club's", IDS.otherGroup],
    ["malformed", "Fleet A"],
    ["empty", ""],
  ])("with a start group that is %s is INVALID_ARGUMENT naming startGroupId", async (_, group) => {
    const before = await snapshot(db.pool);
    expect(await refusal(append([good()], group))).toEqual(paramInvalid("startGroupId"));
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it("of more than 1,000 boats or 20,000 fixes is INVALID_ARGUMENT naming boats", async () => {
    const manyBoats = Array.from({ length: 1001 }, (_, i) => ({
      ...boatFixes(`d5000000-0000-4000-8000-${String(i).padStart(12, "0")}`, t(), 0),
    }));
    expect(await refusal(append(manyBoats))).toEqual(paramInvalid("boats"));
    const manyFixes = [boatFixes(IDS.a, t() - 30_000_000, 10_000), boatFixes(IDS.b, t() - 30_000_000, 10_001)];
    expect(await refusal(append(manyFixes))).toEqual(paramInvalid("boats"));
  });

  it("holding exactly 20,000 fixes is taken (and its settled fixes rejected one by one)", async () => {
    const batch = [boatFixes(IDS.a, now() - 40_000_000, 10_000), boatFixes(IDS.b, now() - 40_000_000, 10_000)];
    const answer = await append(batch);
    expect({ accepted: answer.accepted, duplicates: answer.duplicates, rejected: answer.rejected.length }).toEqual({
      accepted: 0,
      duplicates: 0,
      rejected: 20_000,
    });
  });

  it("with an empty boats list writes nothing and answers zeros", async () => {
    const answer = await append([]);
    expect({ accepted: answer.accepted, duplicates: answer.duplicates, rejected: answer.rejected }).toEqual({
      accepted: 0,
      duplicates: 0,
      rejected: [],
    });
  });
});

describe("who may write", () => {
  it.each([
    ["another club's race", IDS.otherRace],
    ["an unknown race", "a4000000-0000-4000-8000-00000000ffff"],
    ["a malformed race id", "race-1"],
    ["an empty race id", ""],
  ])("answers %s with RACE_NOT_FOUND, as reads do", async (_, raceId) => {
    expect(await refusal(append([boatFixes(IDS.otherEntry, now() - 5000, 1)], IDS.otherGroup, raceId))).toMatchObject({
      code: "NotFound",
      reason: "RACE_NOT_FOUND",
    });
  });

  it("answers a co-host's writer RACE_NOT_FOUND: only the event's main club writes", async () => {
    const coHost = bearer(await tokenFor(api.url, "coHostWriter"));
    // The co-host reads the race...
    expect((await fetch(`${api.url}/api/v1/races/${IDS.race}/live`, { headers: coHost })).status).toBe(200);
    // ...but may not write it.
    const call = client.appendFixes(
      { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.a, now() - 5000, 1)] },
      { headers: coHost },
    );
    expect(await refusal(call)).toMatchObject({ code: "NotFound", reason: "RACE_NOT_FOUND" });
  });

  it("writes the club's unpublished event, and answers a legacy one RACE_NOT_FOUND", async () => {
    try {
      await db.pool.query("UPDATE events SET published = FALSE WHERE uuid = ?", [IDS.event]);
      expect((await append([boatFixes(IDS.a, now() - 7000, 1)])).accepted).toBe(1);
      await db.pool.query("UPDATE events SET legacy = TRUE WHERE uuid = ?", [IDS.event]);
      expect(await refusal(append([boatFixes(IDS.a, now() - 6000, 1)]))).toMatchObject({ code: "NotFound", reason: "RACE_NOT_FOUND" });
    } finally {
      await db.pool.query("UPDATE events SET published = TRUE, legacy = FALSE WHERE uuid = ?", [IDS.event]);
    }
  });

  it("lets another club's writer write its own race", async () => {
    const other = bearer(await tokenFor(api.url, "otherWriter"));
    const answer = await client.appendFixes(
      { raceId: IDS.otherRace, startGroupId: IDS.otherGroup, boats: [boatFixes(IDS.otherEntry, now() - 5000, 1)] },
      { headers: other },
    );
    expect(answer.accepted).toBe(1);
  });

  it("answers a token without tracking:write PERMISSION_DENIED with API_SCOPE_MISSING scope=tracking:write", async () => {
    const reader = bearer(await tokenFor(api.url, "reader"));
    const call = client.appendFixes({ raceId: IDS.race, startGroupId: IDS.group, boats: [] }, { headers: reader });
    expect(await refusal(call)).toEqual({
      code: "PermissionDenied",
      reason: "API_SCOPE_MISSING",
      metadata: { scope: "tracking:write" },
      retryDelaySeconds: undefined,
    });
  });

  it("answers without a token UNAUTHENTICATED", async () => {
    expect(await refusal(client.appendFixes({ raceId: IDS.race, startGroupId: IDS.group, boats: [] }))).toMatchObject({
      code: "Unauthenticated",
      reason: "API_TOKEN_MISSING",
    });
  });
});

describe("the ingest bucket", () => {
  it("refuses the call past the club's ingest limit with RESOURCE_EXHAUSTED and RetryInfo 60 s, writing nothing; reads keep their own budget", async () => {
    // A club's own ingest limit, as a scenario file sets it.
    const otherClub = ingestScenario().clubs[2]!;
    await importScenario(db.pool, {
      format: "race-scenario/v1",
      clubs: [{ ...otherClub, ingestRateLimitPerMinute: 2 }],
      clients: [],
      events: [],
    });
    const limited = await startApi(db);
    try {
      const other = bearer(await tokenFor(limited.url, "otherWriter"));
      const limitedClient = ingestClient(limited.runtime);
      const batch = (offset: number) => ({
        raceId: IDS.otherRace,
        startGroupId: IDS.otherGroup,
        boats: [boatFixes(IDS.otherEntry, now() - offset, 1)],
      });
      await limitedClient.appendFixes(batch(4000), { headers: other });
      await limitedClient.appendFixes(batch(3000), { headers: other });
      const before = await snapshot(db.pool);
      expect(await refusal(limitedClient.appendFixes(batch(2000), { headers: other }))).toEqual({
        code: "ResourceExhausted",
        reason: "RATE_LIMIT_EXCEEDED",
        metadata: {},
        retryDelaySeconds: 60,
      });
      expect(await snapshot(db.pool)).toEqual(before);
      // The same client's reads count against the tracking bucket, untouched.
      expect((await fetch(`${limited.url}/api/v1/races/${IDS.otherRace}/live`, { headers: other })).status).toBe(200);
    } finally {
      await limited.close();
      // A file without the field goes back to the default.
      await importScenario(db.pool, { format: "race-scenario/v1", clubs: [otherClub], clients: [], events: [] });
    }
    const [limits] = await db.pool.query<RowDataPacket[]>("SELECT * FROM club_ingest_limits");
    expect(limits).toEqual([]);
  });
});

describe("a database that does not answer in time", () => {
  it("gives UNAVAILABLE with RetryInfo 30 s and writes nothing", async () => {
    const quickPool = createPool(db.url, { statementTimeoutMs: 300 });
    const quick = await startApi(db, {}, quickPool);
    const locker = await db.pool.getConnection();
    try {
      // A writer holding a key the batch writes, not committed: the batch's insert waits, then times out.
      const fixes = boatFixes(IDS.a, now() - 3000, 2);
      await locker.beginTransaction();
      await locker.query(
        `INSERT INTO fixes (start_group_id, entry_id, t, lat, lon)
         SELECT g.id, e.id, ?, 50, -1 FROM start_groups g, entries e WHERE g.uuid = ? AND e.uuid = ?`,
        [Number(fixes.t[1]), IDS.group, IDS.a],
      );
      const before = await snapshot(db.pool);
      const token = bearer(await tokenFor(quick.url, "writer"));
      const call = ingestClient(quick.runtime).appendFixes(
        { raceId: IDS.race, startGroupId: IDS.group, boats: [fixes] },
        { headers: token },
      );
      expect(await refusal(call)).toEqual({ code: "Unavailable", reason: "API_UNAVAILABLE", metadata: {}, retryDelaySeconds: 30 });
      await locker.rollback();
      expect(await snapshot(db.pool)).toEqual(before);
    } finally {
      locker.release();
      await quick.close();
      await quickPool.end();
    }
  });
});

describe("AppendFixes as a property", () => {
  // Regions of sample time relative to now, each far from the edges between them.
  const offsetSeconds = fc.oneof(
    fc.integer({ min: -100, max: -20 }),
    fc.integer({ min: -300, max: -130 }),
    fc.integer({ min: 20, max: 60 }),
  );
  const coordinate = (limit: number) =>
    fc.oneof(fc.double({ min: -limit, max: limit, noNaN: true }), fc.constantFrom(NaN, Infinity, -Infinity, limit + 0.5));
  const optional = (limit: number) =>
    fc.oneof(fc.double({ min: 0, max: limit, noNaN: true, maxExcluded: true }), fc.constantFrom(NaN, -1, Infinity));
  const sample = fc.record({
    offset: offsetSeconds,
    lat: coordinate(90),
    lon: coordinate(180),
    sogKn: optional(100),
    cogDeg: optional(360),
  });
  const boat = fc.record({
    entry: fc.constantFrom(IDS.a, IDS.b, IDS.outsider),
    samples: fc.uniqueArray(sample, { selector: (s) => s.offset, maxLength: 12 }),
  });
  const batch = fc.uniqueArray(boat, { selector: (b) => b.entry, maxLength: 3 });

  /** What the table holds for the two entries, keyed "entry@t", kept beside the database. */
  const model = new Map<string, [number, number, number | null, number | null]>();

  it("answers and stores exactly what a model of the rules says", async () => {
    const [rows] = await db.pool.execute<RowDataPacket[]>(
      "SELECT e.uuid, f.t, f.lat, f.lon, f.sog_kn, f.cog_deg FROM fixes f JOIN entries e ON e.id = f.entry_id JOIN start_groups g ON g.id = f.start_group_id WHERE g.uuid = ?",
      [IDS.group],
    );
    for (const row of rows) model.set(`${row.uuid}@${Number(row.t)}`, [row.lat, row.lon, row.sog_kn, row.cog_deg]);

    await fc.assert(
      fc.asyncProperty(batch, async (generated) => {
        const base = now();
        const boats = generated.map(({ entry, samples }) => {
          const sorted = [...samples].sort((x, y) => x.offset - y.offset);
          return {
            entryId: entry,
            t: sorted.map((s) => BigInt(base + s.offset * 1000)),
            lat: sorted.map((s) => s.lat),
            lon: sorted.map((s) => s.lon),
            sogKn: sorted.map((s) => s.sogKn),
            cogDeg: sorted.map((s) => s.cogDeg),
            accuracyM: [],
          };
        });
        const expected = { accepted: 0, duplicates: 0, rejected: [] as Array<[string, number, string]> };
        for (const b of boats) {
          for (let k = 0; k < b.t.length; k++) {
            const t = Number(b.t[k]);
            const [lat, lon, sog, cog] = [b.lat[k]!, b.lon[k]!, b.sogKn[k]!, b.cogDeg[k]!];
            // -0 is stored as 0.
            const values: [number, number, number | null, number | null] = [
              lat + 0,
              lon + 0,
              Number.isNaN(sog) ? null : sog + 0,
              Number.isNaN(cog) ? null : cog + 0,
            ];
            const stored = model.get(`${b.entryId}@${t}`);
            const reason =
              b.entryId === IDS.outsider
                ? "UNKNOWN_ENTRY"
                : !(
                      Math.abs(lat) <= 90 &&
                      Math.abs(lon) <= 180 &&
                      (Number.isNaN(sog) || (sog >= 0 && sog <= 100)) &&
                      (Number.isNaN(cog) || (cog >= 0 && cog < 360))
                    )
                  ? "OUT_OF_RANGE"
                  : stored
                    ? stored.every((v, i) => v === values[i])
                      ? "DUPLICATE"
                      : "CONFLICT"
                    : t > base + 5000
                      ? "IN_FUTURE"
                      : t < base - 110_000
                        ? "WINDOW_SETTLED"
                        : null;
            if (reason === null) {
              expected.accepted++;
              model.set(`${b.entryId}@${t}`, values);
            } else if (reason === "DUPLICATE") expected.duplicates++;
            else expected.rejected.push([b.entryId, t, reason]);
          }
        }
        const answer = await client.appendFixes({ raceId: IDS.race, startGroupId: IDS.group, boats }, { headers: writer });
        expect({
          accepted: answer.accepted,
          duplicates: answer.duplicates,
          rejected: answer.rejected.map((r) => [r.entryId, Number(r.t), FixRejectionReason[r.reason]]),
        }).toEqual(expected);
      }),
      { numRuns: 60 },
    );

    const [after] = await db.pool.execute<RowDataPacket[]>(
      "SELECT e.uuid, f.t, f.lat, f.lon, f.sog_kn, f.cog_deg FROM fixes f JOIN entries e ON e.id = f.entry_id JOIN start_groups g ON g.id = f.start_group_id WHERE g.uuid = ?",
      [IDS.group],
    );
    // As sorted lists, so that a difference names its key.
    const stored = after.map((row) => [`${row.uuid}@${Number(row.t)}`, [row.lat, row.lon, row.sog_kn, row.cog_deg]]);
    expect(stored.sort()).toEqual([...model].sort());
  });
});
