// Requests no well-behaved client sends, and the answers the spec still owes them:
// a malformed percent-encoding in a path id, bodies the token endpoint cannot read,
// request lines and headers the HTTP parser refuses, RPC bodies that do not decode on
// any surface, a client aborting its body, and HEAD on the streams.

import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importScenario } from "../../src/scenario/import.js";
import { bearer, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { envelope, rawGrpcCall, rawRequest, type RawAnswer } from "../support/raw-http.js";
import { EVENT, RACE, liveScenario } from "../support/race-scenarios.js";
import { TEST_BASE_URL } from "../support/runtime.js";
import { openSse, type SseStream } from "../support/sse.js";

const STREAMS_PER_CLIENT = 2;

const db = useFreshDatabase();
let api: Api;
let token: string;
/** Everything the server logged, one parsed line each. */
const logged: Array<{ level: number; msg: string; err?: { stack?: string } }> = [];

beforeAll(async () => {
  await importScenario(db.pool, liveScenario());
  const log = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) logged.push(JSON.parse(line) as (typeof logged)[number]);
      done();
    },
  });
  api = await startApi(db, { streamsPerClient: STREAMS_PER_CLIENT }, db.pool, 0, pino({ level: "debug" }, log));
  token = await tokenFor(api.url, "overlay");
});
afterAll(() => api?.close());

const TRACE_ID = expect.stringMatching(/^[0-9a-f]{32}$/);
const problem = (code: string, status: number) => ({ type: `${TEST_BASE_URL}/docs/errors#${code}`, status, code, traceId: TRACE_ID });

async function expectProblem(response: Response, code: string, status: number): Promise<void> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(JSON.parse(text)).toEqual(problem(code, status));
}

// Not decodable as UTF-8 percent-encodings: a lone %, non-hex digits, an overlong "/", a surrogate half.
const BAD_ENCODINGS = ["%", "%zz", "%ZZ", "%C0%AF", "%ED%A0%80", "a%2", `${RACE.slice(0, 35)}%`];

describe("a malformed percent-encoding in a path id", () => {
  const races = (id: string) => [
    `/races/${id}/live`,
    `/races/${id}/live/insights`,
    `/races/${id}/track?since=2026-01-01T00:00:00Z`,
    `/races/${id}/results`,
  ];
  const events = (id: string) => [`/events/${id}/live`, `/events/${id}/results`];

  it.each(BAD_ENCODINGS)("is an id that does not exist: %s answers 404 RACE_NOT_FOUND or EVENT_NOT_FOUND", async (id) => {
    for (const path of races(id))
      await expectProblem(await fetch(`${api.url}/api/v1${path}`, { headers: bearer(token) }), "RACE_NOT_FOUND", 404);
    for (const path of events(id))
      await expectProblem(await fetch(`${api.url}/api/v1${path}`, { headers: bearer(token) }), "EVENT_NOT_FOUND", 404);
  });

  it("is checked after the token, like any other id", async () => {
    for (const id of BAD_ENCODINGS) await expectProblem(await fetch(`${api.url}/api/v1/races/${id}/live`), "API_TOKEN_MISSING", 401);
  });

  it("in a path that is no route is API_ROUTE_NOT_FOUND", async () => {
    for (const id of BAD_ENCODINGS)
      await expectProblem(await fetch(`${api.url}/api/v1/nothing/${id}`, { headers: bearer(token) }), "API_ROUTE_NOT_FOUND", 404);
  });

  it("in the query names the parameter", async () => {
    const response = await fetch(`${api.url}/api/v1/races/${RACE}/track?since=%ZZ`, { headers: bearer(token) });
    const text = await response.text();
    expect(response.status, text).toBe(400);
    expect(JSON.parse(text)).toMatchObject({ code: "API_PARAM_INVALID", params: { name: "since" } });
  });
});

describe("the token endpoint, given what it cannot read", () => {
  async function expectTokenError(response: Response, status: number, error: string, code: string): Promise<void> {
    const text = await response.text();
    expect(response.status, text).toBe(status);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(JSON.parse(text)).toEqual({ error, code });
  }
  const form = "grant_type=client_credentials&client_id=overlay&client_secret=overlay-secret";

  it("answers a body over the size limit with 400 invalid_request", async () => {
    const huge = `${form}&pad=${"x".repeat(2 * 1024 * 1024)}`;
    const response = await fetch(`${api.url}/api/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: huge,
    });
    await expectTokenError(response, 400, "invalid_request", "API_TOKEN_REQUEST_INVALID");
  });

  it.each([";;;", "/", ";", "application/x-www-form-urlencoded/x", "\u00e9/x"])(
    "answers Content-Type %j with 400 invalid_request",
    async (contentType) => {
      const answer = await rawRequest(
        api.url,
        Buffer.from(
          `POST /api/v1/oauth/token HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: ${contentType}\r\nContent-Length: ${form.length}\r\n\r\n${form}`,
          "latin1",
        ),
      );
      expect(answer.status, answer.body).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({ error: "invalid_request", code: "API_TOKEN_REQUEST_INVALID" });
    },
  );

  it("does not take an Authorization: Bearer header for client credentials", async () => {
    const withForm = await fetch(`${api.url}/api/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...bearer(token) },
      body: form,
    });
    expect(withForm.status).toBe(200);
    const alone = await fetch(`${api.url}/api/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...bearer(token) },
      body: "grant_type=client_credentials",
    });
    await expectTokenError(alone, 401, "invalid_client", "API_CLIENT_CREDENTIALS_INVALID");
  });
});

describe("requests the HTTP parser refuses", () => {
  const cases: Array<[string, string | Buffer, number, string]> = [
    ["a space in the path", "GET /api/v1/races/a b/live HTTP/1.1\r\nHost: x\r\n\r\n", 400, "API_REQUEST_MALFORMED"],
    [
      "non-ASCII in the path",
      Buffer.concat([
        Buffer.from("GET /api/v1/races/"),
        Buffer.from("\u00e9\u00e8", "utf8"),
        Buffer.from("/live HTTP/1.1\r\nHost: x\r\n\r\n"),
      ]),
      400,
      "API_REQUEST_MALFORMED",
    ],
    ["a control character in the path", "GET /api/v1/races/\x01/live HTTP/1.1\r\nHost: x\r\n\r\n", 400, "API_REQUEST_MALFORMED"],
    ["an unknown method", "FROB /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n", 400, "API_REQUEST_MALFORMED"],
    ["a broken header line", "GET /api/v1/events HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400, "API_REQUEST_MALFORMED"],
    ["no Host header", "GET /api/v1/events HTTP/1.1\r\n\r\n", 400, "API_REQUEST_MALFORMED"],
    [
      "headers over the limit",
      `GET /api/v1/events HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20 * 1024)}\r\n\r\n`,
      431,
      "API_REQUEST_HEADERS_TOO_LARGE",
    ],
    ["an unsupported HTTP version", "GET /api/v1/events HTTP/9.9\r\nHost: x\r\n\r\n", 400, "API_REQUEST_MALFORMED"],
  ];
  it.each(cases)("answers %s with problem+json", async (_name, request, status, code) => {
    const answer = await rawRequest(api.url, request);
    expect(answer.status, answer.body).toBe(status);
    expect(answer.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(answer.body)).toEqual(problem(code, status));
    expect(answer.headers["x-trace-id"]).toBe((JSON.parse(answer.body) as { traceId: string }).traceId);
    // Every 4XX of the document carries Vary (an error may be read by a page, CORS).
    expect(answer.headers.vary).toBe("Origin");
  });
});

describe("an RPC whose content type names no protocol", () => {
  // Fastify refused the unparsable ones with a body of its own (FST_ERR_CTP_INVALID_MEDIA_TYPE).
  it.each([";;;", "", "application/json;;", "application/grpc-web;;;", "x".repeat(4000), "applic\u00e4tion/json", "text/plain"])(
    "answers %j as Connect does for any content type it does not serve: 415, no body",
    async (contentType) => {
      const response = await fetch(`${api.url}/racing.v1.RaceLiveService/GetRaceLive`, {
        method: "POST",
        headers: { "content-type": contentType, ...bearer(token) },
        body: "{}",
      });
      expect(response.status).toBe(415);
      expect(await response.text()).toBe("");
    },
  );
});

describe("RPC bodies that do not decode", () => {
  const GET_RACE_LIVE = "racing.v1.RaceLiveService/GetRaceLive";
  // Field 1 with wire type 7, which does not exist; a length running past the end; a string that is not UTF-8.
  const BAD_PROTO = [Buffer.from([0x0f]), Buffer.from([0x0a, 0x7f, 0x61]), Buffer.from([0x0a, 0x02, 0xc0, 0xaf])];
  const INTERNALS = /parse|illegal|wire type|binary|premature|JSON|position|Unexpected|token|invalid utf|decompress|brotli|zlib|at .*\.js/i;

  async function expectInvalidArgument(response: Response, sent?: unknown): Promise<void> {
    const text = await response.text();
    expect(response.status, `${JSON.stringify(sent)}: ${text}`).toBe(400);
    const body = JSON.parse(text) as { code: string; message?: string };
    expect(body.code).toBe("invalid_argument");
    expect(body.message ?? "").not.toMatch(INTERNALS);
  }
  const post = (contentType: string, body: Buffer | string, headers: Record<string, string> = {}) =>
    fetch(`${api.url}/${GET_RACE_LIVE}`, { method: "POST", headers: { "content-type": contentType, ...bearer(token), ...headers }, body });

  it("Connect: bad protobuf, bad JSON, JSON that is not UTF-8 and garbage compressed with br answer invalid_argument", async () => {
    for (const body of BAD_PROTO) await expectInvalidArgument(await post("application/proto", body), body);
    for (const body of ["{", '{"raceId": 5}', "[]", '""', "{}}"]) await expectInvalidArgument(await post("application/json", body), body);
    await expectInvalidArgument(
      await post(
        "application/json",
        Buffer.from([0x7b, 0x22, 0x72, 0x61, 0x63, 0x65, 0x49, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      ),
    );
    await expectInvalidArgument(await post("application/proto", Buffer.from("not brotli at all"), { "content-encoding": "br" }));
    await expectInvalidArgument(await post("application/json", Buffer.from("not gzip at all"), { "content-encoding": "gzip" }));
  });

  it("Connect streams: a bad message ends the stream with invalid_argument", async () => {
    for (const body of BAD_PROTO) {
      const response = await fetch(`${api.url}/racing.v1.RaceLiveService/WatchRaceLive`, {
        method: "POST",
        headers: { "content-type": "application/connect+proto", ...bearer(token) },
        body: envelope(body),
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(bytes[0]).toBe(0x02);
      const end = JSON.parse(bytes.subarray(5).toString("utf8")) as { error: { code: string; message: string } };
      expect(end.error.code).toBe("invalid_argument");
      expect(end.error.message).not.toMatch(INTERNALS);
    }
  });

  it("gRPC-Web: a bad message answers grpc-status 3 (INVALID_ARGUMENT)", async () => {
    for (const body of BAD_PROTO) {
      const response = await fetch(`${api.url}/${GET_RACE_LIVE}`, {
        method: "POST",
        headers: { "content-type": "application/grpc-web+proto", ...bearer(token) },
        body: envelope(body),
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      const trailer =
        response.headers.get("grpc-status") !== null
          ? `grpc-status:${response.headers.get("grpc-status")}\r\ngrpc-message:${response.headers.get("grpc-message") ?? ""}`
          : bytes.subarray(5).toString("utf8");
      expect(trailer).toMatch(/grpc-status: ?3\b/);
      expect(decodeURIComponent(/grpc-message: ?([^\r\n]*)/.exec(trailer)?.[1] ?? "")).not.toMatch(INTERNALS);
    }
  });

  it("gRPC (h2c): a bad message answers grpc-status 3 (INVALID_ARGUMENT)", async () => {
    for (const body of BAD_PROTO) {
      const answer = await rawGrpcCall(api.grpcUrl, GET_RACE_LIVE, envelope(body), bearer(token));
      expect(answer.grpcStatus).toBe("3");
      expect(answer.grpcMessage).not.toMatch(INTERNALS);
    }
    const compressed = await rawGrpcCall(api.grpcUrl, GET_RACE_LIVE, envelope(Buffer.from("not gzip"), 1), {
      ...bearer(token),
      "grpc-encoding": "gzip",
    });
    expect(compressed.grpcStatus).toBe("3");
  });
});

describe("a client that aborts its request body", () => {
  it("is not an error of ours: nothing logged at error level", async () => {
    const before = logged.length;
    for (const path of ["/api/v1/oauth/token", `/${"racing.v1.RaceLiveService/GetRaceLive"}`]) {
      await new Promise<void>((resolve) => {
        const { hostname, port } = new URL(api.url);
        import("node:net").then(({ connect }) => {
          const socket = connect(Number(port), hostname, () => {
            socket.write(
              `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ngrant_type=`,
            );
            setTimeout(() => {
              socket.destroy();
              resolve();
            }, 100);
          });
          socket.on("error", () => undefined);
        });
      });
    }
    // Give the server time to notice and log.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const errors = logged.slice(before).filter((line) => line.level >= 50);
    expect(errors).toEqual([]);
  });
});

describe("HEAD on the streams", () => {
  it("answers HEAD without a token or for an unknown race as GET would, without a body", async () => {
    const missing = await fetch(`${api.url}/api/v1/races/${RACE}/live/stream`, { method: "HEAD", signal: AbortSignal.timeout(5000) });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
    expect(await missing.text()).toBe("");
    const unknown = await fetch(`${api.url}/api/v1/races/${EVENT}/live/stream`, {
      method: "HEAD",
      headers: bearer(token),
      signal: AbortSignal.timeout(5000),
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe("");
  });

  for (const path of ["/live/stream", "/live/insights/stream"]) {
    it(`answers HEAD ${path} at once with the stream's headers, and keeps no stream slot`, async () => {
      const held: RawAnswer[] = [];
      for (let i = 0; i < STREAMS_PER_CLIENT * 3; i++) {
        // Each on a connection of its own, kept open: the request alone must let the slot go.
        const answer = await rawRequest(
          api.url,
          `HEAD /api/v1/races/${RACE}${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`,
          5000,
          true,
        );
        held.push(answer);
        expect(answer.status).toBe(200);
        expect(answer.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
        expect(answer.headers.ratelimit).toMatch(/^"tracking";r=\d+;t=\d+$/);
        expect(answer.body).toBe("");
      }
      // Every slot is still free: as many streams as the cap open.
      const streams: SseStream[] = [];
      try {
        for (let i = 0; i < STREAMS_PER_CLIENT; i++) {
          streams.push(await openSse(`${api.url}/api/v1/races/${RACE}${path}`, bearer(token)));
          expect(streams.at(-1)!.response.status).toBe(200);
          await streams.at(-1)!.next();
        }
      } finally {
        for (const stream of streams) stream.close();
        for (const answer of held) answer.close();
      }
    });
  }
});
