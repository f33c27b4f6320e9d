// IngestService on the real listeners: Connect JSON exactly as the issue writes it,
// gRPC (a real @grpc/grpc-js client, StreamFixes included), Connect over HTTP/2 and
// gRPC-Web over HTTP/1.1; PushFixes alike on every HTTP/2 transport and refused on
// HTTP/1.1; the message size bound; and its absence from REST.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AppendFixesRequestSchema,
  AppendFixesResponseSchema,
  FixRejectionReason,
  IngestService,
  StreamFixesRequestSchema,
  StreamFixesResponseSchema,
  type StreamFixesRequest,
  type StreamFixesResponse,
} from "../../gen/racing/v1/ingest_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { bearer, connectCall, connectError, tokenFor, useApi } from "../support/api.js";
import { grpcClient, unary } from "../support/grpc.js";
import { boatFixes, INGEST_IDS as IDS, ingestScenario } from "../support/ingest-scenarios.js";
import { TEST_REFRESH_MS } from "../support/runtime.js";
import { snapshot } from "../support/snapshot.js";

const api = useApi({ scenario: ingestScenario, client: "writer" });

const now = () => Math.floor(Date.now() / 1000) * 1000;
const APPEND = "racing.v1.IngestService/AppendFixes";

function metadata(): grpc.Metadata {
  const m = new grpc.Metadata();
  m.set("authorization", `Bearer ${api.token}`);
  return m;
}

/** StreamFixes over a real gRPC client: writes every message, half-closes, resolves with the one answer. */
function streamFixes(
  client: grpc.Client,
  messages: Array<Parameters<typeof create<typeof StreamFixesRequestSchema>>[1]>,
): Promise<StreamFixesResponse> {
  return new Promise((resolve, reject) => {
    const call = client.makeClientStreamRequest(
      "/racing.v1.IngestService/StreamFixes",
      (message: StreamFixesRequest) => Buffer.from(toBinary(StreamFixesRequestSchema, message)),
      (bytes: Buffer) => fromBinary(StreamFixesResponseSchema, bytes),
      metadata(),
      (error, response) => (error ? reject(error) : resolve(response!)),
    );
    for (const message of messages) call.write(create(StreamFixesRequestSchema, message));
    call.end();
  });
}

function errorInfo(error: grpc.ServiceError) {
  const [details] = error.metadata.get("grpc-status-details-bin") as Buffer[];
  return details
    ? fromBinary(StatusSchema, details)
        .details.map((any) => anyUnpack(any, ErrorInfoSchema))
        .find((x) => x !== undefined)
    : undefined;
}

describe("Connect JSON over HTTP/1.1", () => {
  it("takes the issue's shape: camelCase fields, t as epoch-ms numbers, NaN for 'not reported'", async () => {
    const t = now() - 20_000;
    const body = {
      raceId: IDS.race,
      startGroupId: IDS.group,
      boats: [{ entryId: IDS.a, t: [t, t + 1000], lat: [50.71, 50.7101], lon: [-1.31, -1.3101], sogKn: [6.2, "NaN"], cogDeg: [45, 46] }],
    };
    const response = await connectCall(api.url, APPEND, body, bearer(api.token));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ accepted: 2 });
    const again = await connectCall(api.url, APPEND, body, bearer(api.token));
    expect(await again.json()).toEqual({ duplicates: 2 });
  });

  it("lists rejected fixes with entry, time and reason", async () => {
    const t = now() + 120_000;
    const response = await connectCall(
      api.url,
      APPEND,
      { raceId: IDS.race, startGroupId: IDS.group, boats: [{ entryId: IDS.a, t: [t], lat: [50.7], lon: [-1.3] }] },
      bearer(api.token),
    );
    expect(await response.json()).toEqual({ rejected: [{ entryId: IDS.a, t: String(t), reason: "FIX_REJECTION_REASON_IN_FUTURE" }] });
  });

  it.each([
    [
      "a string where numbers go",
      { raceId: IDS.race, startGroupId: IDS.group, boats: [{ entryId: IDS.a, t: ["soon"], lat: [1], lon: [1] }] },
    ],
    ["null inside an array", { raceId: IDS.race, startGroupId: IDS.group, boats: [{ entryId: IDS.a, t: [1], lat: [null], lon: [1] }] }],
    ["an unknown field", { raceId: IDS.race, startGroupId: IDS.group, fixes: [] }],
    ["not an object", [1, 2, 3]],
  ])("refuses %s as INVALID_ARGUMENT, writing nothing", async (_, body) => {
    const before = await snapshot(api.db.pool);
    const response = await connectCall(api.url, APPEND, body, bearer(api.token));
    expect(response.status).toBe(400);
    expect((await response.json()) as { code: string }).toMatchObject({ code: "invalid_argument" });
    expect(await snapshot(api.db.pool)).toEqual(before);
  });

  it("refuses a message over 8 MiB as RESOURCE_EXHAUSTED without reading it", async () => {
    const huge = {
      raceId: IDS.race,
      startGroupId: IDS.group,
      boats: [{ entryId: IDS.a, t: [], lat: [], lon: [], deviceId: "x".repeat(9 * 1024 * 1024) }],
    };
    const response = await connectCall(api.url, APPEND, huge, bearer(api.token));
    expect(response.status).toBe(429);
    expect(await response.json()).toMatchObject({ code: "resource_exhausted" });
  });

  it.each(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"])("answers %s with a client error, never a 5xx, writing nothing", async (method) => {
    const before = await snapshot(api.db.pool);
    const response = await fetch(`${api.url}/${APPEND}?message=${encodeURIComponent("{}")}&encoding=json`, {
      method,
      headers: bearer(api.token),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(await snapshot(api.db.pool)).toEqual(before);
  });

  it("answers the guard's errors with ErrorInfo, like every other RPC", async () => {
    const reader = await tokenFor(api.url, "reader");
    const denied = await connectCall(api.url, APPEND, { raceId: IDS.race, startGroupId: IDS.group }, bearer(reader));
    expect(await connectError(denied)).toMatchObject({
      code: "permission_denied",
      reason: "API_SCOPE_MISSING",
      metadata: { scope: "tracking:write" },
    });
  });
});

describe("gRPC (h2c) with a real client", () => {
  let client: grpc.Client;
  beforeAll(() => {
    client = grpcClient(api.grpcUrl);
  });
  afterAll(() => client?.close());

  it("AppendFixes answers its counts", async () => {
    const answer = await unary(
      client,
      "/racing.v1.IngestService/AppendFixes",
      AppendFixesRequestSchema,
      AppendFixesResponseSchema,
      { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.b, now() - 15_000, 4)] },
      metadata(),
    );
    expect({ accepted: answer.accepted, duplicates: answer.duplicates }).toEqual({ accepted: 4, duplicates: 0 });
  });

  it("StreamFixes commits each message and answers once with the sums", async () => {
    const t = now() - 50_000;
    const messages = [0, 1, 2].map((i) => ({
      raceId: IDS.race,
      startGroupId: IDS.group,
      boats: [boatFixes(IDS.a, t + i * 3000, 3), boatFixes(IDS.outsider, t + i * 3000, 1)],
    }));
    const answer = await streamFixes(client, messages);
    expect({
      accepted: answer.accepted,
      duplicates: answer.duplicates,
      reasons: answer.rejected.map((r) => FixRejectionReason[r.reason]),
    }).toEqual({
      accepted: 9,
      duplicates: 0,
      reasons: ["UNKNOWN_ENTRY", "UNKNOWN_ENTRY", "UNKNOWN_ENTRY"],
    });
    // Re-sending the whole call (no answer seen) creates nothing new.
    const again = await streamFixes(client, messages);
    expect({ accepted: again.accepted, duplicates: again.duplicates }).toEqual({ accepted: 0, duplicates: 9 });
  });

  it("StreamFixes ends at a malformed message, naming it; the messages before it stay committed", async () => {
    const t = now() - 70_000;
    const good = { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.b, t, 2)] };
    const bad = { raceId: IDS.race, startGroupId: IDS.group, boats: [{ ...boatFixes(IDS.b, t + 5000, 2), lat: [1] }] };
    const after = { raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.b, t + 10_000, 2)] };
    const error = (await streamFixes(client, [good, bad, after]).catch((e: unknown) => e)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errorInfo(error)).toMatchObject({ reason: "API_PARAM_INVALID", metadata: { name: "messages[1].boats[0].lat" } });
    const [rows] = await api.db.pool.query<Array<{ t: number } & import("mysql2").RowDataPacket>>(
      "SELECT f.t FROM fixes f JOIN entries e ON e.id = f.entry_id WHERE e.uuid = ? AND f.t BETWEEN ? AND ? ORDER BY f.t",
      [IDS.b, t, t + 20_000],
    );
    expect(rows.map((r) => Number(r.t))).toEqual([t, t + 1000]);
  });

  it("StreamFixes ends at a message that does not decode with INVALID_ARGUMENT, not an internal error", async () => {
    const error = await new Promise<grpc.ServiceError | null>((resolve) => {
      const call = client.makeClientStreamRequest(
        "/racing.v1.IngestService/StreamFixes",
        (bytes: Buffer) => bytes,
        (bytes: Buffer) => bytes,
        metadata(),
        (e) => resolve(e),
      );
      call.write(Buffer.from([0x0f, 0xff, 0xff]));
      call.end();
    });
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toBe("the request is not a valid racing.v1.StreamFixesRequest message");
  });

  it("StreamFixes needs tracking:write like every ingest call", async () => {
    const reader = await tokenFor(api.url, "reader");
    const m = new grpc.Metadata();
    m.set("authorization", `Bearer ${reader}`);
    const error = await new Promise<grpc.ServiceError>((resolve) => {
      const call = client.makeClientStreamRequest(
        "/racing.v1.IngestService/StreamFixes",
        (message: StreamFixesRequest) => Buffer.from(toBinary(StreamFixesRequestSchema, message)),
        (bytes: Buffer) => fromBinary(StreamFixesResponseSchema, bytes),
        m,
        (e) => resolve(e!),
      );
      call.write(create(StreamFixesRequestSchema, { raceId: IDS.race, startGroupId: IDS.group }));
      call.end();
    });
    expect(error.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(errorInfo(error)).toMatchObject({ reason: "API_SCOPE_MISSING", metadata: { scope: "tracking:write" } });
  });

  it("StreamFixes runs the guard for each message: a client disabled meanwhile is stopped within 5 s", async () => {
    const other = await tokenFor(api.url, "otherWriter");
    const m = new grpc.Metadata();
    m.set("authorization", `Bearer ${other}`);
    const t = now() - 30_000;
    const message = (k: number) =>
      create(StreamFixesRequestSchema, {
        raceId: IDS.otherRace,
        startGroupId: IDS.otherGroup,
        boats: [boatFixes(IDS.otherEntry, t + k * 1000, 1)],
      });
    let result: Promise<grpc.ServiceError | null>;
    const call = await new Promise<grpc.ClientWritableStream<StreamFixesRequest>>((resolve) => {
      let stream: grpc.ClientWritableStream<StreamFixesRequest>;
      result = new Promise((done) => {
        stream = client.makeClientStreamRequest(
          "/racing.v1.IngestService/StreamFixes",
          (message: StreamFixesRequest) => Buffer.from(toBinary(StreamFixesRequestSchema, message)),
          (bytes: Buffer) => fromBinary(StreamFixesResponseSchema, bytes),
          m,
          (error) => done(error),
        );
      });
      resolve(stream!);
    });
    call.write(message(0));
    // Until the first message is committed.
    for (let tries = 0; tries < 100; tries++) {
      const [[row]] = await api.db.pool.query<import("mysql2").RowDataPacket[]>(
        "SELECT 1 FROM fixes f JOIN entries e ON e.id = f.entry_id WHERE e.uuid = ? AND f.t = ?",
        [IDS.otherEntry, t],
      );
      if (row) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await api.db.pool.query("UPDATE api_clients SET disabled = TRUE WHERE client_id = 'otherWriter'");
    try {
      // Past the client state's age (5 s in production, short in tests).
      await new Promise((resolve) => setTimeout(resolve, TEST_REFRESH_MS + 300));
      call.write(message(1));
      call.end();
      const error = await result!;
      expect(error?.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(errorInfo(error!)).toMatchObject({ reason: "API_CLIENT_DISABLED" });
      const [rows] = await api.db.pool.query<Array<{ t: number } & import("mysql2").RowDataPacket>>(
        "SELECT f.t FROM fixes f JOIN entries e ON e.id = f.entry_id WHERE e.uuid = ? AND f.t BETWEEN ? AND ? ORDER BY f.t",
        [IDS.otherEntry, t, t + 5000],
      );
      // The message before the disable is committed; the one after is not.
      expect(rows.map((r) => Number(r.t))).toEqual([t]);
    } finally {
      await api.db.pool.query("UPDATE api_clients SET disabled = FALSE WHERE client_id = 'otherWriter'");
    }
  });

  it("a StreamFixes with no message answers zeros", async () => {
    const answer = await streamFixes(client, []);
    expect({ accepted: answer.accepted, duplicates: answer.duplicates, rejected: answer.rejected }).toEqual({
      accepted: 0,
      duplicates: 0,
      rejected: [],
    });
  });
});

describe("the other transports", () => {
  it("serves Connect over HTTP/2 on the gRPC port and gRPC-Web over HTTP/1.1", async () => {
    const headers = bearer(api.token);
    const http2 = createClient(IngestService, createConnectTransport({ baseUrl: api.grpcUrl, httpVersion: "2" }));
    const web = createClient(IngestService, createGrpcWebTransport({ baseUrl: api.url, httpVersion: "1.1" }));
    const t = now() - 90_000;
    expect(
      (await http2.appendFixes({ raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.a, t, 2)] }, { headers })).accepted,
    ).toBe(2);
    expect(
      (await web.appendFixes({ raceId: IDS.race, startGroupId: IDS.group, boats: [boatFixes(IDS.a, t, 3)] }, { headers })).duplicates,
    ).toBe(2);
  });
});

describe("PushFixes on each transport", () => {
  const PUSH_PATH = "racing.v1.IngestService/PushFixes";
  // A group of its own: no other test of this file writes its keys.
  const batch = (sequence: bigint, t: number) => ({
    sequence,
    raceId: IDS.race,
    startGroupId: IDS.noGun,
    boats: [boatFixes(IDS.b, t, 2), boatFixes(IDS.b, t, 0)],
  });
  async function* messages(...requests: ReturnType<typeof batch>[]) {
    yield* requests;
  }
  const answers = async (
    responses: AsyncIterable<{ sequence: bigint; accepted: number; duplicates: number; error?: { reason: string } }>,
  ) => {
    const seen = [];
    for await (const r of responses) seen.push([Number(r.sequence), r.accepted, r.duplicates, r.error?.reason ?? null]);
    return seen;
  };

  it("answers alike on gRPC and on Connect over HTTP/2 (binary and JSON)", async () => {
    const t = now() - 25_000;
    const headers = bearer(api.token);
    const grpcAnswers = await answers(
      createClient(IngestService, createGrpcTransport({ baseUrl: api.grpcUrl })).pushFixes(messages(batch(1n, t), batch(2n, t + 5000)), {
        headers,
      }),
    );
    const connectBinary = await answers(
      createClient(IngestService, createConnectTransport({ baseUrl: api.grpcUrl, httpVersion: "2", useBinaryFormat: true })).pushFixes(
        messages(batch(1n, t), batch(2n, t + 5000)),
        { headers },
      ),
    );
    const connectJson = await answers(
      createClient(IngestService, createConnectTransport({ baseUrl: api.grpcUrl, httpVersion: "2" })).pushFixes(
        messages(batch(1n, t), batch(2n, t + 5000)),
        { headers },
      ),
    );
    // A repeated entry is refused as a whole on each: the same answer in its place.
    expect(grpcAnswers).toEqual([
      [1, 0, 0, "API_PARAM_INVALID"],
      [2, 0, 0, "API_PARAM_INVALID"],
    ]);
    expect(connectBinary).toEqual(grpcAnswers);
    expect(connectJson).toEqual(grpcAnswers);
    const single = (sequence: bigint, k: number) => ({ ...batch(sequence, t + k * 5000), boats: [boatFixes(IDS.b, t + k * 5000, 2)] });
    const fresh = await answers(
      createClient(IngestService, createGrpcTransport({ baseUrl: api.grpcUrl })).pushFixes(messages(single(1n, 0), single(2n, 1)), {
        headers,
      }),
    );
    expect(fresh).toEqual([
      [1, 2, 0, null],
      [2, 2, 0, null],
    ]);
    const againOnConnect = await answers(
      createClient(IngestService, createConnectTransport({ baseUrl: api.grpcUrl, httpVersion: "2" })).pushFixes(
        messages(single(1n, 0), single(2n, 1)),
        {
          headers,
        },
      ),
    );
    expect(againOnConnect).toEqual([
      [1, 0, 2, null],
      [2, 0, 2, null],
    ]);
  });

  it.each([
    ["Connect", "application/connect+json"],
    ["Connect", "application/connect+proto"],
    ["gRPC-Web", "application/grpc-web+proto"],
  ])("is refused over HTTP/1.1 (%s, %s) with 505 HTTP Version Not Supported, writing nothing", async (_, contentType) => {
    const before = await snapshot(api.db.pool);
    const response = await fetch(`${api.url}/${PUSH_PATH}`, {
      method: "POST",
      headers: { ...bearer(api.token), "content-type": contentType },
      body: new Uint8Array(5),
    });
    expect(response.status).toBe(505);
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.json()).toEqual({
      code: "unimplemented",
      message: "racing.v1.IngestService/PushFixes is a two-way stream and needs HTTP/2: gRPC, or Connect over HTTP/2 on the gRPC port",
    });
    expect(await snapshot(api.db.pool)).toEqual(before);
  });

  it("fails on a Connect client over HTTP/1.1 without hanging", async () => {
    const http1 = createClient(IngestService, createConnectTransport({ baseUrl: api.url, httpVersion: "1.1" }));
    const error = await answers(http1.pushFixes(messages(batch(1n, now())), { headers: bearer(api.token) })).catch((e: unknown) =>
      ConnectError.from(e),
    );
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).message).toMatch(/505/);
  });
});

describe("the REST surface", () => {
  it("has no ingest route and no ingest operation in its OpenAPI document", async () => {
    const document = await (await fetch(`${api.url}/api/v1/openapi.json`)).text();
    expect(document).not.toMatch(/IngestService|AppendFixes|StreamFixes|PushFixes|INGEST_CONFLICT/);
    for (const path of [`/api/v1/races/${IDS.race}/fixes`, "/api/v1/ingest/fixes", "/api/v1/racing.v1.IngestService/AppendFixes"]) {
      const response = await fetch(`${api.url}${path}`, {
        method: "POST",
        headers: { ...bearer(api.token), "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status, path).toBe(404);
    }
  });
});
