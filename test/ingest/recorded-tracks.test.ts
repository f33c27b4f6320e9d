// LoadRecordedTracks: a real recording (signalk-server's plaka log, a yacht's 4 hours of
// GPS) loaded in one call per start group over a real gRPC client into an event nobody
// could read yet, then published and shared: the track pages serve every fix back bit
// for bit and the analytics engine finds what the recording gives. Refused whole once
// the event is or was published and shared (TRACKS_ALREADY_SERVED, FAILED_PRECONDITION),
// for another club, a reader's token and malformed or oversized calls; each fix is
// judged as AppendFixes judges it, a repeated load is duplicates, and answers are bounded.

import { fromBinary, fromJson } from "@bufbuild/protobuf";
import { anyUnpack, ListValueSchema } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import { beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import {
  FixRejectionReason,
  LoadRecordedTracksRequestSchema,
  type LoadRecordedTracksResponse,
  LoadRecordedTracksResponseSchema,
  UpdateEventRequestSchema,
  UpdateEventResponseSchema,
} from "../../gen/racing/v1/ingest_pb.js";
import { MAX_RECORDED_FIXES } from "../../src/domain/fix-rules.js";
import { CAPTURE_AFTER_GUN_MS, CAPTURE_BEFORE_GUN_MS } from "../../src/domain/race-time.js";
import type { Event, Scenario } from "../../src/domain/scenario.js";
import { LISTED_REJECTIONS } from "../../src/ingest/fix-answers.js";
import { AnalyticsEngine } from "../../src/reads/analytics/race-analytics.js";
import { MIGRATIONS } from "../../src/store/migrations.js";
import { findRace } from "../../src/store/races.js";
import { readServedTracks, replayTrack } from "../support/analytics-feed.js";
import { bearer, CLUB, tokenFor, useApi } from "../support/api.js";
import { grpcClient, unary } from "../support/grpc.js";
import { boatFixes, GUN, ingestClient, ingestScenario, INGEST_IDS, paramInvalid, refusal } from "../support/ingest-scenarios.js";
import { entry, MINUTE, sharedEvent, uuid } from "../support/race-scenarios.js";
import { RECORDED_IDS, recordedRaces } from "../support/recorded-race.js";
import type { RecordedFix } from "../support/signalk-recordings.js";
import { snapshot } from "../support/snapshot.js";

const recorded = recordedRaces();
const plakaEvent = recorded.scenario.events.find((e) => e.id === RECORDED_IDS.event)!;
/** Plaka's races without their tracks, in an event published but not sharing its tracking yet. */
const RECORDED_EVENT: Event = {
  ...plakaEvent,
  trackingShared: false,
  entries: plakaEvent.entries.filter((e) => e.id === RECORDED_IDS.plakaEntry),
  races: plakaEvent.races
    .filter((race) => race.id !== RECORDED_IDS.aavaRace)
    .map((race) => ({ ...race, startGroups: race.startGroups.map(({ tracks: _, ...group }) => group) })),
};
const plakaGroups = RECORDED_EVENT.races.map((race) => ({ raceId: race.id, group: race.startGroups[0]! }));

/** An unpublished event of the club, with a race under way: where the per-fix rules are tried. */
const DRAFT = {
  event: uuid("e7000000", 1),
  race: uuid("a7000000", 1),
  group: uuid("b7000000", 1),
  noGun: uuid("b7000000", 2),
  x: uuid("d7000000", 1),
  y: uuid("d7000000", 2),
  outsider: uuid("d7000000", 3),
  /** Unpublished events shared then unshared, one by UpdateEvent and one by ApplyScenario, and one older than the record. */
  flipped: uuid("e7000000", 2),
  flippedRace: uuid("a7000000", 2),
  flippedGroup: uuid("b7000000", 3),
  applied: uuid("e7000000", 3),
  appliedRace: uuid("a7000000", 3),
  appliedGroup: uuid("b7000000", 4),
  raced: uuid("e7000000", 5),
  racedRace: uuid("a7000000", 5),
  racedGroup: uuid("b7000000", 6),
  older: uuid("e7000000", 4),
  olderRace: uuid("a7000000", 4),
  olderGroup: uuid("b7000000", 5),
} as const;

function draftEvent(eventId: string, raceId: string, groupId: string, n: number, extra: Partial<Event> = {}): Event {
  const x = uuid("d7100000", n);
  return sharedEvent(eventId, CLUB, {
    published: false,
    entries: [entry(x, `X ${n}`, `Xray ${n}`)],
    races: [
      {
        id: raceId,
        raceNo: 1,
        name: "Race",
        isLive: false,
        startGroups: [{ id: groupId, name: "Fleet", state: "Started", startTimeUtc: new Date(GUN).toISOString(), entryIds: [x] }],
      },
    ],
    ...extra,
  });
}

function scenario(): Scenario {
  const base = ingestScenario();
  base.clubs = recorded.scenario.clubs.filter((club) => base.clubs.some((c) => c.id === club.id));
  base.events.push(RECORDED_EVENT, {
    ...draftEvent(DRAFT.event, DRAFT.race, DRAFT.group, 0),
    entries: [entry(DRAFT.x, "X 1", "Xray"), entry(DRAFT.y, "Y 1", "Yankee"), entry(DRAFT.outsider, "Z 1", "Zulu")],
    races: [
      {
        id: DRAFT.race,
        raceNo: 1,
        name: "Draft race",
        isLive: true,
        startGroups: [
          { id: DRAFT.group, name: "Fleet", state: "Started", startTimeUtc: new Date(GUN).toISOString(), entryIds: [DRAFT.x, DRAFT.y] },
          { id: DRAFT.noGun, name: "Later", state: "Scheduled", startTimeUtc: null, entryIds: [DRAFT.x, DRAFT.y] },
        ],
      },
    ],
  });
  base.events.push(
    draftEvent(DRAFT.flipped, DRAFT.flippedRace, DRAFT.flippedGroup, 1, { trackingShared: false }),
    draftEvent(DRAFT.older, DRAFT.olderRace, DRAFT.olderGroup, 3),
    draftEvent(DRAFT.raced, DRAFT.racedRace, DRAFT.racedGroup, 4),
  );
  return base;
}

const api = useApi({ scenario });
let writer: grpc.Metadata;
let reader: grpc.Metadata;
let otherWriter: grpc.Metadata;
let readerToken: string;
let grpcAt: grpc.Client;

function metadataOf(token: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return metadata;
}

beforeAll(async () => {
  writer = metadataOf(await tokenFor(api.url, "writer"));
  readerToken = await tokenFor(api.url, "reader");
  reader = metadataOf(readerToken);
  otherWriter = metadataOf(await tokenFor(api.url, "otherWriter"));
  grpcAt = grpcClient(api.grpcUrl);
  return () => grpcAt.close();
});

type LoadInit = Parameters<typeof unary<typeof LoadRecordedTracksRequestSchema, typeof LoadRecordedTracksResponseSchema>>[4];

function load(request: LoadInit, metadata: grpc.Metadata = writer): Promise<LoadRecordedTracksResponse> {
  return unary(
    grpcAt,
    "/racing.v1.IngestService/LoadRecordedTracks",
    LoadRecordedTracksRequestSchema,
    LoadRecordedTracksResponseSchema,
    request,
    metadata,
  );
}

/** How a grpc-js call failed: its status code and its ErrorInfo. */
async function grpcRefusal(
  call: Promise<unknown>,
): Promise<{ code: string; reason: string | undefined; metadata: Record<string, string> }> {
  try {
    await call;
  } catch (error) {
    const e = error as grpc.ServiceError;
    const details = e.metadata.get("grpc-status-details-bin")[0] as Buffer | undefined;
    const status = details ? fromBinary(StatusSchema, details) : undefined;
    const info = status?.details.map((any) => anyUnpack(any, ErrorInfoSchema)).find((d) => d !== undefined);
    return { code: grpc.status[e.code]!, reason: info?.reason, metadata: { ...info?.metadata } };
  }
  throw new Error("the call succeeded");
}

const served = (reason: string | undefined = "TRACKS_ALREADY_SERVED") => ({ code: "FAILED_PRECONDITION", reason, metadata: {} });

/** A recording as one boat's part of a request: NaN where it reported no speed or course. */
function boatOf(entryId: string, fixes: readonly RecordedFix[]) {
  return {
    entryId,
    t: fixes.map((f) => BigInt(f.tMs)),
    lat: fixes.map((f) => f.lat),
    lon: fixes.map((f) => f.lon),
    sogKn: fixes.map((f) => f.sogKn ?? Number.NaN),
    cogDeg: fixes.map((f) => f.cogDeg ?? Number.NaN),
  };
}

const inWindow = (gunMs: number) => (f: RecordedFix) => f.tMs >= gunMs - CAPTURE_BEFORE_GUN_MS && f.tMs < gunMs + CAPTURE_AFTER_GUN_MS;
const total = (answer: LoadRecordedTracksResponse) =>
  answer.accepted + answer.duplicates + answer.rejected.length + answer.rejectedUnlisted.reduce((n, c) => n + c.count, 0);

describe("a recorded race, loaded before anyone could read it", () => {
  const loads: LoadRecordedTracksResponse[] = [];

  it("takes plaka's whole recording in one call per start group: the fixes of its capture window, the rest refused", async () => {
    expect(recorded.plaka.fixes.length).toBeGreaterThan(5000);
    for (const { raceId, group } of plakaGroups) {
      const gunMs = Date.parse(group.startTimeUtc!);
      const answer = await load({ raceId, startGroupId: group.id, boats: [boatOf(RECORDED_IDS.plakaEntry, recorded.plaka.fixes)] });
      const outside = recorded.plaka.fixes.filter((f) => !inWindow(gunMs)(f)).length;
      expect(answer.accepted).toBe(recorded.plaka.fixes.length - outside);
      expect(answer.duplicates).toBe(0);
      expect(total(answer)).toBe(recorded.plaka.fixes.length);
      // Bounded: the first 100 listed, the rest counted per reason.
      expect(answer.rejected.length).toBe(Math.min(outside, LISTED_REJECTIONS));
      expect(new Set(answer.rejected.map((r) => r.reason))).toEqual(
        new Set(outside > 0 ? [FixRejectionReason.OUTSIDE_CAPTURE_WINDOW] : []),
      );
      expect(answer.rejectedUnlisted).toEqual(
        outside > LISTED_REJECTIONS
          ? [expect.objectContaining({ reason: FixRejectionReason.OUTSIDE_CAPTURE_WINDOW, count: outside - LISTED_REJECTIONS })]
          : [],
      );
      loads.push(answer);
    }
    expect(loads.some((answer) => answer.rejectedUnlisted.length > 0)).toBe(true);
  });

  it("counts the same recording loaded again as duplicates, writing nothing", async () => {
    const before = await snapshot(api.db.pool);
    const { raceId, group } = plakaGroups[0]!;
    const again = await load({ raceId, startGroupId: group.id, boats: [boatOf(RECORDED_IDS.plakaEntry, recorded.plaka.fixes)] });
    expect(again.accepted).toBe(0);
    expect(again.duplicates).toBe(loads[0]!.accepted);
    expect(await snapshot(api.db.pool)).toEqual(before);
  });

  it("is served once published and shared: every fix back, bit for bit, on the track pages", async () => {
    const shared = await unary(
      grpcAt,
      "/racing.v1.IngestService/UpdateEvent",
      UpdateEventRequestSchema,
      UpdateEventResponseSchema,
      { eventId: RECORDED_IDS.event, trackingShared: true },
      writer,
    );
    expect(shared.changed).toBe(true);
    for (const { raceId, group } of plakaGroups) {
      const gunMs = Date.parse(group.startTimeUtc!);
      const tracks = await readServedTracks((path, init) => fetch(`${api.url}${path}`, init), readerToken, raceId, group.id, gunMs);
      const sent = recorded.plaka.fixes.filter(inWindow(gunMs));
      const { t, lat, lon, sogKn, cogDeg } = tracks.get(RECORDED_IDS.plakaEntry)!;
      // toEqual compares numbers with Object.is: the same doubles, not nearly the same.
      expect({ t, lat, lon, sogKn, cogDeg }).toEqual({
        t: sent.map((f) => f.tMs),
        lat: sent.map((f) => f.lat),
        lon: sent.map((f) => f.lon),
        sogKn: sent.map((f) => f.sogKn),
        cogDeg: sent.map((f) => f.cogDeg),
      });
    }
  });

  it("gives the analytics the recording gives: the engine's passings and manoeuvres are the pure core's on the recorded fixes", async () => {
    let passings = 0;
    let manoeuvres = 0;
    for (const { raceId, group } of plakaGroups) {
      const gunMs = Date.parse(group.startTimeUtc!);
      const race = (await findRace(api.db.pool, raceId))!;
      const analytics = (await new AnalyticsEngine().refresh(race, Date.now(), { pool: api.db.pool, behindMs: 0 })).groups[0]!;
      const sent = recorded.plaka.fixes.filter(inWindow(gunMs));
      const replay = replayTrack(
        { t: sent.map((f) => f.tMs), lat: sent.map((f) => f.lat), lon: sent.map((f) => f.lon) },
        { steps: group.courses![0]!.steps, gunMs, wind: group.wind! },
      );
      expect(analytics.items.flatMap((boat) => boat.passings)).toEqual(replay.analytics.passings);
      expect(analytics.items.flatMap((boat) => boat.manoeuvres)).toEqual(replay.analytics.manoeuvres);
      passings += replay.analytics.passings.length;
      manoeuvres += replay.analytics.manoeuvres.length;
    }
    // The recording was really analysed: every step of each course passed (they lie on its track), a turn found.
    expect(passings).toBe(plakaGroups.reduce((n, { group }) => n + group.courses![0]!.steps.length, 0));
    expect(manoeuvres).toBeGreaterThan(0);
  });

  it("is answered by the REST analytics endpoints as the core makes of the recording", async () => {
    for (const { raceId, group } of plakaGroups) {
      const gunMs = Date.parse(group.startTimeUtc!);
      const sent = recorded.plaka.fixes.filter(inWindow(gunMs));
      const replay = replayTrack(
        { t: sent.map((f) => f.tMs), lat: sent.map((f) => f.lat), lon: sent.map((f) => f.lon) },
        { steps: group.courses![0]!.steps, gunMs, wind: group.wind! },
      );
      const answered: { entryId: string; kind: string; atUtc: string }[] = [];
      let since: string | null = new Date(gunMs - CAPTURE_BEFORE_GUN_MS).toISOString();
      while (since !== null) {
        const query = new URLSearchParams({ startGroupId: group.id, since });
        const response = await fetch(`${api.url}/api/v1/races/${raceId}/analytics/manoeuvres?${query}`, { headers: bearer(readerToken) });
        expect(response.status).toBe(200);
        const page = (await response.json()) as { manoeuvres: typeof answered; nextSince: string | null };
        answered.push(...page.manoeuvres.map(({ entryId, kind, atUtc }) => ({ entryId, kind, atUtc })));
        since = page.nextSince;
      }
      expect(answered).toEqual(
        replay.analytics.manoeuvres.map((m) => ({
          entryId: RECORDED_IDS.plakaEntry,
          kind: m.kind,
          atUtc: new Date(Math.floor(m.atMs)).toISOString(),
        })),
      );
      const response = await fetch(`${api.url}/api/v1/races/${raceId}/analytics?startGroupId=${group.id}`, {
        headers: bearer(readerToken),
      });
      expect(response.status).toBe(200);
      const analytics = (await response.json()) as { boats: { entryId: string; ignoredFixes: number }[] };
      expect(analytics.boats.map((b) => [b.entryId, b.ignoredFixes])).toEqual([[RECORDED_IDS.plakaEntry, 0]]);
    }
  });

  it("is refused once served, even the same recording again: TRACKS_ALREADY_SERVED, FAILED_PRECONDITION", async () => {
    const before = await snapshot(api.db.pool);
    const { raceId, group } = plakaGroups[0]!;
    expect(
      await grpcRefusal(load({ raceId, startGroupId: group.id, boats: [boatOf(RECORDED_IDS.plakaEntry, recorded.plaka.fixes)] })),
    ).toEqual(served());
    expect(await snapshot(api.db.pool)).toEqual(before);
  });
});

describe("who may load, and into which events", () => {
  const draftBatch = (boats = [boatFixes(DRAFT.x, GUN, 10)]) => ({ raceId: DRAFT.race, startGroupId: DRAFT.group, boats });

  it("refuses an event published and shared now, whatever the age of the fixes", async () => {
    expect(
      await grpcRefusal(
        load({ raceId: INGEST_IDS.race, startGroupId: INGEST_IDS.group, boats: [boatFixes(INGEST_IDS.a, Date.now() - 2000, 1)] }),
      ),
    ).toEqual(served());
  });

  it("refuses an event shared once by UpdateEvent and unshared since", async () => {
    const client = ingestClient(api.runtime);
    const headers = bearer(await tokenFor(api.url, "writer"));
    const group = { raceId: DRAFT.flippedRace, startGroupId: DRAFT.flippedGroup, boats: [boatFixes(uuid("d7100000", 1), GUN, 5)] };
    expect((await load(group)).accepted).toBe(5);
    await client.updateEvent({ eventId: DRAFT.flipped, published: true }, { headers });
    // Published, not shared: still nobody could read its tracks.
    expect((await load({ ...group, boats: [boatFixes(uuid("d7100000", 1), GUN + 5000, 5)] })).accepted).toBe(5);
    await client.updateEvent({ eventId: DRAFT.flipped, trackingShared: true }, { headers });
    await client.updateEvent({ eventId: DRAFT.flipped, published: false, trackingShared: false }, { headers });
    expect(await grpcRefusal(load(group))).toEqual(served());
  });

  it("refuses an event shared once by ApplyScenario and unshared since", async () => {
    const client = ingestClient(api.runtime);
    const headers = bearer(await tokenFor(api.url, "writer"));
    const apply = (extra: Partial<Event>) =>
      client.applyScenario(
        {
          events: fromJson(
            ListValueSchema,
            JSON.parse(JSON.stringify([draftEvent(DRAFT.applied, DRAFT.appliedRace, DRAFT.appliedGroup, 2, extra)])),
          ),
        },
        { headers },
      );
    const group = { raceId: DRAFT.appliedRace, startGroupId: DRAFT.appliedGroup, boats: [boatFixes(uuid("d7100000", 2), GUN, 5)] };
    await apply({});
    expect((await load(group)).accepted).toBe(5);
    await apply({ published: true, trackingShared: true });
    await apply({ published: true, trackingShared: false });
    expect(await grpcRefusal(load(group))).toEqual(served());
  });

  it("waits for a publication under way, and is refused when it commits", async () => {
    const group = { raceId: DRAFT.racedRace, startGroupId: DRAFT.racedGroup, boats: [boatFixes(uuid("d7100000", 4), GUN, 5)] };
    // A publication holding the event row, as UpdateEvent does from its first read to its commit.
    const publishing = await api.db.pool.getConnection();
    try {
      await publishing.query("BEGIN");
      await publishing.query("SELECT id FROM events WHERE uuid = ? FOR UPDATE", [DRAFT.raced]);
      const loading = grpcRefusal(load(group));
      await publishing.query("UPDATE events SET published = TRUE, tracking_shared = TRUE WHERE uuid = ?", [DRAFT.raced]);
      await publishing.query("INSERT INTO event_tracks_readable (event_id, since) SELECT id, NOW(3) FROM events WHERE uuid = ?", [
        DRAFT.raced,
      ]);
      // The load has reached the event row by now, or reaches it after the commit: either way it waits for it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await publishing.query("COMMIT");
      expect(await loading).toEqual(served());
    } finally {
      publishing.release();
    }
    const [[{ n }]] = (await api.db.pool.query(
      "SELECT COUNT(*) AS n FROM fixes f JOIN start_groups g ON g.id = f.start_group_id WHERE g.uuid = ?",
      [DRAFT.racedGroup],
    )) as unknown as [[{ n: number }]];
    expect(Number(n)).toBe(0);
  });

  it("answers another club's race as not found, either way round, and a reader's token as missing the scope", async () => {
    expect(await grpcRefusal(load(draftBatch(), otherWriter))).toEqual({ code: "NOT_FOUND", reason: "RACE_NOT_FOUND", metadata: {} });
    expect(
      await grpcRefusal(
        load({ raceId: INGEST_IDS.otherRace, startGroupId: INGEST_IDS.otherGroup, boats: [boatFixes(INGEST_IDS.otherEntry, GUN, 1)] }),
      ),
    ).toEqual({ code: "NOT_FOUND", reason: "RACE_NOT_FOUND", metadata: {} });
    expect(await grpcRefusal(load(draftBatch(), reader))).toEqual({
      code: "PERMISSION_DENIED",
      reason: "API_SCOPE_MISSING",
      metadata: { scope: "tracking:write" },
    });
  });
});

describe("each fix, as live ingest judges it", () => {
  const draft = (boats: ReturnType<typeof boatFixes>[], startGroupId: string = DRAFT.group) => ({
    raceId: DRAFT.race,
    startGroupId,
    boats,
  });
  const client = () => ingestClient(api.runtime);
  let headers: Record<string, string>;
  beforeAll(async () => {
    headers = bearer(await tokenFor(api.url, "writer"));
  });

  it("takes fixes of any age inside the capture window, and refuses those outside it, in the future, unknown or out of range", async () => {
    const hourAgo = GUN - 55 * MINUTE; // before gun - 5 min
    const answer = await client().loadRecordedTracks(
      draft([boatFixes(DRAFT.x, GUN - 5 * MINUTE, 3), { ...boatFixes(DRAFT.y, hourAgo, 2) }, boatFixes(DRAFT.outsider, GUN, 1)]),
      { headers },
    );
    expect(answer.accepted).toBe(3);
    expect(answer.rejected.map((r) => [r.entryId, Number(r.t), FixRejectionReason[r.reason]])).toEqual([
      [DRAFT.y, hourAgo, "OUTSIDE_CAPTURE_WINDOW"],
      [DRAFT.y, hourAgo + 1000, "OUTSIDE_CAPTURE_WINDOW"],
      [DRAFT.outsider, GUN, "UNKNOWN_ENTRY"],
    ]);
    const future = Date.now() + 60_000;
    const odd = await client().loadRecordedTracks(
      draft([{ ...boatFixes(DRAFT.x, future, 1) }, { ...boatFixes(DRAFT.y, GUN, 2), lat: [91, 50.7] }]),
      { headers },
    );
    expect(odd.rejected.map((r) => FixRejectionReason[r.reason])).toEqual(["IN_FUTURE", "OUT_OF_RANGE"]);
    expect(odd.accepted).toBe(1);
    // No gun, no window yet: kept, as AppendFixes keeps them.
    expect((await client().loadRecordedTracks(draft([boatFixes(DRAFT.x, hourAgo, 2)], DRAFT.noGun), { headers })).accepted).toBe(2);
  });

  it("keeps a stored fix and refuses another value at its time (CONFLICT); the same again is a duplicate", async () => {
    const first = boatFixes(DRAFT.x, GUN + 10 * MINUTE, 4);
    expect((await client().loadRecordedTracks(draft([first]), { headers })).accepted).toBe(4);
    const moved = { ...first, lat: first.lat.map((lat, i) => (i === 2 ? lat + 0.001 : lat)) };
    const answer = await client().loadRecordedTracks(draft([moved]), { headers });
    expect({ accepted: answer.accepted, duplicates: answer.duplicates }).toEqual({ accepted: 0, duplicates: 3 });
    expect(answer.rejected.map((r) => [r.t, FixRejectionReason[r.reason]])).toEqual([[first.t[2], "CONFLICT"]]);
  });

  it("refuses out-of-order and malformed calls whole, naming the field, writing nothing", async () => {
    const before = await snapshot(api.db.pool);
    const good = boatFixes(DRAFT.x, GUN + 20 * MINUTE, 3);
    const cases: Array<[ReturnType<typeof boatFixes>[], string]> = [
      [[{ ...good, t: [good.t[0]!, good.t[2]!, good.t[1]!] }], "boats[0].t[2]"],
      [[{ ...good, t: [good.t[0]!, good.t[0]!, good.t[1]!] }], "boats[0].t[1]"],
      [[{ ...good, lat: good.lat.slice(1) }], "boats[0].lat"],
      [[{ ...good, sogKn: [1] }], "boats[0].sogKn"],
      [[{ ...good, entryId: "not-a-uuid" }], "boats[0].entryId"],
      [[good, good], "boats[1].entryId"],
      [[{ ...good, t: [-1n, 0n, 1n] }], "boats[0].t[0]"],
    ];
    for (const [boats, name] of cases) {
      expect(await refusal(client().loadRecordedTracks(draft(boats), { headers })), name).toEqual(paramInvalid(name));
    }
    expect(await refusal(client().loadRecordedTracks(draft([good], uuid("b7000000", 99)), { headers }))).toEqual(
      paramInvalid("startGroupId"),
    );
    expect(await snapshot(api.db.pool)).toEqual(before);
  });

  it(`takes ${MAX_RECORDED_FIXES.toLocaleString("en")} fixes in one call and refuses one more (boats), writing nothing`, async () => {
    // Two boats' 14 hours at 1 Hz, all past, into the group without a gun (no capture window to cut them).
    const fromMs = Date.now() - 20 * 3600_000;
    const perBoat = MAX_RECORDED_FIXES / 2;
    const atMost = [boatFixes(DRAFT.x, fromMs, perBoat), boatFixes(DRAFT.y, fromMs, perBoat)];
    const before = await snapshot(api.db.pool);
    const over = [atMost[0]!, boatFixes(DRAFT.y, fromMs, perBoat + 1)];
    expect(await refusal(client().loadRecordedTracks(draft(over, DRAFT.noGun), { headers }))).toEqual(paramInvalid("boats"));
    expect(await snapshot(api.db.pool)).toEqual(before);
    // Over gRPC, as a platform sends it: under the message limit, one transaction.
    const answer = await load(draft(atMost, DRAFT.noGun));
    expect({ accepted: answer.accepted, duplicates: answer.duplicates, rejected: answer.rejected }).toEqual({
      accepted: MAX_RECORDED_FIXES,
      duplicates: 0,
      rejected: [],
    });
  });
});

// Last: it marks every event of the database.
describe("events from before the record", () => {
  it("counts every event older than the record as read (the migration)", async () => {
    const group = { raceId: DRAFT.olderRace, startGroupId: DRAFT.olderGroup, boats: [boatFixes(uuid("d7100000", 3), GUN, 5)] };
    expect((await load(group)).accepted).toBe(5);
    // What the migration does to the events it finds, run again as it may be.
    for (const statement of MIGRATIONS.find((m) => m.version === 8)!.statements) await api.db.pool.query(statement);
    expect(await grpcRefusal(load(group))).toEqual(served());
  });
});
