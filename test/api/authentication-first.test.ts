// Authentication comes first on every RPC and every protocol: a call is admitted (the
// guard, then one charge) when it opens, before its body is read or decoded. A message
// that does not decode, is too big or never comes is refused for the token first, and
// an empty client stream is refused or charged like any call. Real listeners: the
// order is about what the server reads off the wire.

import { fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import {
  StreamFixesRequestSchema,
  StreamFixesResponseSchema,
  type StreamFixesRequest,
  type StreamFixesResponse,
} from "../../gen/racing/v1/ingest_pb.js";
import { bearer, connectCall, connectError, tokenFor, useApi } from "../support/api.js";
import { grpcClient } from "../support/grpc.js";
import { INGEST_IDS as IDS, ingestScenario } from "../support/ingest-scenarios.js";
import { envelope, rawGrpcCall } from "../support/raw-http.js";

const api = useApi({ scenario: ingestScenario, client: "writer" });

const GET_RACE_LIVE = "racing.v1.RaceLiveService/GetRaceLive";
const STREAM_FIXES = "racing.v1.IngestService/StreamFixes";
// Field 1 with wire type 7, which does not exist.
const BAD_PROTO = Buffer.from([0x0f]);

const post = (path: string, contentType: string, body: Buffer | string, headers: Record<string, string> = {}) =>
  fetch(`${api.url}/${path}`, { method: "POST", headers: { "content-type": contentType, ...headers }, body });

/** The end-of-stream error of a Connect streaming answer: its last frame. */
async function endStreamError(response: Response): Promise<{ code: string; reason: string | undefined }> {
  let bytes = Buffer.from(await response.arrayBuffer());
  while (bytes[0] !== 0x02 && bytes.length > 5) bytes = bytes.subarray(5 + bytes.readUInt32BE(1));
  expect(bytes[0]).toBe(0x02);
  const end = JSON.parse(bytes.subarray(5).toString("utf8")) as {
    error?: { code: string; details?: Array<{ debug?: { reason?: string } }> };
  };
  return { code: end.error?.code ?? "ok", reason: end.error?.details?.[0]?.debug?.reason };
}

/** The gRPC-Web status, from the headers (trailers-only) or the trailer frame. */
async function grpcWebStatus(response: Response): Promise<string | null> {
  if (response.headers.get("grpc-status") !== null) return response.headers.get("grpc-status");
  const bytes = Buffer.from(await response.arrayBuffer());
  return /grpc-status: ?(\d+)/.exec(bytes.subarray(5).toString("utf8"))?.[1] ?? null;
}

describe("a message that does not decode, sent without a token", () => {
  it("Connect: is refused with API_TOKEN_MISSING, not invalid_argument, whatever its body and compression", async () => {
    for (const response of [
      await post(GET_RACE_LIVE, "application/proto", BAD_PROTO),
      await post(GET_RACE_LIVE, "application/json", "{"),
      await post(GET_RACE_LIVE, "application/json", "not gzip", { "content-encoding": "gzip" }),
      await post(GET_RACE_LIVE, "application/json", "{}", { "content-encoding": "zstd" }),
    ]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="race-api"');
      expect(await connectError(response)).toMatchObject({ code: "unauthenticated", reason: "API_TOKEN_MISSING" });
    }
  });

  it("Connect streams: ends the stream with API_TOKEN_MISSING", async () => {
    const response = await post("racing.v1.RaceLiveService/WatchRaceLive", "application/connect+proto", envelope(BAD_PROTO));
    expect(await endStreamError(response)).toEqual({ code: "unauthenticated", reason: "API_TOKEN_MISSING" });
  });

  it("gRPC-Web: answers grpc-status 16 (UNAUTHENTICATED)", async () => {
    expect(await grpcWebStatus(await post(GET_RACE_LIVE, "application/grpc-web+proto", envelope(BAD_PROTO)))).toBe("16");
  });

  it("gRPC (h2c): answers grpc-status 16 (UNAUTHENTICATED)", async () => {
    expect((await rawGrpcCall(api.grpcUrl, GET_RACE_LIVE, envelope(BAD_PROTO))).grpcStatus).toBe("16");
    // With a token lacking the scope: PERMISSION_DENIED, still before the body.
    const reader = await tokenFor(api.url, "reader");
    expect((await rawGrpcCall(api.grpcUrl, STREAM_FIXES, envelope(BAD_PROTO), bearer(reader))).grpcStatus).toBe("7");
  });

  it("over 8 MiB: is refused for the token, not for its size", async () => {
    const huge = { raceId: IDS.race, boats: [{ entryId: IDS.a, deviceId: "x".repeat(9 * 1024 * 1024) }] };
    const response = await connectCall(api.url, "racing.v1.IngestService/AppendFixes", huge);
    expect(await connectError(response)).toMatchObject({ code: "unauthenticated", reason: "API_TOKEN_MISSING" });
  });

  it("REST: a parameter the route refuses is answered after the token (401), then after the scope (403)", async () => {
    const problem = async (path: string, token?: string) => {
      const response = await fetch(`${api.url}/api/v1${path}`, { headers: token ? bearer(token) : {} });
      return { status: response.status, code: ((await response.json()) as { code: string }).code };
    };
    for (const path of ["/events?page=0x2", "/events?pageSize=1000", `/races/${IDS.race}/track?since=yesterday`]) {
      expect(await problem(path)).toEqual({ status: 401, code: "API_TOKEN_MISSING" });
      expect(await problem(path, api.token)).toEqual({ status: 403, code: "API_SCOPE_MISSING" });
    }
    const reader = await tokenFor(api.url, "reader");
    expect(await problem("/events?page=0x2", reader)).toEqual({ status: 400, code: "API_PARAM_INVALID" });
  });
});

describe("an empty StreamFixes", () => {
  /** StreamFixes over a real gRPC client with no message at all. */
  function emptyStream(token: string | undefined): Promise<{ error: grpc.ServiceError | null; answer?: StreamFixesResponse }> {
    const client = grpcClient(api.grpcUrl);
    const metadata = new grpc.Metadata();
    if (token) metadata.set("authorization", `Bearer ${token}`);
    return new Promise((resolve) => {
      const call = client.makeClientStreamRequest(
        `/${STREAM_FIXES}`,
        (message: StreamFixesRequest) => Buffer.from(toBinary(StreamFixesRequestSchema, message)),
        (bytes: Buffer) => fromBinary(StreamFixesResponseSchema, bytes),
        metadata,
        (error, answer) => {
          client.close();
          resolve({ error, answer });
        },
      );
      call.end();
    });
  }

  it("gRPC: is refused without a token (UNAUTHENTICATED) and with a tracking:read one (PERMISSION_DENIED)", async () => {
    expect((await emptyStream(undefined)).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await emptyStream(await tokenFor(api.url, "reader"))).error?.code).toBe(grpc.status.PERMISSION_DENIED);
    const allowed = await emptyStream(api.token);
    expect(allowed.error).toBeNull();
    expect(allowed.answer?.accepted).toBe(0);
  });

  it("Connect: is refused without a token, and with one is charged once against the ingest bucket", async () => {
    const empty = (headers: Record<string, string>) => post(STREAM_FIXES, "application/connect+json", Buffer.alloc(0), headers);
    expect(await endStreamError(await empty({}))).toEqual({ code: "unauthenticated", reason: "API_TOKEN_MISSING" });
    const remaining = (response: Response) => Number(/r=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1]);
    const before = remaining(await connectCall(api.url, "racing.v1.IngestService/AppendFixes", { raceId: IDS.race }, bearer(api.token)));
    const answered = await empty(bearer(api.token));
    expect(remaining(answered)).toBe(before - 1);
    expect(await endStreamError(answered)).toEqual({ code: "ok", reason: undefined });
  });

  it("a message after the opening is admitted again: each counts against the bucket", async () => {
    const frame = (message: object) => envelope(Buffer.from(JSON.stringify(message)));
    const message = frame({ raceId: IDS.race, startGroupId: IDS.group });
    const remaining = (response: Response) => Number(/r=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1]);
    const before = remaining(await connectCall(api.url, "racing.v1.IngestService/AppendFixes", { raceId: IDS.race }, bearer(api.token)));
    const answered = await post(STREAM_FIXES, "application/connect+json", Buffer.concat([message, message]), bearer(api.token));
    // The opening and two messages; the answer (sent at the end) carries the standing after the last.
    expect(remaining(answered)).toBe(before - 3);
    const after = remaining(await connectCall(api.url, "racing.v1.IngestService/AppendFixes", { raceId: IDS.race }, bearer(api.token)));
    expect(after).toBe(before - 4);
    expect(await endStreamError(answered)).toEqual({ code: "ok", reason: undefined });
  });
});
