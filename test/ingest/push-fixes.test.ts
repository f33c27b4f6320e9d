// PushFixes, the acknowledged two-way stream, through a real @grpc/grpc-js client on
// the h2c listener (the gRPC surface is what a platform uses): one answer per message,
// with its sequence, as it commits and in order; a message's own refusal answered in
// its place; the guard when the call opens and for each message; the bounded answer;
// and StreamFixes' answer bounded by the same rule.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import type { RowDataPacket } from "mysql2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema, RetryInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import {
  FixRejectionReason,
  PushFixesRequestSchema,
  PushFixesResponseSchema,
  StreamFixesRequestSchema,
  StreamFixesResponseSchema,
  type PushFixesResponse,
  type StreamFixesRequest,
  type StreamFixesResponse,
} from "../../gen/racing/v1/ingest_pb.js";
import { createFixPusher, createIngestClient } from "../../src/sim/ingest-client.js";
import { LISTED_REJECTIONS } from "../../src/ingest/fix-answers.js";
import { registry } from "../../src/telemetry/metrics.js";
import { CLUB, secretOf, startApi, tokenFor, useApi } from "../support/api.js";
import { grpcClient, openBidi } from "../support/grpc.js";
import { boatFixes, INGEST_IDS as IDS, ingestScenario, refusal } from "../support/ingest-scenarios.js";
import { within } from "../support/load.js";
import { snapshot } from "../support/snapshot.js";

/** The other club's writer may make 4 ingest calls a minute: the bucket test's budget. */
const OTHER_LIMIT = 4;
const api = useApi({
  scenario: () => {
    const scenario = ingestScenario();
    scenario.clubs[2] = { ...scenario.clubs[2]!, ingestRateLimitPerMinute: OTHER_LIMIT };
    // The writer's club's second client, disabled by one test.
    scenario.clients.push({ clientId: "laterDisabled", clientSecret: secretOf("laterDisabled"), clubId: CLUB, scopes: ["tracking:write"] });
    return scenario;
  },
  client: "writer",
});

const PUSH = "/racing.v1.IngestService/PushFixes";
const now = () => Math.floor(Date.now() / 1000) * 1000;
let calls = 0;
/** `agoMs` before now, plus a millisecond no other call has: tests of this file never write the same key. */
const recent = (agoMs: number) => now() - agoMs + ++calls;

let client: grpc.Client;
beforeAll(() => {
  client = grpcClient(api.grpcUrl);
});
afterAll(() => client?.close());

function metadata(token: string | null = api.token): grpc.Metadata {
  const m = new grpc.Metadata();
  if (token !== null) m.set("authorization", `Bearer ${token}`);
  return m;
}

const push = (token?: string | null) => openBidi(client, PUSH, PushFixesRequestSchema, PushFixesResponseSchema, metadata(token));

function errorDetails(error: grpc.ServiceError) {
  const [details] = error.metadata.get("grpc-status-details-bin") as Buffer[];
  const status = details ? fromBinary(StatusSchema, details) : undefined;
  return {
    info: status?.details.map((any) => anyUnpack(any, ErrorInfoSchema)).find((x) => x !== undefined),
    retry: status?.details.map((any) => anyUnpack(any, RetryInfoSchema)).find((x) => x !== undefined),
  };
}

/** The counts of an answer, without the protobuf-es type marker. */
const counts = (answer: PushFixesResponse) => ({
  sequence: Number(answer.sequence),
  accepted: answer.accepted,
  duplicates: answer.duplicates,
  rejected: answer.rejected.map((r) => FixRejectionReason[r.reason]),
  unlisted: answer.rejectedUnlisted.map((r) => [FixRejectionReason[r.reason], r.count]),
  error: answer.error ? { reason: answer.error.reason, metadata: { ...answer.error.metadata } } : undefined,
});

async function storedTimes(entryId: string, fromMs: number, toMs: number): Promise<number[]> {
  const [rows] = await api.db.pool.query<Array<{ t: number } & RowDataPacket>>(
    "SELECT f.t FROM fixes f JOIN entries e ON e.id = f.entry_id WHERE e.uuid = ? AND f.t BETWEEN ? AND ? ORDER BY f.t",
    [entryId, fromMs, toMs],
  );
  return rows.map((r) => Number(r.t));
}

describe("PushFixes over gRPC", () => {
  it("answers each message with its sequence once it has committed, while the stream stays open", async () => {
    const t = recent(60_000);
    const call = push();
    for (const [i, sequence] of [7n, 8n, 9n].entries()) {
      call.write({ sequence, raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.a, t + i * 3000, 3)] });
      const answer = await call.next();
      expect(counts(answer)).toMatchObject({ sequence: Number(sequence), accepted: 3, duplicates: 0, rejected: [], unlisted: [] });
      // Answered means committed: the fixes are there before the next message is even sent.
      expect(await storedTimes(IDS.a, t + i * 3000, t + i * 3000 + 2000)).toHaveLength(3);
    }
    call.end();
    expect(await call.ended).toBeNull();
  });

  it("takes messages sent ahead one at a time and answers them in the order sent; a repeated or out-of-order sequence is answered again", async () => {
    const t = recent(90_000);
    const message = (sequence: bigint, k: number) => ({
      sequence,
      raceId: IDS.race,
      startGroupId: IDS.group,
      boats: [boatFixes(IDS.b, t + k * 2000, 2), boatFixes(IDS.outsider, t + k * 2000, 1)],
    });
    const call = push();
    // Sent without waiting: 3, 1, 2, then 1 again (a re-send) and 2 with another batch.
    const sent = [message(3n, 0), message(1n, 1), message(2n, 2), message(1n, 1), message(2n, 3)];
    for (const m of sent) call.write(m);
    call.end();
    const answers = [];
    for (let i = 0; i < sent.length; i++) answers.push(counts(await call.next()));
    expect(await call.ended).toBeNull();
    expect(answers.map((a) => [a.sequence, a.accepted, a.duplicates, a.rejected])).toEqual([
      [3, 2, 0, ["UNKNOWN_ENTRY"]],
      [1, 2, 0, ["UNKNOWN_ENTRY"]],
      [2, 2, 0, ["UNKNOWN_ENTRY"]],
      [1, 0, 2, ["UNKNOWN_ENTRY"]],
      [2, 2, 0, ["UNKNOWN_ENTRY"]],
    ]);
    expect(await storedTimes(IDS.b, t, t + 10_000)).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000].map((d) => t + d));
  });

  it("answers a malformed message in its place, naming the field, and goes on: it wrote nothing, the others are committed", async () => {
    const t = recent(45_000);
    const call = push();
    const before = await snapshot(api.db.pool);
    call.write({ sequence: 1n, raceId: IDS.race, startGroupId: IDS.group, boats: [{ ...boatFixes(IDS.a, t, 2), lat: [1] }] });
    expect(counts(await call.next())).toEqual({
      sequence: 1,
      accepted: 0,
      duplicates: 0,
      rejected: [],
      unlisted: [],
      error: { reason: "API_PARAM_INVALID", metadata: { name: "boats[0].lat" } },
    });
    expect(await snapshot(api.db.pool)).toEqual(before);
    call.write({ sequence: 2n, raceId: IDS.otherRace, startGroupId: IDS.otherGroup, boats: [boatFixes(IDS.otherEntry, t, 1)] });
    expect(counts(await call.next()).error).toEqual({ reason: "RACE_NOT_FOUND", metadata: {} });
    call.write({ sequence: 3n, raceId: IDS.race, startGroupId: "not-a-uuid", boats: [] });
    expect(counts(await call.next()).error).toEqual({ reason: "API_PARAM_INVALID", metadata: { name: "startGroupId" } });
    call.write({ sequence: 4n, raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.a, t, 2)] });
    expect(counts(await call.next())).toMatchObject({ sequence: 4, accepted: 2, error: undefined });
    call.end();
    expect(await call.ended).toBeNull();
    expect(await storedTimes(IDS.a, t, t + 1000)).toEqual([t, t + 1000]);
  });

  it("lists at most 100 refused fixes of a message and counts the rest per reason", async () => {
    const t = recent(150_000);
    const n = 20_000; // the most one message may hold
    const outOfRange = { ...boatFixes(IDS.a, t - n * 1000, n), lat: Array.from({ length: n }, () => 91) };
    const call = push();
    call.write({
      sequence: 1n,
      raceId: IDS.race,
      startGroupId: IDS.group,
      boats: [outOfRange],
    });
    const answer = await call.next();
    call.end();
    expect(await call.ended).toBeNull();
    expect(answer.rejected).toHaveLength(LISTED_REJECTIONS);
    expect(answer.rejected.map((r) => Number(r.t))).toEqual(outOfRange.t.slice(0, LISTED_REJECTIONS).map(Number));
    expect(counts(answer).unlisted).toEqual([["OUT_OF_RANGE", n - LISTED_REJECTIONS]]);
  });

  it("counts the unlisted per reason in the enum's order, and all add up to the fixes sent", async () => {
    const t = recent(40_000);
    const call = push();
    const unknown = boatFixes(IDS.outsider, t, 150);
    const future = boatFixes(IDS.b, now() + 60_000, 30);
    const fine = boatFixes(IDS.a, t, 5);
    call.write({ sequence: 5n, raceId: IDS.race, startGroupId: IDS.group, boats: [future, unknown, fine] });
    const answer = counts(await call.next());
    call.end();
    await call.ended;
    expect(answer.rejected.slice(0, 30)).toEqual(Array.from({ length: 30 }, () => "IN_FUTURE"));
    expect(answer.rejected.slice(30)).toEqual(Array.from({ length: 70 }, () => "UNKNOWN_ENTRY"));
    expect(answer.unlisted).toEqual([["UNKNOWN_ENTRY", 80]]);
    const unlisted = answer.unlisted.reduce((sum, [, count]) => sum + Number(count), 0);
    expect(answer.accepted + answer.duplicates + answer.rejected.length + unlisted).toBe(185);
  });

  it("ends the call at a message that does not decode: the messages answered before it stay", async () => {
    const t = recent(30_000);
    const call = push();
    call.write({ sequence: 1n, raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.b, t, 1)] });
    expect(counts(await call.next()).accepted).toBe(1);
    call.writeRaw(Buffer.from([0x0f, 0xff, 0xff]));
    const error = await call.ended;
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toBe("the request is not a valid racing.v1.PushFixesRequest message");
    expect(await storedTimes(IDS.b, t, t)).toEqual([t]);
  });
});

describe("PushFixes' guard", () => {
  it("runs when the call opens: without a token the call ends before any message is sent", async () => {
    const call = push(null);
    const error = await call.ended;
    expect(error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(errorDetails(error!).info).toMatchObject({ reason: "API_TOKEN_MISSING" });
  });

  it("needs tracking:write before any message is sent", async () => {
    const call = push(await tokenFor(api.url, "reader"));
    const error = await call.ended;
    expect(error?.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(errorDetails(error!).info).toMatchObject({ reason: "API_SCOPE_MISSING", metadata: { scope: "tracking:write" } });
  });

  it("counts the opening and each message against the ingest bucket; the message past it ends the call with RESOURCE_EXHAUSTED and RetryInfo, writing nothing", async () => {
    const t = recent(30_000);
    const call = push(await tokenFor(api.url, "otherWriter"));
    const message = (k: number) => ({
      sequence: BigInt(k),
      raceId: IDS.otherRace,
      startGroupId: IDS.otherGroup,
      boats: [boatFixes(IDS.otherEntry, t + k * 1000, 1)],
    });
    // The opening took one call of OTHER_LIMIT; each message takes one more.
    for (let k = 1; k < OTHER_LIMIT; k++) {
      call.write(message(k));
      expect(counts(await call.next())).toMatchObject({ sequence: k, accepted: 1 });
    }
    call.write(message(OTHER_LIMIT));
    const error = await call.ended;
    expect(error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    const { info, retry } = errorDetails(error!);
    expect(info).toMatchObject({ reason: "RATE_LIMIT_EXCEEDED" });
    expect(Number(retry?.retryDelay?.seconds)).toBe(60);
    expect(await storedTimes(IDS.otherEntry, t, t + 10_000)).toEqual(Array.from({ length: OTHER_LIMIT - 1 }, (_, k) => t + (k + 1) * 1000));
  });

  it("runs for each message: a client disabled meanwhile is stopped within 5 s, and what was answered stays", async () => {
    const t = recent(40_000);
    const call = push(await tokenFor(api.url, "laterDisabled"));
    call.write({ sequence: 1n, raceId: IDS.race, startGroupId: IDS.noGun, boats: [boatFixes(IDS.a, t, 1)] });
    expect(counts(await call.next()).accepted).toBe(1);
    await api.db.pool.query("UPDATE api_clients SET disabled = TRUE WHERE client_id = 'laterDisabled'");
    try {
      await new Promise((resolve) => setTimeout(resolve, 5500));
      call.write({ sequence: 2n, raceId: IDS.race, startGroupId: IDS.noGun, boats: [boatFixes(IDS.a, t + 1000, 1)] });
      const error = await call.ended;
      expect(error?.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(errorDetails(error!).info).toMatchObject({ reason: "API_CLIENT_DISABLED" });
      const [rows] = await api.db.pool.query<Array<{ t: number } & RowDataPacket>>(
        "SELECT f.t FROM fixes f JOIN entries e ON e.id = f.entry_id JOIN start_groups g ON g.id = f.start_group_id WHERE e.uuid = ? AND g.uuid = ? ORDER BY f.t",
        [IDS.a, IDS.noGun],
      );
      expect(rows.map((r) => Number(r.t))).toEqual([t]);
    } finally {
      await api.db.pool.query("UPDATE api_clients SET disabled = FALSE WHERE client_id = 'laterDisabled'");
    }
  });
});

describe("PushFixes and shutdown", () => {
  it("ends an open stream (OK) when the server stops, after answering the message under way, so the server does not wait for the client", async () => {
    const t = recent(20_000);
    const stopping = await startApi(api.db);
    const own = grpcClient(stopping.grpcUrl);
    try {
      const call = openBidi(own, PUSH, PushFixesRequestSchema, PushFixesResponseSchema, metadata());
      call.write({ sequence: 1n, raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.b, t, 1)] });
      expect(counts(await call.next())).toMatchObject({ sequence: 1, accepted: 1 });
      // The client keeps the stream open and sends nothing more.
      await stopping.close();
      expect(await call.ended).toBeNull();
      expect(await storedTimes(IDS.b, t, t)).toEqual([t]);
    } finally {
      own.close();
    }
  });
});

describe("StreamFixes and shutdown", () => {
  it("ends an open call UNAVAILABLE when the server stops, after committing the message under way, so the server does not wait for the client", async () => {
    const t = recent(20_000);
    const stopping = await startApi(api.db);
    const own = grpcClient(stopping.grpcUrl);
    try {
      const ended = new Promise<grpc.ServiceError | null>((resolve) => {
        const call = own.makeClientStreamRequest(
          "/racing.v1.IngestService/StreamFixes",
          (message: StreamFixesRequest) => Buffer.from(toBinary(StreamFixesRequestSchema, message)),
          (bytes: Buffer) => fromBinary(StreamFixesResponseSchema, bytes),
          metadata(),
          (error) => resolve(error),
        );
        call.write(create(StreamFixesRequestSchema, { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.b, t, 1)] }));
        // The client keeps the call open and sends nothing more.
      });
      await within(10_000, async () => expect(await storedTimes(IDS.b, t, t)).toEqual([t]));
      await stopping.close();
      expect((await ended)?.code).toBe(grpc.status.UNAVAILABLE);
      expect(await storedTimes(IDS.b, t, t)).toEqual([t]);
    } finally {
      own.close();
    }
  });
});

describe("our tools' pusher (createFixPusher)", () => {
  const pushStreams = async () =>
    (await registry.getSingleMetric("race_api_requests_total")!.get()).values
      .filter((v) => v.labels.surface === "grpc" && v.labels.route === "racing.v1.IngestService/PushFixes")
      .reduce((n, v) => n + v.value, 0);
  const ingest = () => createIngestClient({ url: api.url, grpcUrl: api.grpcUrl, clientId: "writer", clientSecret: secretOf("writer") });
  const batch = (t: number) => ({ raceId: IDS.race, startGroupId: IDS.noGun, boats: [boatFixes(IDS.b, t, 1)] });

  it("keeps one stream for its batches, rejects a refused one with its ErrorInfo and goes on", async () => {
    const t = recent(50_000);
    const before = await pushStreams();
    const pusher = createFixPusher(ingest());
    const answers = await Promise.all([pusher.push(batch(t)), pusher.push(batch(t + 1000))]);
    expect(answers.map((a) => [Number(a.sequence), a.accepted])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(await refusal(pusher.push({ ...batch(t), startGroupId: "nope" }))).toMatchObject({
      code: "InvalidArgument",
      reason: "API_PARAM_INVALID",
      metadata: { name: "startGroupId" },
    });
    expect((await pusher.push(batch(t))).duplicates).toBe(1);
    await pusher.close();
    expect(await pushStreams()).toBe(before + 1);
  });

  it("opens a new stream once its stream is older than its limit (4 minutes: its token always has 5 left)", async () => {
    const t = recent(50_000);
    const before = await pushStreams();
    const pusher = createFixPusher(ingest(), { maxStreamAgeMs: 0 });
    for (let k = 0; k < 3; k++) expect((await pusher.push(batch(t + k * 1000))).accepted).toBe(1);
    await pusher.close();
    expect(await pushStreams()).toBe(before + 3);
  });
});

describe("StreamFixes' answer", () => {
  it("stays small however many fixes the call refused: 12 messages of 20,000 out-of-range fixes are answered, 100 listed and the rest counted", async () => {
    const t = recent(300_000);
    const n = 20_000;
    const boat = { ...boatFixes(IDS.b, t - n * 1000, n), lat: Array.from({ length: n }, () => -91) };
    const answer = await new Promise<StreamFixesResponse>((resolve, reject) => {
      const call = client.makeClientStreamRequest(
        "/racing.v1.IngestService/StreamFixes",
        (message: StreamFixesRequest) => Buffer.from(toBinary(StreamFixesRequestSchema, message)),
        (bytes: Buffer) => fromBinary(StreamFixesResponseSchema, bytes),
        metadata(),
        (error, response) => (error ? reject(error) : resolve(response!)),
      );
      for (let m = 0; m < 12; m++)
        call.write(create(StreamFixesRequestSchema, { raceId: IDS.race, startGroupId: IDS.group, boats: [boat] }));
      call.end();
    });
    expect(answer.accepted + answer.duplicates).toBe(0);
    expect(answer.rejected).toHaveLength(LISTED_REJECTIONS);
    expect(answer.rejectedUnlisted.map((r) => [FixRejectionReason[r.reason], r.count])).toEqual([
      ["OUT_OF_RANGE", 12 * n - LISTED_REJECTIONS],
    ]);
  }, 60_000);
});
