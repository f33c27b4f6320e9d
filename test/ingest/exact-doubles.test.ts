// Every double a platform sends comes back with the same bits, and an identical re-send
// is a duplicate: random doubles (and the ones mysql2's text parser gets wrong) through
// each ingest record that carries doubles (fixes, wind, live order, course marks,
// results; a phone finish carries none), re-sent unchanged, then read back from the
// live answer, the track page and the race's results, over REST and over the RPC.
// Each run feeds a race of its own, so no answer is a shared read of an earlier run.

import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient, createRouterTransport, type ServiceImpl } from "@connectrpc/connect";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { ResultsService } from "../../gen/racing/v1/results_pb.js";
import { TrackService } from "../../gen/racing/v1/track_pb.js";
import { CourseStepKind, IngestResultStatus } from "../../gen/racing/v1/ingest_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import { bearer, CLUB, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { asStored, doubleIn } from "../support/doubles.js";
import { ingestClient, ingestScenario } from "../support/ingest-scenarios.js";
import { entry, iso, MINUTE, sharedEvent, uuid } from "../support/race-scenarios.js";

const db = useFreshDatabase();
let api: Api;
let writer: Record<string, string>;
let reader: Record<string, string>;
let ingest: ReturnType<typeof ingestClient>;

beforeAll(async () => {
  await importScenario(db.pool, ingestScenario());
  api = await startApi(db);
  writer = bearer(await tokenFor(api.url, "writer"));
  reader = bearer(await tokenFor(api.url, "reader"));
  ingest = ingestClient(api.runtime);
});
afterAll(() => api?.close());

/** A service of the running API through Connect's in-memory transport. */
function inProcess<S extends DescService>(service: S, implementation: ServiceImpl<S>): Client<S> {
  return createClient(
    service,
    createRouterTransport((router) => router.service(service, implementation)),
  );
}

const BOATS = 3;
const timestamp = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });

/** What one run sends: per boat up to five fixes, up to four wind readings, a live order, a course and results. */
const sent = fc.record({
  fixes: fc.array(
    fc.array(
      fc.record({
        lat: doubleIn(-90, 90),
        lon: doubleIn(-180, 180),
        sogKn: doubleIn(0, 100),
        cogDeg: doubleIn(0, 360).filter((v) => v < 360),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    { minLength: BOATS, maxLength: BOATS },
  ),
  tws: fc.array(doubleIn(0, 200), { minLength: 1, maxLength: 4 }),
  order: fc.array(fc.record({ elapsedSeconds: doubleIn(), correctedSeconds: doubleIn(), deltaSeconds: doubleIn() }), {
    minLength: BOATS,
    maxLength: BOATS,
  }),
  marks: fc.array(fc.array(fc.record({ lat: doubleIn(-90, 90), lon: doubleIn(-180, 180) }), { minLength: 1, maxLength: 2 }), {
    minLength: 1,
    maxLength: 6,
  }),
  results: fc.array(fc.record({ elapsedSeconds: doubleIn(), correctedSeconds: doubleIn(), points: doubleIn() }), {
    minLength: BOATS,
    maxLength: BOATS,
  }),
});
type Sent = typeof sent extends fc.Arbitrary<infer T> ? T : never;

let run = 0;

/** A race of its own (a new event of the club, three boats, the gun 10 minutes ago) for one run. */
async function freshRace() {
  run++;
  const ids = { event: uuid("e5000000", run), race: uuid("a5000000", run), group: uuid("b5000000", run) };
  const entries = Array.from({ length: BOATS }, (_, k) => uuid("d5000000", run * 10 + k));
  const nowMs = Math.floor(Date.now() / 1000) * 1000;
  await importScenario(db.pool, {
    format: "race-scenario/v1",
    clubs: [],
    clients: [],
    events: [
      sharedEvent(ids.event, CLUB, {
        entries: entries.map((id, k) => entry(id, `GBR ${k + 1}`, `Boat ${k + 1}`)),
        races: [
          {
            id: ids.race,
            raceNo: run,
            name: `Race ${run}`,
            isLive: true,
            startGroups: [{ id: ids.group, name: "Fleet", state: "Started", startTimeUtc: iso(nowMs - 10 * MINUTE), entryIds: entries }],
          },
        ],
      }),
    ],
  });
  return { ...ids, entries, nowMs };
}

/** Each write as a request; sent twice, the second must change nothing. */
function requests(race: Awaited<ReturnType<typeof freshRace>>, values: Sent) {
  const group = { raceId: race.race, startGroupId: race.group };
  return {
    fixes: {
      ...group,
      boats: values.fixes.map((fixes, k) => ({
        entryId: race.entries[k]!,
        t: fixes.map((_, i) => BigInt(race.nowMs - 60_000 + i * 1000)),
        lat: fixes.map((f) => f.lat),
        lon: fixes.map((f) => f.lon),
        sogKn: fixes.map((f) => f.sogKn),
        cogDeg: fixes.map((f) => f.cogDeg),
        accuracyM: [],
      })),
    },
    wind: values.tws.map((tws, j) => ({ ...group, twd: 10 * j, tws, measuredAtUtc: timestamp(race.nowMs - 50_000 + j * 1000) })),
    order: {
      ...group,
      asOfUtc: timestamp(race.nowMs - 30_000),
      rows: values.order.map((row, k) => ({ entryId: race.entries[k]!, rank: k + 1, ...row })),
    },
    course: {
      ...group,
      version: 1,
      appliedFromUtc: timestamp(race.nowMs - 60_000),
      steps: values.marks.map((marks, s) => ({
        kind: marks.length === 1 ? CourseStepKind.MARK : CourseStepKind.GATE,
        label: `Step ${s}`,
        marks: marks.map((mark, m) => ({ key: `m${s}.${m}`, ...mark })),
      })),
    },
    results: {
      ...group,
      status: IngestResultStatus.PROVISIONAL,
      publishedAtUtc: timestamp(race.nowMs - 20_000),
      rows: values.results.map((row, k) => ({ entryId: race.entries[k]!, rank: k + 1, status: "OK", ...row })),
    },
  };
}

/** The doubles each read path must serve, in a shape every answer is mapped to. */
function expected(race: Awaited<ReturnType<typeof freshRace>>, values: Sent) {
  return {
    boats: values.fixes.map((fixes, k) => {
      const newest = fixes.at(-1)!;
      return [race.entries[k], asStored(newest.lat), asStored(newest.lon), asStored(newest.sogKn), asStored(newest.cogDeg)];
    }),
    tws: asStored(values.tws.at(-1)!),
    order: values.order.map((row, k) => [
      race.entries[k],
      asStored(row.elapsedSeconds),
      asStored(row.correctedSeconds),
      asStored(row.deltaSeconds),
    ]),
    marks: values.marks.map((marks) => marks.map((mark) => [asStored(mark.lat), asStored(mark.lon)])),
    track: values.fixes.map((fixes, k) => [
      race.entries[k],
      fixes.map((f) => asStored(f.lat)),
      fixes.map((f) => asStored(f.lon)),
      fixes.map((f) => asStored(f.sogKn)),
      fixes.map((f) => asStored(f.cogDeg)),
    ]),
    results: values.results.map((row, k) => [
      race.entries[k],
      asStored(row.elapsedSeconds),
      asStored(row.correctedSeconds),
      asStored(row.points),
    ]),
  };
}

interface LiveGroup {
  boats: Array<{ entryId: string; lat: number; lon: number; sogKn?: number | null; cogDeg?: number | null }>;
  wind?: { tws?: number | null } | null;
  liveOrder?: { rows: OrderRow[] } | OrderRow[] | null;
  course: Array<{ marks: Array<{ lat: number; lon: number }> }>;
}
interface OrderRow {
  entryId: string;
  elapsedSeconds?: number | null;
  correctedSeconds?: number | null;
  deltaSeconds?: number | null;
}
interface TrackBoat {
  entryId: string;
  lat: number[];
  lon: number[];
  sogKn: Array<number | null>;
  cogDeg: Array<number | null>;
}
interface ResultRow {
  entryId: string;
  elapsedSeconds?: number | null;
  correctedSeconds?: number | null;
  points?: number | null;
}

const byEntry = <T extends { entryId: string }>(rows: readonly T[]) => [...rows].sort((a, b) => a.entryId.localeCompare(b.entryId));

function served(live: LiveGroup, track: TrackBoat[], results: ResultRow[]) {
  const orderRows = Array.isArray(live.liveOrder) ? live.liveOrder : (live.liveOrder?.rows ?? []);
  return {
    boats: byEntry(live.boats).map((b) => [b.entryId, b.lat, b.lon, b.sogKn, b.cogDeg]),
    tws: live.wind?.tws,
    order: byEntry(orderRows).map((r) => [r.entryId, r.elapsedSeconds, r.correctedSeconds, r.deltaSeconds]),
    marks: live.course.map((step) => step.marks.map((mark) => [mark.lat, mark.lon])),
    track: byEntry(track).map((b) => [b.entryId, b.lat, b.lon, b.sogKn, b.cogDeg]),
    results: byEntry(results).map((r) => [r.entryId, r.elapsedSeconds, r.correctedSeconds, r.points]),
  };
}

async function rest<T>(path: string): Promise<T> {
  const response = await fetch(`${api.url}/api/v1${path}`, { headers: reader });
  expect(response.status, `${path}: ${response.status}`).toBe(200);
  return (await response.json()) as T;
}

it("every double round-trips bit for bit through each record and read path, and a re-send is a duplicate", async () => {
  const raceLive = inProcess(RaceLiveService, api.runtime.services.raceLive);
  const trackRpc = inProcess(TrackService, api.runtime.services.track);
  const resultsRpc = inProcess(ResultsService, api.runtime.services.results);
  const options = { headers: writer };
  await fc.assert(
    fc.asyncProperty(sent, async (values) => {
      const race = await freshRace();
      const request = requests(race, values);
      const fixCount = values.fixes.flat().length;

      for (const attempt of ["first", "re-sent"] as const) {
        const again = attempt === "re-sent";
        const fixes = await ingest.appendFixes(request.fixes, options);
        expect({ attempt, accepted: fixes.accepted, duplicates: fixes.duplicates, rejected: fixes.rejected }).toEqual({
          attempt,
          accepted: again ? 0 : fixCount,
          duplicates: again ? fixCount : 0,
          rejected: [],
        });
        for (const wind of request.wind) expect((await ingest.recordWind(wind, options)).duplicate, `${attempt} wind`).toBe(again);
        expect((await ingest.recordLiveOrder(request.order, options)).duplicate, `${attempt} live order`).toBe(again);
        expect((await ingest.setCourse(request.course, options)).duplicate, `${attempt} course`).toBe(again);
        expect((await ingest.publishResults(request.results, options)).changed, `${attempt} results`).toBe(!again);
      }

      const want = expected(race, values);
      const window = `since=${iso(race.nowMs - 61_000)}&startGroupId=${race.group}`;
      const restLive = await rest<{ startGroups: LiveGroup[] }>(`/races/${race.race}/live`);
      const restTrack = await rest<{ boats: TrackBoat[] }>(`/races/${race.race}/track?${window}`);
      const restResults = await rest<{ startGroups: Array<{ rows: ResultRow[] }> }>(`/races/${race.race}/results`);
      expect(served(restLive.startGroups[0]!, restTrack.boats, restResults.startGroups[0]!.rows)).toEqual(want);

      const rpcOptions = { headers: reader };
      const rpcLive = await raceLive.getRaceLive({ raceId: race.race }, rpcOptions);
      const rpcTrack = await trackRpc.getTrackPage(
        { raceId: race.race, startGroupId: race.group, since: timestamp(race.nowMs - 61_000) },
        rpcOptions,
      );
      const rpcResults = await resultsRpc.getRaceResults({ raceId: race.race }, rpcOptions);
      expect(
        served(rpcLive.raceLive!.startGroups[0]! as unknown as LiveGroup, rpcTrack.boats, rpcResults.raceResults!.startGroups[0]!.rows),
      ).toEqual(want);
    }),
    { seed: 2028, numRuns: 20 },
  );
});
