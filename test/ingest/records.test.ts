// The IngestService writes besides fixes: each one's natural key (a retry is a
// duplicate, other values under the key a conflict, or last write wins for state), its
// refusals naming the field, the club fence, and that what it writes is what the
// public endpoints serve. ApplyScenario: import's validation, fenced to the club.

import { fromJson } from "@bufbuild/protobuf";
import { ListValueSchema } from "@bufbuild/protobuf/wkt";
import type { RowDataPacket } from "mysql2/promise";
import { DELAY_HOLD_MS } from "../../src/domain/fix-rules.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StartGroupState } from "../../gen/racing/v1/common_pb.js";
import { CourseStepKind, IngestResultStatus } from "../../gen/racing/v1/ingest_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import { bearer, CLUB, OTHER_CLUB, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { boatFixes, GUN, INGEST_IDS as IDS, ingestClient, ingestScenario, paramInvalid, refusal } from "../support/ingest-scenarios.js";
import { entry, uuid } from "../support/race-scenarios.js";
import { snapshot } from "../support/snapshot.js";

const db = useFreshDatabase();
let api: Api;
let writer: Record<string, string>;
let reader: Record<string, string>;
let client: ReturnType<typeof ingestClient>;

beforeAll(async () => {
  await importScenario(db.pool, ingestScenario());
  api = await startApi(db);
  writer = bearer(await tokenFor(api.url, "writer"));
  reader = bearer(await tokenFor(api.url, "reader"));
  client = ingestClient(api.runtime);
});
afterAll(() => api?.close());

const timestamp = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });
const group = { raceId: IDS.race, startGroupId: IDS.group };
/** The live answer after the 2 s an earlier read is shared for. */
async function freshLive<T>(): Promise<T> {
  await new Promise((resolve) => setTimeout(resolve, 2100));
  return (await (await fetch(`${api.url}/api/v1/races/${IDS.race}/live`, { headers: reader })).json()) as T;
}
const conflict = (name: string) => ({ code: "AlreadyExists", reason: "INGEST_CONFLICT", metadata: { name }, retryDelaySeconds: undefined });

describe("RecordWind", () => {
  it("records a reading once: the same again is a duplicate, other values at that time a conflict", async () => {
    const measuredAtUtc = timestamp(Date.now() - 60_000);
    expect((await client.recordWind({ ...group, twd: 200, tws: 11.5, measuredAtUtc }, { headers: writer })).duplicate).toBe(false);
    expect((await client.recordWind({ ...group, twd: 200, tws: 11.5, measuredAtUtc }, { headers: writer })).duplicate).toBe(true);
    const before = await snapshot(db.pool);
    expect(await refusal(client.recordWind({ ...group, twd: 201, tws: 11.5, measuredAtUtc }, { headers: writer }))).toEqual(
      conflict("measuredAtUtc"),
    );
    expect(await refusal(client.recordWind({ ...group, twd: 200, measuredAtUtc }, { headers: writer }))).toEqual(conflict("measuredAtUtc"));
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it.each([
    ["a direction of 360", { twd: 360 }, "twd"],
    ["a negative direction", { twd: -1 }, "twd"],
    ["a NaN speed", { tws: NaN }, "tws"],
    ["an infinite speed", { tws: Infinity }, "tws"],
    ["no time", { measuredAtUtc: undefined }, "measuredAtUtc"],
    ["a time a minute ahead", { measuredAtUtc: timestamp(Date.now() + 60_000) }, "measuredAtUtc"],
    ["a negative nanos", { measuredAtUtc: { seconds: 1n, nanos: -1 } }, "measuredAtUtc"],
  ])("refuses %s as INVALID_ARGUMENT naming it", async (_, change, name) => {
    const request = { ...group, twd: 10, tws: 5, measuredAtUtc: timestamp(Date.now() - 1000), ...change };
    expect(await refusal(client.recordWind(request, { headers: writer }))).toEqual(paramInvalid(name));
  });

  it("is served as the live answer's wind", async () => {
    await client.recordWind({ ...group, twd: 123, measuredAtUtc: timestamp(Date.now() - 2000) }, { headers: writer });
    const body = await freshLive<{ startGroups: Array<{ startGroupId: string; wind: unknown }> }>();
    expect(body.startGroups.find((g) => g.startGroupId === IDS.group)?.wind).toMatchObject({ twd: 123, tws: null });
  });
});

describe("RecordLiveOrder", () => {
  it("records one reading whole; the same again is a duplicate, other rows a conflict", async () => {
    const asOfUtc = timestamp(Date.now() - 3000);
    const rows = [
      { entryId: IDS.b, rank: 1, elapsedSeconds: 600, deltaSeconds: 0 },
      { entryId: IDS.a, rank: 2, elapsedSeconds: 612.5, deltaSeconds: 12.5 },
    ];
    expect((await client.recordLiveOrder({ ...group, asOfUtc, rows }, { headers: writer })).duplicate).toBe(false);
    expect((await client.recordLiveOrder({ ...group, asOfUtc, rows: [...rows].reverse() }, { headers: writer })).duplicate).toBe(true);
    expect(await refusal(client.recordLiveOrder({ ...group, asOfUtc, rows: [rows[0]!] }, { headers: writer }))).toEqual(
      conflict("asOfUtc"),
    );
    const body = await freshLive<{ startGroups: Array<{ startGroupId: string; liveOrder: unknown }> }>();
    expect(body.startGroups.find((g) => g.startGroupId === IDS.group)?.liveOrder).toMatchObject([
      { entryId: IDS.b, rank: 1, elapsedSeconds: 600, correctedSeconds: null, deltaSeconds: 0 },
      { entryId: IDS.a, rank: 2 },
    ]);
  });

  it.each([
    ["an entry outside the group", [{ entryId: IDS.outsider, rank: 1 }], "rows[0].entryId"],
    ["a malformed entry id", [{ entryId: "x", rank: 1 }], "rows[0].entryId"],
    [
      "an entry twice",
      [
        { entryId: IDS.a, rank: 1 },
        { entryId: IDS.a.toUpperCase(), rank: 2 },
      ],
      "rows[1].entryId",
    ],
    ["rank 0", [{ entryId: IDS.a, rank: 0 }], "rows[0].rank"],
    ["a NaN elapsed time", [{ entryId: IDS.a, elapsedSeconds: NaN }], "rows[0].elapsedSeconds"],
  ])("refuses %s, writing nothing", async (_, rows, name) => {
    const before = await snapshot(db.pool);
    expect(await refusal(client.recordLiveOrder({ ...group, asOfUtc: timestamp(Date.now() - 1000), rows }, { headers: writer }))).toEqual(
      paramInvalid(name),
    );
    expect(await snapshot(db.pool)).toEqual(before);
  });
});

describe("RecordFinish", () => {
  it("records a phone finish once, and refuses one that would cut fixes from a settled window", async () => {
    const nowMs = Date.now();
    const request = { ...group, entryId: IDS.b, finishTimeUtc: timestamp(nowMs - 5000) };
    expect((await client.recordFinish(request, { headers: writer })).duplicate).toBe(false);
    expect((await client.recordFinish(request, { headers: writer })).duplicate).toBe(true);
    // Entry A has a fix 200 s ago, written when it was fresh: windows holding it may be served as immutable.
    await db.pool.query(
      `INSERT INTO fixes (start_group_id, entry_id, t, lat, lon) SELECT g.id, e.id, ?, 50.7, -1.3 FROM start_groups g, entries e WHERE g.uuid = ? AND e.uuid = ?`,
      [nowMs - 200_000, IDS.group, IDS.a],
    );
    // A finish before it would cut it out of them; a finish after it cuts nothing settled.
    const before = await snapshot(db.pool);
    expect(
      await refusal(client.recordFinish({ ...group, entryId: IDS.a, finishTimeUtc: timestamp(nowMs - 300_000) }, { headers: writer })),
    ).toEqual(paramInvalid("finishTimeUtc"));
    expect(await snapshot(db.pool)).toEqual(before);
    expect(
      (await client.recordFinish({ ...group, entryId: IDS.a, finishTimeUtc: timestamp(nowMs - 150_000) }, { headers: writer })).duplicate,
    ).toBe(false);
  });

  it("waits for a batch that wrote into the range it would cut, and refuses once that batch commits", async () => {
    const nowMs = Date.now();
    const finishMs = nowMs - 400_000;
    const fixMs = nowMs - 350_000;
    const [[ids]] = await db.pool.query<RowDataPacket[]>(
      "SELECT g.id AS g, e.id AS e FROM start_groups g, entries e WHERE g.uuid = ? AND e.uuid = ?",
      [IDS.group, IDS.b],
    );
    const [[stored]] = await db.pool.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM fixes WHERE start_group_id = ? AND entry_id = ? AND t > ?",
      [ids!.g, ids!.e, finishMs],
    );
    expect(Number(stored!.n)).toBe(0); // nothing committed would refuse the finish on its own
    const batch = await db.pool.getConnection();
    try {
      // A batch's fix after the finish, not committed yet: the finish's read of the range waits for it.
      await batch.beginTransaction();
      await batch.query("INSERT INTO fixes (start_group_id, entry_id, t, lat, lon) VALUES (?, ?, ?, 50.7, -1.3)", [ids!.g, ids!.e, fixMs]);
      let answered = false;
      const finish = refusal(client.recordFinish({ ...group, entryId: IDS.b, finishTimeUtc: timestamp(finishMs) }, { headers: writer }));
      void finish.finally(() => (answered = true));
      // Until the finish reads the range (or, were it not to wait, has answered).
      while (!answered && !(await statementRunning("SELECT 1 FROM fixes%"))) await new Promise((resolve) => setTimeout(resolve, 20));
      await batch.commit();
      expect(await finish).toEqual(paramInvalid("finishTimeUtc"));
    } finally {
      await batch.rollback().catch(() => {});
      batch.release();
    }
  });

  it("refuses an entry outside the group, and a finish in the future", async () => {
    expect(
      await refusal(
        client.recordFinish({ ...group, entryId: IDS.outsider, finishTimeUtc: timestamp(Date.now() - 1000) }, { headers: writer }),
      ),
    ).toEqual(paramInvalid("entryId"));
    expect(
      await refusal(client.recordFinish({ ...group, entryId: IDS.a, finishTimeUtc: timestamp(Date.now() + 60_000) }, { headers: writer })),
    ).toEqual(paramInvalid("finishTimeUtc"));
  });
});

describe("UpdateStartGroup", () => {
  it("changes what it is given, answers changed: false for a retry, and is served", async () => {
    const finishMs = Math.floor(Date.now() / 1000) * 1000;
    const request = { raceId: IDS.race, startGroupId: IDS.later, state: StartGroupState.POSTPONED, finishTimeUtc: timestamp(finishMs) };
    expect((await client.updateStartGroup(request, { headers: writer })).changed).toBe(true);
    expect((await client.updateStartGroup(request, { headers: writer })).changed).toBe(false);
    const [[row]] = await db.pool.query<RowDataPacket[]>("SELECT state, finish_time FROM start_groups WHERE uuid = ?", [IDS.later]);
    expect([row!.state, (row!.finish_time as Date).getTime()]).toEqual(["Postponed", finishMs]);
    expect(
      (await client.updateStartGroup({ raceId: IDS.race, startGroupId: IDS.later, clearFinishTime: true }, { headers: writer })).changed,
    ).toBe(true);
  });

  it("moves a gun whose capture window has nothing settled, and refuses to move or clear one that has", async () => {
    // Fleet C's gun is 10 minutes ahead: nothing of its window is settled.
    const later = GUN + 25 * 60_000;
    expect(
      (await client.updateStartGroup({ raceId: IDS.race, startGroupId: IDS.later, startTimeUtc: timestamp(later) }, { headers: writer }))
        .changed,
    ).toBe(true);
    // Fleet A's window opened 15 minutes ago: windows of it may be served as immutable.
    expect(await refusal(client.updateStartGroup({ ...group, startTimeUtc: timestamp(GUN + 60_000) }, { headers: writer }))).toEqual(
      paramInvalid("startTimeUtc"),
    );
    expect(await refusal(client.updateStartGroup({ ...group, clearStartTime: true }, { headers: writer }))).toEqual(
      paramInvalid("startTimeUtc"),
    );
    // The same gun again is no move.
    expect(
      (await client.updateStartGroup({ ...group, startTimeUtc: timestamp(GUN), state: StartGroupState.STARTED }, { headers: writer }))
        .changed,
    ).toBe(false);
  });

  it.each([
    ["a gun and clearing it", { startTimeUtc: timestamp(GUN), clearStartTime: true }, "startTimeUtc"],
    ["a finish and clearing it", { finishTimeUtc: timestamp(GUN), clearFinishTime: true }, "finishTimeUtc"],
    ["an unknown state", { state: 42 as StartGroupState }, "state"],
  ])("refuses %s", async (_, change, name) => {
    expect(await refusal(client.updateStartGroup({ raceId: IDS.race, startGroupId: IDS.later, ...change }, { headers: writer }))).toEqual(
      paramInvalid(name),
    );
  });
});

describe("SetCourse", () => {
  const steps = [
    {
      kind: CourseStepKind.START,
      marks: [
        { key: "pin", lat: 50.69, lon: -1.31 },
        { key: "boat", lat: 50.69, lon: -1.29 },
      ],
    },
    {
      kind: CourseStepKind.GATE,
      label: "Leeward gate",
      marks: [
        { key: "L1", lat: 50.68, lon: -1.31 },
        { key: "L2", lat: 50.68, lon: -1.3 },
      ],
    },
    {
      kind: CourseStepKind.FINISH,
      marks: [
        { key: "f1", lat: 50.69, lon: -1.31 },
        { key: "f2", lat: 50.69, lon: -1.29 },
      ],
    },
  ];

  it("records a version once; the same again is a duplicate, another content a conflict", async () => {
    const request = { ...group, version: 7, appliedFromUtc: timestamp(GUN), steps };
    expect((await client.setCourse(request, { headers: writer })).duplicate).toBe(false);
    expect((await client.setCourse(request, { headers: writer })).duplicate).toBe(true);
    expect(await refusal(client.setCourse({ ...request, steps: steps.slice(0, 2) }, { headers: writer }))).toEqual(conflict("version"));
    expect(await refusal(client.setCourse({ ...request, appliedFromUtc: timestamp(GUN + 1000) }, { headers: writer }))).toEqual(
      conflict("version"),
    );
    const body = await freshLive<{ startGroups: Array<{ startGroupId: string; courseVersion: number }> }>();
    expect(body.startGroups.find((g) => g.startGroupId === IDS.group)?.courseVersion).toBe(7);
  });

  it.each([
    ["version 0", { version: 0 }, "version"],
    ["no steps", { steps: [] }, "steps"],
    ["a mark step with two marks", { steps: [{ kind: CourseStepKind.MARK, marks: steps[0]!.marks }] }, "steps[0].marks"],
    ["a step of no kind", { steps: [{ kind: CourseStepKind.UNSPECIFIED, marks: [] }] }, "steps[0].kind"],
    ["a step of an unknown kind", { steps: [steps[0]!, { kind: 42 as CourseStepKind, marks: [] }] }, "steps[1].kind"],
    ["a latitude of 91", { steps: [{ kind: CourseStepKind.MARK, marks: [{ key: "W", lat: 91, lon: 0 }] }] }, "steps[0].marks[0].lat"],
    ["an empty mark key", { steps: [{ kind: CourseStepKind.MARK, marks: [{ key: "", lat: 1, lon: 0 }] }] }, "steps[0].marks[0].key"],
  ])("refuses %s", async (_, change, name) => {
    expect(
      await refusal(client.setCourse({ ...group, version: 9, appliedFromUtc: timestamp(GUN), steps, ...change }, { headers: writer })),
    ).toEqual(paramInvalid(name));
  });
});

describe("UpdateRace and UpdateEvent", () => {
  it("switch the broadcast flag and the event's settings, as the public endpoints then show", async () => {
    expect((await client.updateRace({ raceId: IDS.race, isLive: false }, { headers: writer })).changed).toBe(true);
    expect((await client.updateRace({ raceId: IDS.race, isLive: false }, { headers: writer })).changed).toBe(false);
    expect((await client.updateRace({ raceId: IDS.race }, { headers: writer })).changed).toBe(false);
    expect((await client.updateEvent({ eventId: IDS.event, trackingShared: false }, { headers: writer })).changed).toBe(true);
    // The readers' race cache holds 2 s.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const hidden = await fetch(`${api.url}/api/v1/races/${IDS.race}/live`, { headers: reader });
    expect(((await hidden.json()) as { code: string }).code).toBe("TRACKING_NOT_SHARED");
    await client.updateEvent({ eventId: IDS.event, trackingShared: true }, { headers: writer });
    await client.updateRace({ raceId: IDS.race, isLive: true }, { headers: writer });
  });

  it("may publish the club's unpublished event, which reads do not see", async () => {
    expect((await client.updateEvent({ eventId: IDS.event, published: false }, { headers: writer })).changed).toBe(true);
    expect((await client.updateEvent({ eventId: IDS.event, published: true }, { headers: writer })).changed).toBe(true);
  });

  it.each([
    ["another club's event", IDS.otherEvent],
    ["an unknown event", uuid("e4000000", 99)],
    ["a malformed id", "event-1"],
  ])("answers %s EVENT_NOT_FOUND", async (_, eventId) => {
    expect(await refusal(client.updateEvent({ eventId, published: true }, { headers: writer }))).toMatchObject({
      code: "NotFound",
      reason: "EVENT_NOT_FOUND",
    });
  });

  it("answers a co-host's writer EVENT_NOT_FOUND and RACE_NOT_FOUND", async () => {
    const coHost = bearer(await tokenFor(api.url, "coHostWriter"));
    expect(await refusal(client.updateEvent({ eventId: IDS.event, published: false }, { headers: coHost }))).toMatchObject({
      reason: "EVENT_NOT_FOUND",
    });
    expect(await refusal(client.updateRace({ raceId: IDS.race, isLive: false }, { headers: coHost }))).toMatchObject({
      reason: "RACE_NOT_FOUND",
    });
  });

  it.each([-1, 601])("refuses a delay of %i", async (delaySeconds) => {
    expect(await refusal(client.updateEvent({ eventId: IDS.event, delaySeconds }, { headers: writer }))).toEqual(
      paramInvalid("delaySeconds"),
    );
  });
});

describe("PublishResults", () => {
  it("replaces the group's results whole, and the results endpoint serves them", async () => {
    const publishedAtUtc = timestamp(Math.floor(Date.now() / 1000) * 1000 - 1000);
    const rows = [
      { entryId: IDS.b, rank: 1, status: "OK", elapsedSeconds: 3600, points: 1 },
      { entryId: IDS.a, status: "DNF", points: 3 },
    ];
    expect(
      (await client.publishResults({ ...group, status: IngestResultStatus.PROVISIONAL, publishedAtUtc, rows }, { headers: writer }))
        .changed,
    ).toBe(true);
    expect(
      (await client.publishResults({ ...group, status: IngestResultStatus.PROVISIONAL, publishedAtUtc, rows }, { headers: writer }))
        .changed,
    ).toBe(false);
    expect(
      (
        await client.publishResults(
          { ...group, status: IngestResultStatus.FINAL, publishedAtUtc, rows: rows.slice(0, 1) },
          { headers: writer },
        )
      ).changed,
    ).toBe(true);
    const results = await fetch(`${api.url}/api/v1/races/${IDS.race}/results`, { headers: reader });
    const text = await results.text();
    expect(results.status, text).toBe(200);
    expect(text).toContain('"status":"final"');
    expect(text).not.toContain("DNF");
  });

  it.each([
    ["no status", { status: IngestResultStatus.UNSPECIFIED }, "status"],
    ["a lower-case scoring code", { rows: [{ entryId: IDS.a, status: "dnf" }] }, "rows[0].status"],
    ["an entry outside the group", { rows: [{ entryId: IDS.outsider, status: "OK" }] }, "rows[0].entryId"],
    ["infinite points", { rows: [{ entryId: IDS.a, status: "OK", points: Infinity }] }, "rows[0].points"],
  ])("refuses %s", async (_, change, name) => {
    const request = { ...group, status: IngestResultStatus.FINAL, publishedAtUtc: timestamp(Date.now() - 1000), rows: [], ...change };
    expect(await refusal(client.publishResults(request, { headers: writer }))).toEqual(paramInvalid(name));
  });
});

describe("ApplyScenario", () => {
  const newEvent = (extra: Record<string, unknown> = {}) => ({
    id: uuid("e6000000", 1),
    clubId: CLUB,
    name: "Winter Series",
    startDate: "2026-12-01T10:00:00Z",
    trackingShared: true,
    entries: [entry(uuid("d6000000", 1), "GBR 61", "Delta")],
    races: [
      {
        id: uuid("a6000000", 1),
        raceNo: 1,
        name: "Race 1",
        isLive: false,
        startGroups: [{ id: uuid("b6000000", 1), name: "Fleet", state: "Scheduled", startTimeUtc: null, entryIds: [uuid("d6000000", 1)] }],
      },
    ],
    ...extra,
  });
  const apply = (events: unknown[], headers = writer) =>
    client.applyScenario({ events: fromJson(ListValueSchema, events as never) }, { headers });

  it("holds a shortened delay's settled edge for readers, from before the import until DELAY_HOLD_MS after it", async () => {
    const eventId = uuid("e6000000", 7);
    const event = (delaySeconds: number) => newEvent({ id: eventId, delaySeconds, entries: [], races: [] });
    await apply([event(300)]);
    const appliedAt = Date.now();
    await apply([event(60)]);
    const [[hold]] = await db.pool.query<RowDataPacket[]>(
      "SELECT h.delay_seconds, h.until_ms FROM event_delay_holds h JOIN events e ON e.id = h.event_id WHERE e.uuid = ?",
      [eventId],
    );
    expect(hold!.delay_seconds).toBe(300);
    expect(Number(hold!.until_ms)).toBeGreaterThanOrEqual(appliedAt + DELAY_HOLD_MS);
  });

  it("sets up the club's own event as `race-api import` would, idempotently", async () => {
    const answer = await apply([newEvent()]);
    expect({ events: answer.events, entries: answer.entries, races: answer.races, startGroups: answer.startGroups }).toEqual({
      events: 1,
      entries: 1,
      races: 1,
      startGroups: 1,
    });
    const before = await snapshot(db.pool);
    await apply([newEvent()]);
    expect(await snapshot(db.pool)).toEqual(before);
    // Then it can be fed.
    const fed = await client.appendFixes(
      { raceId: uuid("a6000000", 1), startGroupId: uuid("b6000000", 1), boats: [boatFixes(uuid("d6000000", 1), Date.now() - 5000, 1)] },
      { headers: writer },
    );
    expect(fed.accepted).toBe(1);
  });

  it.each([
    ["an event of another club", () => [newEvent({ clubId: OTHER_CLUB })], "$.events[0].clubId"],
    ["another club's event id", () => [newEvent({ id: IDS.otherEvent })], "$.events[0].id"],
    ["another club's race id", () => [newEvent({ races: [{ ...newEvent().races[0]!, id: IDS.otherRace }] })], "$.events[0].races[0].id"],
    ["another club's entry id", () => [newEvent({ entries: [entry(IDS.otherEntry, "X 1", "X")], races: [] })], "$.events[0].entries[0].id"],
    [
      "tracks",
      () => [
        newEvent({
          races: [
            {
              ...newEvent().races[0]!,
              startGroups: [
                { ...newEvent().races[0]!.startGroups[0]!, tracks: [{ entryId: uuid("d6000000", 1), t: [1], lat: [1], lon: [1] }] },
              ],
            },
          ],
        }),
      ],
      "$.events[0].races[0].startGroups[0].tracks",
    ],
    ["a file the schema refuses", () => [{ ...newEvent(), name: "" }], "$.events[0].name"],
    [
      "an unknown entry in a start group",
      () => [
        newEvent({
          races: [{ ...newEvent().races[0]!, startGroups: [{ ...newEvent().races[0]!.startGroups[0]!, entryIds: [uuid("d6000000", 9)] }] }],
        }),
      ],
      "$.events[0].races[0].startGroups[0].entryIds[0]",
    ],
  ])("refuses %s, naming the path, writing nothing", async (_, events, name) => {
    const before = await snapshot(db.pool);
    expect(await refusal(apply(events()))).toEqual(paramInvalid(name));
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it("refuses to move a gun whose capture window has settled windows", async () => {
    const scenario = ingestScenario();
    const event = scenario.events[0]!;
    const moved = {
      ...event,
      coHostClubIds: undefined,
      races: [
        { ...event.races[0]!, startGroups: [{ ...event.races[0]!.startGroups[0]!, startTimeUtc: new Date(GUN + 60_000).toISOString() }] },
      ],
    };
    expect(await refusal(apply([JSON.parse(JSON.stringify(moved))]))).toEqual(
      paramInvalid("$.events[0].races[0].startGroups[0].startTimeUtc"),
    );
  });

  it("needs a request with events", async () => {
    expect(await refusal(client.applyScenario({}, { headers: writer }))).toEqual(paramInvalid("events"));
  });
});

/** Whether a statement of this database's connections like `pattern` is running (the process list shows a user's own). */
async function statementRunning(pattern: string): Promise<boolean> {
  const [[row]] = await db.pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE ?",
    [pattern],
  );
  return Number(row!.n) > 0;
}
