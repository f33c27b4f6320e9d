// Plays a simulated race into a running server through IngestService, as a club's
// tracking platform would: every second, for each start group, its new course
// versions and phone finishes, its new fixes in one batch (a message of the PushFixes
// stream it keeps open, or an AppendFixes call), then wind, live order, state and
// results, each by its own RPC. Every write is idempotent, so a second whose calls
// failed is simply sent again on the next tick.

import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import {
  FixRejectionReason,
  IngestResultStatus,
  type AppendFixesRequestSchema,
  type BoatFixesSchema,
  type IngestService,
  type RejectedFix,
  type RejectionCount,
} from "../../gen/racing/v1/ingest_pb.js";
import { createFixPusher } from "./ingest-client.js";
import { MAX_FIXES_PER_BATCH } from "../domain/fix-rules.js";
import { STATE_ENUMS, STEP_KIND_ENUMS } from "../messages/enum-words.js";
import type { Scenario, StartGroup, StartGroupState as GroupState, Track } from "../domain/scenario.js";
import { sliceScenario } from "./slice.js";

export type IngestClient = Client<typeof IngestService>;

/** What became of a batch's fixes: AppendFixes lists every refused fix, PushFixes the first 100 and counts the rest. */
export interface FixAnswer {
  accepted: number;
  duplicates: number;
  rejected: RejectedFix[];
  rejectedUnlisted?: RejectionCount[];
}

/** What one batch carried and when it was answered: for latency figures. */
export interface FixesAck {
  raceId: string;
  startGroupId: string;
  /** Each boat's newest fix time in the batch (epoch ms). */
  newestT: Map<string, number>;
  fixes: number;
  sentMs: number;
  ackedMs: number;
  response: FixAnswer;
}

export interface FeedOptions {
  /** Everything of the race up to this time (epoch ms) was delivered already (imported or applied). */
  fromMs: number;
  /** Default 1000: one second of fixes per batch. */
  tickMs?: number;
  /** Every failed call (the tick is sent again). */
  onError?: (error: unknown) => void;
  onFixesAcked?: (ack: FixesAck) => void;
  /**
   * True: every batch on one PushFixes stream, as a platform keeps it open (HTTP/2
   * only: a client of the gRPC listener). Otherwise one AppendFixes call per batch.
   */
  pushFixes?: boolean;
}

export interface FeedTotals {
  calls: number;
  accepted: number;
  duplicates: number;
  /** Rejected fixes by reason (FIX_REJECTION_REASON_... without the prefix). */
  rejected: Record<string, number>;
  /** Failed calls by Connect code name. */
  errors: Record<string, number>;
}

export interface Feed {
  readonly totals: FeedTotals;
  /** Everything of the race up to this time (epoch ms) has been delivered and answered. */
  readonly deliveredUpTo: number;
  /** Resolves once everything of the race has been delivered (or the feed is stopped). */
  readonly finished: Promise<void>;
  /** Stops ticking and waits for the calls under way. */
  stop(): Promise<void>;
}

/** Starts feeding `race` (times in wall-clock epoch ms) from `options.fromMs` on. */
export function startFeed(client: IngestClient, race: Scenario, options: FeedOptions): Feed {
  const totals: FeedTotals = { calls: 0, accepted: 0, duplicates: 0, rejected: {}, errors: {} };
  const endMs = lastTimeOf(race);
  const sentState = new Map<string, { state: GroupState; finishTimeUtc: string | null }>();
  for (const group of groupsOf(sliceScenario(race, null, options.fromMs)))
    sentState.set(group.id, { state: group.state, finishTimeUtc: group.finishTimeUtc ?? null });
  let deliveredUpTo = options.fromMs;
  let inFlight: Promise<void> | null = null;
  let stopped = false;
  let markFinished: () => void = () => {};
  const finished = new Promise<void>((resolve) => (markFinished = resolve));
  const pusher = options.pushFixes ? createFixPusher(client) : null;
  const sendFixes = (batch: FixBatch): Promise<FixAnswer> => (pusher ? pusher.push(batch) : client.appendFixes(batch));

  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    totals.calls++;
    try {
      return await work();
    } catch (error) {
      const code = Code[ConnectError.from(error).code] ?? "Unknown";
      totals.errors[code] = (totals.errors[code] ?? 0) + 1;
      options.onError?.(error);
      throw error;
    }
  };

  const deliverGroup = async (
    raceId: string,
    group: StartGroup,
    sent: { state: GroupState; finishTimeUtc: string | null },
  ): Promise<void> => {
    const ids = { raceId, startGroupId: group.id };
    for (const course of group.courses ?? []) {
      await call(() =>
        client.setCourse({
          ...ids,
          version: course.version,
          appliedFromUtc: timestampFromMs(Date.parse(course.appliedFromUtc)),
          steps: course.steps.map((step) => ({
            kind: STEP_KIND_ENUMS[step.kind],
            ...(step.label ? { label: step.label } : {}),
            marks: step.marks.map((mark) => ({ key: mark.key, lat: mark.lat, lon: mark.lon })),
          })),
        }),
      );
    }
    // Finishes before fixes: a phone keeps recording after its finish, and those fixes
    // are refused (outside the capture window) whichever second they arrive in.
    for (const finish of group.finishes ?? []) {
      await call(() =>
        client.recordFinish({ ...ids, entryId: finish.entryId, finishTimeUtc: timestampFromMs(Date.parse(finish.finishTimeUtc)) }),
      );
    }
    for (const request of fixBatches(ids, group.tracks ?? [])) {
      const sentMs = Date.now();
      const response = await call(() => sendFixes(request));
      const ackedMs = Date.now();
      totals.accepted += response.accepted;
      totals.duplicates += response.duplicates;
      const refused = [...response.rejected.map(({ reason }) => ({ reason, count: 1 })), ...(response.rejectedUnlisted ?? [])];
      for (const { reason, count } of refused) {
        const name = FixRejectionReason[reason] ?? String(reason);
        totals.rejected[name] = (totals.rejected[name] ?? 0) + count;
      }
      if (options.onFixesAcked) {
        const newestT = new Map(request.boats.map((boat) => [boat.entryId!, Number(boat.t!.at(-1))]));
        const fixes = request.boats.reduce((n, boat) => n + boat.t!.length, 0);
        options.onFixesAcked({ ...ids, newestT, fixes, sentMs, ackedMs, response });
      }
    }
    for (const wind of group.wind ?? []) {
      await call(() =>
        client.recordWind({
          ...ids,
          twd: wind.twd,
          ...(typeof wind.tws === "number" ? { tws: wind.tws } : {}),
          measuredAtUtc: timestampFromMs(Date.parse(wind.measuredAtUtc)),
        }),
      );
    }
    for (const reading of group.liveOrder ?? []) {
      await call(() =>
        client.recordLiveOrder({
          ...ids,
          asOfUtc: timestampFromMs(Date.parse(reading.asOfUtc)),
          rows: reading.rows.map((row) => ({
            entryId: row.entryId,
            ...(row.rank !== null ? { rank: row.rank } : {}),
            ...(typeof row.elapsedSeconds === "number" ? { elapsedSeconds: row.elapsedSeconds } : {}),
            ...(typeof row.correctedSeconds === "number" ? { correctedSeconds: row.correctedSeconds } : {}),
            ...(typeof row.deltaSeconds === "number" ? { deltaSeconds: row.deltaSeconds } : {}),
          })),
        }),
      );
    }
    const finishTimeUtc = group.finishTimeUtc ?? null;
    if (group.state !== sent.state || finishTimeUtc !== sent.finishTimeUtc) {
      await call(() =>
        client.updateStartGroup({
          ...ids,
          state: STATE_ENUMS[group.state],
          ...(finishTimeUtc === null ? { clearFinishTime: true } : { finishTimeUtc: timestampFromMs(Date.parse(finishTimeUtc)) }),
        }),
      );
      sentState.set(group.id, { state: group.state, finishTimeUtc });
    }
    if (group.results) {
      const results = group.results;
      await call(() =>
        client.publishResults({
          ...ids,
          status: results.status === "final" ? IngestResultStatus.FINAL : IngestResultStatus.PROVISIONAL,
          publishedAtUtc: timestampFromMs(Date.parse(results.publishedAtUtc)),
          rows: results.rows.map((row) => ({
            entryId: row.entryId,
            status: row.status,
            ...(row.rank !== null ? { rank: row.rank } : {}),
            ...(typeof row.elapsedSeconds === "number" ? { elapsedSeconds: row.elapsedSeconds } : {}),
            ...(typeof row.correctedSeconds === "number" ? { correctedSeconds: row.correctedSeconds } : {}),
            ...(typeof row.points === "number" ? { points: row.points } : {}),
          })),
        }),
      );
    }
  };

  const tick = () => {
    if (inFlight || stopped) return; // a slow second is not overtaken by the next one
    const now = Math.min(Date.now(), endMs);
    const slice = sliceScenario(race, deliveredUpTo, now);
    const work = slice.events.flatMap((event) =>
      event.races.flatMap((r) =>
        r.startGroups.map((group) => deliverGroup(r.id, group, sentState.get(group.id) ?? { state: group.state, finishTimeUtc: null })),
      ),
    );
    inFlight = Promise.allSettled(work)
      .then((outcomes) => {
        // Anything failed: the whole second again next time (what was written counts as duplicates).
        if (outcomes.every((o) => o.status === "fulfilled")) deliveredUpTo = now;
        if (deliveredUpTo >= endMs) {
          stopped = true;
          clearInterval(timer);
          void pusher?.close();
          markFinished();
        }
      })
      .finally(() => {
        inFlight = null;
      });
  };
  const timer = setInterval(tick, options.tickMs ?? 1000);
  tick();
  return {
    totals,
    get deliveredUpTo() {
      return deliveredUpTo;
    },
    finished,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await inFlight;
      await pusher?.close();
      markFinished();
    },
  };
}

/** The newest time of anything in the race: when its feed is done. */
export function lastTimeOf(race: Scenario): number {
  let last = -Infinity;
  const at = (iso: string | null | undefined) => {
    if (iso) last = Math.max(last, Date.parse(iso));
  };
  for (const group of groupsOf(race)) {
    at(group.startTimeUtc);
    for (const course of group.courses ?? []) at(course.appliedFromUtc);
    for (const wind of group.wind ?? []) at(wind.measuredAtUtc);
    for (const reading of group.liveOrder ?? []) at(reading.asOfUtc);
    for (const finish of group.finishes ?? []) at(finish.finishTimeUtc);
    for (const track of group.tracks ?? []) if (track.t.length > 0) last = Math.max(last, track.t[track.t.length - 1]!);
    at(group.results?.publishedAtUtc);
  }
  return last;
}

export function groupsOf(race: Scenario): StartGroup[] {
  return race.events.flatMap((event) => event.races.flatMap((r) => r.startGroups));
}

type FixBatch = MessageInitShape<typeof AppendFixesRequestSchema> & { boats: Array<MessageInitShape<typeof BoatFixesSchema>> };

/** The group's tracks as AppendFixes requests of at most MAX_FIXES_PER_BATCH fixes (one, unless catching up). */
export function fixBatches(ids: { raceId: string; startGroupId: string }, tracks: readonly Track[]): FixBatch[] {
  const batches: FixBatch[] = [];
  let boats: FixBatch["boats"] = [];
  let fixes = 0;
  for (const track of tracks) {
    for (let from = 0; from < track.t.length; ) {
      const to = Math.min(track.t.length, from + MAX_FIXES_PER_BATCH - fixes);
      boats.push(boatFixes(track, from, to));
      fixes += to - from;
      from = to;
      if (fixes === MAX_FIXES_PER_BATCH) {
        batches.push({ ...ids, boats });
        boats = [];
        fixes = 0;
      }
    }
  }
  if (boats.length > 0) batches.push({ ...ids, boats });
  return batches;
}

/** NaN says "not reported" for speed and course (and unknown for accuracy). */
function boatFixes(track: Track, from: number, to: number): MessageInitShape<typeof BoatFixesSchema> {
  const column = (values: ReadonlyArray<number | null> | undefined) => (values ? values.slice(from, to).map((v) => v ?? NaN) : []);
  return {
    entryId: track.entryId,
    t: track.t.slice(from, to).map(BigInt),
    lat: track.lat.slice(from, to),
    lon: track.lon.slice(from, to),
    sogKn: column(track.sogKn),
    cogDeg: column(track.cogDeg),
    accuracyM: column(track.accuracyM),
  };
}
