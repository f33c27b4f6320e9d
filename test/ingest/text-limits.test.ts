// The IngestService writes that carry text take each text at its column's limit (in
// characters: an emoji counts one) and refuse one character more as API_PARAM_INVALID
// naming the field, never as a database error: ApplyScenario for every text of an
// event, SetCourse, AppendFixes' device data and PublishResults' status.

import { fromJson } from "@bufbuild/protobuf";
import { ListValueSchema } from "@bufbuild/protobuf/wkt";
import type { RowDataPacket } from "mysql2/promise";
import { beforeAll, afterAll, describe, expect, it } from "vitest";
import { CourseStepKind, IngestResultStatus } from "../../gen/racing/v1/ingest_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import { TEXT_LIMITS, type TextField } from "../../src/scenario/text-limits.js";
import { bearer, CLUB, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { boatFixes, INGEST_IDS as IDS, ingestClient, ingestScenario, paramInvalid, refusal } from "../support/ingest-scenarios.js";
import { copy, smallScenario } from "../support/scenarios.js";
import { snapshot } from "../support/snapshot.js";
import { atLimit, PLACES, pastLimit } from "../support/text-limits.js";

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

const group = { raceId: IDS.race, startGroupId: IDS.group };
const timestamp = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });

describe("ApplyScenario", () => {
  /** smallScenario's event as the club's own, without tracks (ApplyScenario takes none). */
  function eventOfTheClub() {
    const scenario = copy(smallScenario());
    const event = scenario.events[0]!;
    event.clubId = CLUB;
    event.coHostClubIds = [];
    delete event.races[0]!.startGroups[0]!.tracks;
    return { ...scenario, clubs: [], clients: [], events: [event] };
  }
  const apply = (events: unknown[]) => client.applyScenario({ events: fromJson(ListValueSchema, events as never) }, { headers: writer });
  const eventFields = (Object.keys(PLACES) as TextField[]).filter((field) => PLACES[field].path.startsWith("$.events"));

  it.each(eventFields)("takes %s at its limit and refuses one character more naming its path", async (field) => {
    const { path, set } = PLACES[field];
    const atMost = eventOfTheClub();
    set(atMost, atLimit(field));
    await apply(atMost.events);
    const [table, column] = TEXT_LIMITS[field].column.split(".");
    const [stored] = await db.pool.query<RowDataPacket[]>(`SELECT ${column} AS value FROM ${table}`);
    expect(stored.map((row) => row.value)).toContain(atLimit(field));

    const tooLong = eventOfTheClub();
    set(tooLong, pastLimit(field));
    const before = await snapshot(db.pool);
    expect(await refusal(apply(tooLong.events))).toEqual(paramInvalid(path));
    expect(await snapshot(db.pool)).toEqual(before);
  });
});

describe("SetCourse", () => {
  const course = (version: number, label: string, key: string) => ({
    ...group,
    version,
    appliedFromUtc: timestamp(Date.now() - 60_000),
    steps: [{ kind: CourseStepKind.MARK, label, marks: [{ key, lat: 50.7, lon: -1.3 }] }],
  });

  it("takes a label and a mark key at their limits", async () => {
    const answer = await client.setCourse(course(20, atLimit("stepLabel"), atLimit("markKey")), { headers: writer });
    expect(answer.duplicate).toBe(false);
  });

  it.each([
    ["label", course(21, pastLimit("stepLabel"), "W"), "steps[0].label"],
    ["mark key", course(21, "Windward", pastLimit("markKey")), "steps[0].marks[0].key"],
  ])("refuses a %s one character past its limit naming it", async (_, request, name) => {
    expect(await refusal(client.setCourse(request, { headers: writer }))).toEqual(paramInvalid(name));
  });
});

describe("AppendFixes", () => {
  const from = () => Math.floor(Date.now() / 1000) * 1000 - 30_000;

  it("takes device data at its limits", async () => {
    const boat = { ...boatFixes(IDS.a, from(), 1), deviceId: atLimit("deviceId"), phoneModel: atLimit("phoneModel") };
    expect((await client.appendFixes({ ...group, boats: [boat] }, { headers: writer })).accepted).toBe(1);
  });

  it.each([
    ["deviceId", { deviceId: pastLimit("deviceId") }],
    ["phoneModel", { phoneModel: pastLimit("phoneModel") }],
  ])("refuses a %s one character past its limit naming it", async (name, device) => {
    const boat = { ...boatFixes(IDS.b, from(), 1), ...device };
    expect(await refusal(client.appendFixes({ ...group, boats: [boat] }, { headers: writer }))).toEqual(paramInvalid(`boats[0].${name}`));
  });
});

describe("PublishResults", () => {
  const results = (status: string) => ({
    ...group,
    status: IngestResultStatus.PROVISIONAL,
    publishedAtUtc: timestamp(Date.now() - 1000),
    rows: [{ entryId: IDS.a, rank: 1, status }],
  });
  const limit = TEXT_LIMITS.resultStatus.maxLength;

  it("takes a scoring code at its limit and refuses one letter more naming it", async () => {
    expect((await client.publishResults(results("D".repeat(limit)), { headers: writer })).changed).toBe(true);
    expect(await refusal(client.publishResults(results("D".repeat(limit + 1)), { headers: writer }))).toEqual(
      paramInvalid("rows[0].status"),
    );
  });
});
