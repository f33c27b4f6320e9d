// Ingested data is served exactly as imported data: a fix acknowledged at T is in the
// live answer from the first shared read after T + delaySeconds (not before), a course,
// wind and fixes sent through IngestService make the next insights generation's facts,
// and a late fix never changes a track window already served as immutable.

import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixRejectionReason } from "../../gen/racing/v1/ingest_pb.js";
import { CourseStepKind } from "../../gen/racing/v1/ingest_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import { bearer, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { boatFixes, GUN, INGEST_IDS as IDS, ingestClient, ingestScenario } from "../support/ingest-scenarios.js";

const DELAY_SECONDS = 3;
const db = useFreshDatabase();
let api: Api;
let writer: Record<string, string>;
let reader: Record<string, string>;
let client: ReturnType<typeof ingestClient>;

beforeAll(async () => {
  await importScenario(db.pool, ingestScenario(DELAY_SECONDS));
  api = await startApi(db);
  writer = bearer(await tokenFor(api.url, "writer"));
  reader = bearer(await tokenFor(api.url, "reader"));
  client = ingestClient(api.runtime);
});
afterAll(() => api?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const timestamp = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });

interface LiveJson {
  dataAsOf: string;
  startGroups: Array<{
    startGroupId: string;
    boats: Array<{ entryId: string; fixTimeUtc: string; sogKn: number | null }>;
    wind: { twd: number } | null;
  }>;
}

async function live(): Promise<LiveJson> {
  const response = await fetch(`${api.url}/api/v1/races/${IDS.race}/live`, { headers: reader });
  expect(response.status).toBe(200);
  return (await response.json()) as LiveJson;
}

const fixTimeOf = (body: LiveJson, entryId: string) =>
  body.startGroups.find((g) => g.startGroupId === IDS.group)?.boats.find((b) => b.entryId === entryId)?.fixTimeUtc;

describe("the live answer", () => {
  it("holds an acknowledged fix from the first shared read after T + delaySeconds, and not before", async () => {
    const t = Date.now() - 500;
    const answer = await client.appendFixes(
      { raceId: IDS.race, startGroupId: IDS.group, boats: [{ ...boatFixes(IDS.a, t, 1), sogKn: [NaN] }] },
      { headers: writer },
    );
    const acknowledgedAt = Date.now();
    expect(answer.accepted).toBe(1);
    // The first shared read after the acknowledgement: its dataAsOf is before t.
    const early = await live();
    expect(Date.parse(early.dataAsOf)).toBeLessThan(t);
    expect(fixTimeOf(early, IDS.a)).toBeUndefined();
    // After T + delay, and after the 2 s the early read is shared for: the next read has it.
    await sleep(Math.max(DELAY_SECONDS * 1000, 2000) + acknowledgedAt - Date.now() + 300);
    const later = await live();
    expect(Date.parse(later.dataAsOf)).toBeGreaterThan(acknowledgedAt);
    expect(fixTimeOf(later, IDS.a)).toBe(new Date(t).toISOString());
    expect(later.startGroups.find((g) => g.startGroupId === IDS.group)?.boats.find((b) => b.entryId === IDS.a)?.sogKn).toBeNull();
  });
});

describe("the insights", () => {
  it("are generated from what IngestService wrote: a course, wind readings and fixes", async () => {
    const nowMs = Date.now();
    const mark = { lat: 50.703, lon: -1.3 };
    const course = await client.setCourse(
      {
        raceId: IDS.race,
        startGroupId: IDS.group,
        version: 1,
        appliedFromUtc: timestamp(GUN - 60_000),
        steps: [
          {
            kind: CourseStepKind.START,
            marks: [
              { key: "pin", lat: 50.7005, lon: -1.31 },
              { key: "boat", lat: 50.7005, lon: -1.29 },
            ],
          },
          { kind: CourseStepKind.MARK, label: "Windward", marks: [{ key: "W", ...mark }] },
          {
            kind: CourseStepKind.FINISH,
            marks: [
              { key: "f1", lat: 50.71, lon: -1.31 },
              { key: "f2", lat: 50.71, lon: -1.29 },
            ],
          },
        ],
      },
      { headers: writer },
    );
    expect(course.duplicate).toBe(false);
    await client.recordWind(
      { raceId: IDS.race, startGroupId: IDS.group, twd: 350, tws: 12, measuredAtUtc: timestamp(nowMs - 90_000) },
      { headers: writer },
    );
    await client.recordWind(
      { raceId: IDS.race, startGroupId: IDS.group, twd: 15, measuredAtUtc: timestamp(nowMs - 30_000) },
      { headers: writer },
    );
    // Boat B sails north from 50.7 at 0.0001 degrees a second: over the start line after 5 s
    // (a rounding is a step passing: steps are passed in order), within 50 m of W after
    // about 26 s, then on toward the finish line to the north.
    const fixes = await client.appendFixes(
      { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.b, nowMs - 80_000, 40)] },
      { headers: writer },
    );
    expect(fixes.accepted).toBe(40);

    // The race's first insights call generates at once: the next generation after the writes.
    const response = await fetch(`${api.url}/api/v1/races/${IDS.race}/live/insights`, { headers: reader });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      insights: Array<{
        kind: string;
        boats: Array<{ entryId: string }>;
        markLabel: string | null;
        twdFrom: number | null;
        twdTo: number | null;
      }>;
    };
    expect(body.insights.find((i) => i.kind === "markRounding")).toMatchObject({ boats: [{ entryId: IDS.b }], markLabel: "Windward" });
    expect(body.insights.find((i) => i.kind === "windShift")).toMatchObject({ twdFrom: 350, twdTo: 15 });
  });
});

describe("a track window served as immutable", () => {
  it("never changes: a late fix for it is refused as WINDOW_SETTLED and the window answers the same bytes", async () => {
    const nowMs = Math.floor(Date.now() / 1000) * 1000;
    // A window ending 3 minutes before the delayed cut-off: immutable.
    const since = nowMs - DELAY_SECONDS * 1000 - 8 * 60_000;
    const until = since + 5 * 60_000;
    const url = `${api.url}/api/v1/races/${IDS.race}/track?startGroupId=${IDS.group}&since=${new Date(since).toISOString()}&until=${new Date(until).toISOString()}`;
    const first = await fetch(url, { headers: reader });
    expect(first.headers.get("cache-control")).toContain("immutable");
    const before = await first.text();

    // A phone regaining coverage uploads its fixes of that window.
    const late = await client.appendFixes(
      { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.a, since + 60_000, 5)] },
      { headers: writer },
    );
    expect({ accepted: late.accepted, reasons: late.rejected.map((r) => FixRejectionReason[r.reason]) }).toEqual({
      accepted: 0,
      reasons: Array(5).fill("WINDOW_SETTLED"),
    });

    const after = await fetch(url, { headers: reader });
    expect(await after.text()).toBe(before);
  });

  it("stays as served when the event's delay is raised: the edge the shorter delay reached holds", async () => {
    const nowMs = Math.floor(Date.now() / 1000) * 1000;
    // Under the 3 s delay, fixes of 2.5 minutes ago are settled.
    const settled = nowMs - 150_000;
    expect((await client.updateEvent({ eventId: IDS.event, delaySeconds: 600 }, { headers: writer })).changed).toBe(true);
    try {
      // Under 600 s alone they would not be (the edge is now 12 minutes back), but windows were served.
      const answer = await client.appendFixes(
        { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.b, settled, 2)] },
        { headers: writer },
      );
      expect(answer.rejected.map((r) => FixRejectionReason[r.reason])).toEqual(["WINDOW_SETTLED", "WINDOW_SETTLED"]);
      // Lowering the delay again keeps the floor too; fresh fixes still go in.
      const fresh = await client.appendFixes(
        { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.b, Date.now() - 1000, 1)] },
        { headers: writer },
      );
      expect(fresh.accepted).toBe(1);
    } finally {
      await client.updateEvent({ eventId: IDS.event, delaySeconds: DELAY_SECONDS }, { headers: writer });
    }
  });

  it("keeps the longer delay's settled edge for readers a while after the delay is shortened", async () => {
    await client.updateEvent({ eventId: IDS.event, delaySeconds: 600 }, { headers: writer });
    await client.updateEvent({ eventId: IDS.event, delaySeconds: DELAY_SECONDS }, { headers: writer });
    const [[hold]] = await db.pool.query<RowDataPacket[]>(
      "SELECT h.delay_seconds, h.until_ms FROM event_delay_holds h JOIN events e ON e.id = h.event_id WHERE e.uuid = ?",
      [IDS.event],
    );
    expect(hold!.delay_seconds).toBe(600);
    // A window the 3 s delay alone settles, read by an instance that has not cached the race:
    // batches checked under 600 s may still commit into it, so it is not served as immutable yet.
    const untilMs = Date.now() - DELAY_SECONDS * 1000 - 130_000;
    const fresh = await startApi(db);
    try {
      const url = `${fresh.url}/api/v1/races/${IDS.race}/track?startGroupId=${IDS.group}&since=${new Date(untilMs - 60_000).toISOString()}&until=${new Date(untilMs).toISOString()}`;
      const page = await fetch(url, { headers: bearer(await tokenFor(fresh.url, "reader")) });
      expect(page.status).toBe(200);
      expect(Number(hold!.until_ms)).toBeGreaterThan(Date.now());
      expect(page.headers.get("cache-control")).not.toMatch(/immutable/);
    } finally {
      await fresh.close();
    }
  });
});
