// What a settled track window keeps (domain/settled-window.ts), on every write path:
// a window served as immutable answers the same bytes on every instance, before and
// after any write; ApplyScenario refuses what would change it, naming the field, and
// `race-api import` does too unless told --override-settled. Two instances on one
// database: the one that served the window keeps its copy, the other reads it afresh.

import { fromJson } from "@bufbuild/protobuf";
import { ListValueSchema } from "@bufbuild/protobuf/wkt";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StartGroupState } from "../../gen/racing/v1/common_pb.js";
import { CourseStepKind, FixRejectionReason, IngestResultStatus } from "../../gen/racing/v1/ingest_pb.js";
import type { Event, Scenario, Track } from "../../src/domain/scenario.js";
import { importScenario } from "../../src/scenario/import.js";
import { bearer, CLUB, secretOf, startApi, tokenFor, type Api } from "../support/api.js";
import { raceApi } from "../support/cli.js";
import { useFreshDatabase } from "../support/database.js";
import { ingestClient, paramInvalid, refusal } from "../support/ingest-scenarios.js";
import { entry, iso, MINUTE, sharedEvent, uuid } from "../support/race-scenarios.js";
import { snapshot } from "../support/snapshot.js";

const db = useFreshDatabase();
/** Forty minutes ago: the first ten minutes of the race are long settled (the edge is now - 2 min). */
const GUN = Math.floor(Date.now() / 1000) * 1000 - 40 * MINUTE;
const IDS = {
  event: uuid("e8000000", 1),
  race: uuid("a8000000", 1),
  race2: uuid("a8000000", 2),
  group: uuid("b8000000", 1),
  /** Shown, with settled points. */
  a: uuid("d8000000", 1),
  b: uuid("d8000000", 2),
  /** Shown, no points. */
  c: uuid("d8000000", 3),
  /** Not approved, with points: hidden from every window. */
  hidden: uuid("d8000000", 4),
  /** Finished at gun + 4 min, its phone recording on to gun + 5 min. */
  d: uuid("d8000000", 5),
};
const D_FINISH = GUN + 4 * MINUTE;
const WINDOW = `/api/v1/races/${IDS.race}/track?since=${iso(GUN)}&until=${iso(GUN + 10 * MINUTE)}`;

function track(entryId: string, lat: number): Track {
  const t = Array.from({ length: 300 }, (_, i) => GUN + i * 1000);
  return { entryId, t, lat: t.map((_, i) => lat + i * 1e-5), lon: t.map(() => -1.3) };
}

/** The event as ApplyScenario takes it (no tracks), with `change` applied. */
function event(change: (e: Event) => void = () => {}): Event {
  const e = sharedEvent(IDS.event, CLUB, {
    entries: [
      entry(IDS.a, "GBR 1", "Alpha"),
      entry(IDS.b, "GBR 2", "Bravo"),
      entry(IDS.c, "GBR 3", "Charlie"),
      entry(IDS.hidden, "GBR 4", "Hidden", { approved: false }),
      entry(IDS.d, "GBR 5", "Delta"),
    ],
    races: [
      {
        id: IDS.race,
        raceNo: 1,
        name: "Race 1",
        isLive: true,
        startGroups: [
          {
            id: IDS.group,
            name: "Fleet",
            state: "Started",
            startTimeUtc: iso(GUN),
            entryIds: [IDS.a, IDS.b, IDS.c, IDS.hidden, IDS.d],
            finishes: [{ entryId: IDS.d, finishTimeUtc: iso(D_FINISH) }],
          },
        ],
      },
      { id: IDS.race2, raceNo: 2, name: "Race 2", isLive: false, startGroups: [] },
    ],
  });
  change(e);
  return JSON.parse(JSON.stringify(e)) as Event;
}

function scenario(): Scenario {
  const e = event();
  e.races[0]!.startGroups[0]!.tracks = [track(IDS.a, 50.1), track(IDS.b, 50.2), track(IDS.hidden, 50.3), track(IDS.d, 50.4)];
  return {
    format: "race-scenario/v1",
    clubs: [{ id: CLUB, name: "Main Club" }],
    clients: [
      { clientId: "writer", clientSecret: secretOf("writer"), clubId: CLUB, scopes: ["tracking:write"] },
      { clientId: "reader", clientSecret: secretOf("reader"), clubId: CLUB, scopes: ["tracking:read"] },
    ],
    events: [e],
  };
}

let serving: Api;
let reader: Record<string, string>;
let writer: Record<string, string>;
let client: ReturnType<typeof ingestClient>;

beforeAll(async () => {
  await importScenario(db.pool, scenario());
  serving = await startApi(db);
  reader = bearer(await tokenFor(serving.url, "reader"));
  writer = bearer(await tokenFor(serving.url, "writer"));
  client = ingestClient(serving.runtime);
});
afterAll(() => serving?.close());

interface Page {
  etag: string | null;
  cacheControl: string | null;
  body: { delaySeconds: number; nextSince: string | null; boats: { entryId: string; sailNumber: string; boatName: string; t: number[] }[] };
}

async function read(api: Api): Promise<Page> {
  const response = await fetch(`${api.url}${WINDOW}`, { headers: reader });
  expect(response.status).toBe(200);
  return {
    etag: response.headers.get("etag"),
    cacheControl: response.headers.get("cache-control"),
    body: (await response.json()) as Page["body"],
  };
}

/** The window as an instance started now reads it from the database (a restarted or another instance). */
async function readFresh(): Promise<Page> {
  const other = await startApi(db);
  try {
    return await read(other);
  } finally {
    await other.close();
  }
}

const apply = (e: Event) => client.applyScenario({ events: fromJson(ListValueSchema, [e] as never) }, { headers: writer });
let served: Page;

describe("a settled window", () => {
  it("is served as immutable with the shown boats, the finished one cut at its finish", async () => {
    served = await read(serving);
    expect(served.cacheControl).toBe("private, max-age=3600, immutable");
    expect(served.body.boats.map((b) => [b.sailNumber, b.boatName, b.t.length, b.t.at(-1)])).toEqual([
      ["GBR 1", "Alpha", 300, GUN + 299_000],
      ["GBR 2", "Bravo", 300, GUN + 299_000],
      ["GBR 5", "Delta", 241, D_FINISH],
    ]);
  });

  it("keeps its bytes on every instance when ApplyScenario renames one boat and unapproves another: refused, naming the field", async () => {
    const before = await snapshot(db.pool);
    const changed = event((e) => {
      e.entries[0]!.boatName = "Alpha II";
      e.entries[1]!.approved = false;
    });
    expect(await refusal(apply(changed))).toEqual(paramInvalid("$.events[0].entries[0].boatName"));
    expect(await snapshot(db.pool)).toEqual(before);
    const fresh = await readFresh();
    expect(fresh.etag).toBe(served.etag);
    expect(fresh.body).toEqual(served.body);
    expect((await read(serving)).etag).toBe(served.etag);
  });

  it.each([
    ["a sail number", (e: Event) => void (e.entries[0]!.sailNumber = "GBR 11"), "$.events[0].entries[0].sailNumber"],
    ["a boat name", (e: Event) => void (e.entries[1]!.boatName = "Bravo II"), "$.events[0].entries[1].boatName"],
    ["an approval withdrawn", (e: Event) => void (e.entries[1]!.approved = false), "$.events[0].entries[1].approved"],
    ["a phone removed", (e: Event) => void (e.entries[1]!.hasPhone = false), "$.events[0].entries[1].hasPhone"],
    [
      "a boat taken out of the group",
      (e: Event) => void (e.races[0]!.startGroups[0]!.entryIds = [IDS.a, IDS.c, IDS.hidden, IDS.d]),
      "$.events[0].races[0].startGroups[0].entryIds",
    ],
    ["a hidden boat with points approved", (e: Event) => void (e.entries[3]!.approved = true), "$.events[0].entries[3].approved"],
    [
      "a finish that cuts settled points",
      (e: Event) => void e.races[0]!.startGroups[0]!.finishes!.push({ entryId: IDS.a, finishTimeUtc: iso(GUN + 2 * MINUTE) }),
      "$.events[0].races[0].startGroups[0].finishes[1].finishTimeUtc",
    ],
    [
      "an earlier finish of a finished boat",
      (e: Event) => void e.races[0]!.startGroups[0]!.finishes!.push({ entryId: IDS.d, finishTimeUtc: iso(D_FINISH - 1000) }),
      "$.events[0].races[0].startGroups[0].finishes[1].finishTimeUtc",
    ],
    [
      "a moved gun",
      (e: Event) => void (e.races[0]!.startGroups[0]!.startTimeUtc = iso(GUN + MINUTE)),
      "$.events[0].races[0].startGroups[0].startTimeUtc",
    ],
    [
      "the group moved to another race",
      (e: Event) => void e.races[1]!.startGroups.push(e.races[0]!.startGroups.pop()!),
      "$.events[0].races[1].startGroups[0].id",
    ],
  ])("is kept when ApplyScenario would change %s: refused, nothing written", async (_, change, name) => {
    const before = await snapshot(db.pool);
    expect(await refusal(apply(event(change)))).toEqual(paramInvalid(name));
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it("lets ApplyScenario change what no settled window shows, and re-apply the same event", async () => {
    await apply(event());
    await apply(
      event((e) => {
        // Charlie has no points, the hidden boat stays hidden, Delta's finish again is no change, Alpha finishes after the edge.
        e.entries[2]!.boatName = "Charlie II";
        e.entries[3]!.boatName = "Hidden II";
        e.entries.push(entry(uuid("d8000000", 6), "GBR 6", "Echo"));
        e.races[0]!.startGroups[0]!.entryIds = [IDS.a, IDS.b, IDS.hidden, IDS.d, uuid("d8000000", 6)];
        e.races[0]!.startGroups[0]!.finishes!.push({ entryId: IDS.a, finishTimeUtc: iso(Date.now() - 30_000) });
      }),
    );
    expect((await readFresh()).etag).toBe(served.etag);
  });
});

describe("the other write paths", () => {
  const group = { raceId: IDS.race, startGroupId: IDS.group };
  const timestamp = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });

  it("write nothing a settled window shows: after each, an instance reading afresh serves the same bytes", async () => {
    const options = { headers: writer };
    const late = await client.appendFixes(
      { ...group, boats: [{ entryId: IDS.b, t: [BigInt(GUN + 400_000)], lat: [50.9], lon: [-1.3] }] },
      options,
    );
    expect(late.rejected.map((r) => r.reason)).toEqual([FixRejectionReason.WINDOW_SETTLED]);
    await client.recordWind({ ...group, measuredAtUtc: timestamp(Date.now() - 1000), twd: 200, tws: 12 }, options);
    await client.recordLiveOrder({ ...group, asOfUtc: timestamp(Date.now() - 1000), rows: [{ entryId: IDS.a, rank: 1 }] }, options);
    await client.setCourse(
      {
        ...group,
        version: 1,
        appliedFromUtc: timestamp(GUN - MINUTE),
        steps: [{ kind: CourseStepKind.MARK, label: "Windward", marks: [{ key: "w", lat: 50.2, lon: -1.3 }] }],
      },
      options,
    );
    await client.updateRace({ raceId: IDS.race, isLive: false }, options);
    await client.updateStartGroup({ ...group, state: StartGroupState.FINISHED, finishTimeUtc: timestamp(Date.now() - 1000) }, options);
    await client.recordFinish({ ...group, entryId: IDS.b, finishTimeUtc: timestamp(Date.now() - 5000) }, options);
    await client.publishResults(
      {
        ...group,
        status: IngestResultStatus.PROVISIONAL,
        publishedAtUtc: timestamp(Date.now() - 1000),
        rows: [{ entryId: IDS.a, rank: 1, status: "OK" }],
      },
      options,
    );
    expect((await readFresh()).etag).toBe(served.etag);
    expect((await read(serving)).etag).toBe(served.etag);
  });

  it("refuse a finish that cuts settled points, and take one already stored again although the phone kept recording", async () => {
    const before = await snapshot(db.pool);
    expect(
      await refusal(client.recordFinish({ ...group, entryId: IDS.d, finishTimeUtc: timestamp(D_FINISH - 1000) }, { headers: writer })),
    ).toEqual(paramInvalid("finishTimeUtc"));
    expect(await snapshot(db.pool)).toEqual(before);
    const again = await client.recordFinish({ ...group, entryId: IDS.d, finishTimeUtc: timestamp(D_FINISH) }, { headers: writer });
    expect(again.duplicate).toBe(true);
  });

  it("withdraw sharing (the window is not found, on the serving instance too) and restore it as it was", async () => {
    await client.updateEvent({ eventId: IDS.event, trackingShared: false }, { headers: writer });
    await new Promise((resolve) => setTimeout(resolve, 2100)); // races are re-read every 2 s
    expect((await fetch(`${serving.url}${WINDOW}`, { headers: reader })).status).toBe(404);
    await client.updateEvent({ eventId: IDS.event, trackingShared: true }, { headers: writer });
    expect((await readFresh()).etag).toBe(served.etag);
  });

  it("change only the delay a settled window reports when the event's delay changes: its boats and points stay", async () => {
    await client.updateEvent({ eventId: IDS.event, delaySeconds: 120 }, { headers: writer });
    const fresh = await readFresh();
    expect(fresh.cacheControl).toBe("private, max-age=3600, immutable");
    expect(fresh.body).toEqual({ ...served.body, delaySeconds: 120 });
  });
});

describe("race-api import", () => {
  const file = (name: string, content: Scenario) => {
    const path = join(mkdtempSync(join(tmpdir(), "settled-")), name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  const renamed = () => {
    const s = scenario();
    s.events[0]!.entries[0]!.boatName = "Alpha II";
    s.events[0]!.delaySeconds = 300;
    return s;
  };

  it("refuses a file that changes a settled window, naming the path, unless told --override-settled", async () => {
    const before = await snapshot(db.pool);
    const refused = await raceApi(["import", file("renamed.json", renamed())], { DATABASE_URL: db.url });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("$.events[0].entries[0].boatName: would change track windows");
    expect(refused.stderr).toContain("--override-settled");
    expect(await snapshot(db.pool)).toEqual(before);

    const importedAfter = Date.now();
    const overridden = await raceApi(["import", "--override-settled", file("renamed.json", renamed())], { DATABASE_URL: db.url });
    expect(overridden.code, overridden.stderr).toBe(0);
    expect(overridden.stderr).toContain("warning: $.events[0].entries[0].boatName changed track windows");
    expect((await readFresh()).body.boats[0]!.boatName).toBe("Alpha II");
    // The delay raised from 120 s to 300 s keeps the edge the shorter one had reached.
    const [[floor]] = await db.pool.query<RowDataPacket[]>(
      "SELECT f.settled_before_ms FROM event_settled_floors f JOIN events e ON e.id = f.event_id WHERE e.uuid = ?",
      [IDS.event],
    );
    expect(Number(floor!.settled_before_ms)).toBeGreaterThanOrEqual(importedAfter - 120_000 - 2 * MINUTE);
  });
});
