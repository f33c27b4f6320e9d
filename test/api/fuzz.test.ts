// A seeded property-based fuzz of every surface with generated bad input: REST under
// /api/v1 (token endpoint included), Connect, gRPC-Web and gRPC, and raw bytes where the
// HTTP parser reads them. Whatever comes in: no 5xx (no INTERNAL or UNKNOWN on the RPC
// surfaces), problem+json on /api/v1 (RFC 6749 JSON on the token endpoint), no
// internals in any body, and every request answered within a bound.
//
// The seed is printed; FUZZ_SEED=<seed> replays a run, FUZZ_RUNS=<n> sets its length.

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importScenario } from "../../src/scenario/import.js";
import { startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { EVENT, RACE, GROUP_A, liveScenario } from "../support/race-scenarios.js";
import { envelope, rawGrpcCall, rawRequest } from "../support/raw-http.js";

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
/** Every answer comes within this, or the run fails. */
const ANSWER_WITHIN_MS = 5000;
/** What a body must never show: stack frames, source paths, SQL and driver words. */
const INTERNALS =
  /\bat \S+ \(|node_modules|\/work\/|\/src\/|\.[jt]s:\d+|\bSELECT\b|\bINSERT\b|\bUPDATE \w+ SET\b|mysql|mariadb|\bstack\b|illegal tag|wire type|Unexpected token/i;
/** Driver and framework error codes, as they are spelt. */
const ERROR_CODE_NAMES = /\bER_[A-Z_]+|\bECONN[A-Z]+|\bFST_ERR/;

function expectNoInternals(text: string): void {
  expect(text).not.toMatch(INTERNALS);
  expect(text).not.toMatch(ERROR_CODE_NAMES);
}

const db = useFreshDatabase();
let api: Api;
let token: string;

beforeAll(async () => {
  await importScenario(db.pool, liveScenario());
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
  console.log(`fuzz seed: ${SEED} (replay with FUZZ_SEED=${SEED}), ${RUNS} runs per surface`);
});
afterAll(() => api?.close());

const params = { seed: SEED, numRuns: RUNS, endOnFailure: true } as const;

// Strings a client should not send: percent-encodings that do not decode, control and
// non-ASCII characters, numbers in odd spellings, long ones.
const nasty = fc.oneof(
  fc.constantFrom(
    "",
    "%",
    "%zz",
    "%C0%AF",
    "%ED%A0%80",
    "..",
    "../..",
    "0x2",
    "1e400",
    "-1",
    "Infinity",
    " 2",
    "null",
    "[]",
    "{}",
    "'",
    '"',
    "\\",
    RACE,
    EVENT,
    GROUP_A,
    "\u0000",
    "\u202e",
    "😀",
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.stringMatching(/^[0-9a-f-]{30,40}$/),
  fc.integer().map(String),
);
const encoded = nasty.map((value) =>
  encodeURIComponent(value).replace(/%25([0-9A-F]{2})?/g, (match) => (match.length === 3 ? "%" : match)),
);
const authorization = fc.oneof(
  fc.constant<string | undefined>(undefined),
  fc.constant("valid"),
  fc.constantFrom("Bearer", "Bearer ", "Basic Zm9vOmJhcg==", "Bearer a.b.c", "Bearer eyJhbGciOiJub25lIn0.e30.", "Digest x"),
  nasty.map((value) => `Bearer ${value}`),
);
const headerValue = (value: string) => value.replace(/[^\x20-\x7e]/g, "");

const restPaths = [
  "/events",
  "/events/{id}/live",
  "/events/{id}/results",
  "/races/{id}/live",
  "/races/{id}/live/insights",
  "/races/{id}/track",
  "/races/{id}/results",
  "/scopes",
  "/openapi.json",
  "/{id}",
];
const queryNames = ["page", "pageSize", "lang", "since", "until", "startGroupId", "x"];

function expectProblemOnApi(response: Response, text: string, path: string): void {
  expect(response.status, `${path}: ${text}`).toBeLessThan(500);
  expectNoInternals(text);
  if (response.status >= 400 && response.status !== 405) {
    expect(response.headers.get("content-type"), `${path}: ${text}`).toBe("application/problem+json");
    if (text !== "")
      expect(JSON.parse(text), path).toMatchObject({ code: expect.any(String), traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
  }
}

describe("fuzz", () => {
  it("REST under /api/v1: any path id, query and headers", async () => {
    const request = fc.record({
      path: fc.constantFrom(...restPaths),
      id: encoded,
      method: fc.constantFrom("GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"),
      query: fc.array(fc.tuple(fc.constantFrom(...queryNames), encoded), { maxLength: 4 }),
      auth: authorization,
      ifNoneMatch: fc.option(nasty.map(headerValue), { nil: undefined }),
      acceptEncoding: fc.option(fc.constantFrom("br", "gzip;q=0", "*", "identity;q=0, *;q=0", "br;q=abc"), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const query = r.query.map(([name, value]) => `${name}=${value}`).join("&");
        const path = `/api/v1${r.path.replace("{id}", r.id)}${query ? `?${query}` : ""}`;
        const headers: Record<string, string> = {};
        if (r.auth !== undefined) headers.authorization = r.auth === "valid" ? `Bearer ${token}` : headerValue(r.auth);
        if (r.ifNoneMatch !== undefined) headers["if-none-match"] = r.ifNoneMatch;
        if (r.acceptEncoding !== undefined) headers["accept-encoding"] = r.acceptEncoding;
        const response = await fetch(`${api.url}${path}`, { method: r.method, headers, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
        expectProblemOnApi(response, await response.text(), path);
      }),
      params,
    );
  });

  it("HEAD and unauthorised GET on the streams answer at once", async () => {
    const request = fc.record({
      stream: fc.constantFrom("/live/stream", "/live/insights/stream"),
      id: fc.oneof(fc.constant(RACE), encoded),
      head: fc.boolean(),
      auth: authorization,
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        // A GET with a valid token opens a stream (streams.test.ts): here only what answers at once.
        const auth = r.head ? r.auth : r.auth === "valid" ? undefined : r.auth;
        const headers: Record<string, string> =
          auth === undefined ? {} : { authorization: auth === "valid" ? `Bearer ${token}` : headerValue(auth) };
        const path = `/api/v1/races/${r.id}${r.stream}`;
        const response = await fetch(`${api.url}${path}`, {
          method: r.head ? "HEAD" : "GET",
          headers,
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        const text = await response.text();
        expectProblemOnApi(response, text, path);
        if (r.head) expect(text).toBe("");
      }),
      { ...params, numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it("the token endpoint: any content type, body and Authorization answer RFC 6749 JSON", async () => {
    const field = fc.oneof(fc.constantFrom("grant_type", "client_id", "client_secret", "scope"), fc.string({ maxLength: 8 }));
    const request = fc.record({
      contentType: fc.option(
        fc.oneof(
          fc.constantFrom(
            "application/x-www-form-urlencoded",
            "application/json",
            ";;;",
            "/",
            "text/plain; charset=utf-8",
            "multipart/form-data; boundary=x",
          ),
          nasty.map(headerValue),
        ),
        { nil: undefined },
      ),
      body: fc.oneof(
        fc
          .array(fc.tuple(field, nasty), { maxLength: 6 })
          .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")),
        fc.string({ maxLength: 200 }),
        fc.constant("grant_type=client_credentials&client_id=overlay&client_secret=overlay-secret"),
      ),
      auth: fc.oneof(
        authorization,
        nasty.map((value) => `Basic ${Buffer.from(value).toString("base64")}`),
      ),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {};
        if (r.contentType !== undefined) headers["content-type"] = r.contentType;
        if (r.auth !== undefined) headers.authorization = r.auth === "valid" ? `Bearer ${token}` : headerValue(r.auth);
        const response = await fetch(`${api.url}/api/v1/oauth/token`, {
          method: "POST",
          headers,
          body: r.body,
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        const text = await response.text();
        expect(response.status, text).toBeLessThan(500);
        expectNoInternals(text);
        expect(response.headers.get("content-type")).toMatch(/^application\/json/);
        const body = JSON.parse(text) as { error?: string; access_token?: string };
        if (response.status >= 400) expect(body.error).toEqual(expect.any(String));
        else expect(body.access_token).toEqual(expect.any(String));
      }),
      params,
    );
  });

  const methods = [
    "racing.v1.RaceLiveService/GetRaceLive",
    "racing.v1.LiveInsightsService/GetLiveInsights",
    "racing.v1.TrackService/GetTrackPage",
    "racing.v1.EventService/ListEvents",
    "racing.v1.ResultsService/GetRaceResults",
    "racing.v1.ScopeService/ListScopes",
    "racing.v1.RaceLiveService/WatchRaceLive",
    "racing.v1.IngestService/AppendFixes",
  ];
  // Two-way streams need HTTP/2: over HTTP/1.1 they are answered 505 (surfaces.test.ts).
  const http2Methods = [...methods, "racing.v1.IngestService/PushFixes"];
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
    nasty.map((s) => Buffer.from(s)),
    fc.json().map((j) => Buffer.from(j)),
  );

  it("Connect and gRPC-Web over HTTP/1.1: any body, content type and encoding", async () => {
    const request = fc.record({
      method: fc.constantFrom(...methods),
      contentType: fc.constantFrom(
        "application/proto",
        "application/json",
        "application/connect+proto",
        "application/connect+json",
        "application/grpc-web+proto",
        "application/grpc-web",
        "application/grpc-web-text",
        "text/plain",
      ),
      body: bytes,
      enveloped: fc.boolean(),
      encoding: fc.option(fc.constantFrom("gzip", "br", "identity", "zstd"), { nil: undefined }),
      auth: authorization,
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = { "content-type": r.contentType };
        if (r.auth !== undefined) headers.authorization = r.auth === "valid" ? `Bearer ${token}` : headerValue(r.auth);
        if (r.encoding !== undefined)
          headers[
            r.contentType.includes("grpc")
              ? "grpc-encoding"
              : r.contentType.includes("connect+")
                ? "connect-content-encoding"
                : "content-encoding"
          ] = r.encoding;
        const controller = AbortSignal.timeout(ANSWER_WITHIN_MS);
        const response = await fetch(`${api.url}/${r.method}`, {
          method: "POST",
          headers,
          body: r.enveloped ? envelope(r.body) : r.body,
          signal: controller,
        });
        const text = Buffer.from(await response.arrayBuffer()).toString("latin1");
        // Connect's and gRPC's mandated answer to a compression the server lacks is UNIMPLEMENTED, which Connect sends as 501.
        if (!(response.status === 501 && text.includes('"code":"unimplemented"'))) expect(response.status, text).toBeLessThan(500);
        expectNoInternals(text);
        const grpcStatus = response.headers.get("grpc-status") ?? /grpc-status: ?(\d+)/.exec(text)?.[1];
        expect(["2", "13"], text).not.toContain(grpcStatus);
        expect(text).not.toMatch(/"code":"(internal|unknown)"/);
      }),
      params,
    );
  });

  it("gRPC over h2c: any message bytes", async () => {
    const request = fc.record({
      method: fc.constantFrom(...http2Methods),
      body: bytes,
      enveloped: fc.boolean(),
      auth: authorization,
      compressed: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {};
        if (r.auth !== undefined) headers.authorization = r.auth === "valid" ? `Bearer ${token}` : headerValue(r.auth);
        if (r.compressed) headers["grpc-encoding"] = "gzip";
        const answer = await rawGrpcCall(
          api.grpcUrl,
          r.method,
          r.enveloped ? envelope(r.body, r.compressed ? 1 : 0) : r.body,
          headers,
          ANSWER_WITHIN_MS,
        );
        expect(answer.status).toBeLessThan(500);
        expect(["2", "13"], answer.grpcMessage).not.toContain(answer.grpcStatus);
        expectNoInternals(answer.grpcMessage);
      }),
      { ...params, numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it("raw HTTP/1.1: request lines and headers the parser may refuse", async () => {
    const line = fc.record({
      method: fc.oneof(fc.constantFrom("GET", "HEAD", "POST", "FROB", "G ET", ""), fc.string({ maxLength: 6 })),
      target: fc.oneof(
        fc.constantFrom("/api/v1/events", "/api/v1/races/%zz/live", "*", "http://x/api/v1/events", ""),
        nasty.map((s) => `/api/v1/races/${s}/live`),
      ),
      version: fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.1 ", ""),
      header: fc.oneof(
        fc.constant("Host: x"),
        fc.constant(""),
        nasty.map((s) => `Host: ${s}`),
        nasty.map((s) => `X-${s}: 1`),
      ),
    });
    await fc.assert(
      fc.asyncProperty(line, async (r) => {
        const answer = await rawRequest(
          api.url,
          Buffer.from(`${r.method} ${r.target} ${r.version}\r\n${r.header}\r\nConnection: close\r\n\r\n`, "utf8"),
          ANSWER_WITHIN_MS,
        );
        // No answer at all is Node's right for bytes that are not HTTP; anything written is ours.
        if (answer.status === 0) return;
        expect(answer.status, answer.body).toBeLessThan(500);
        expectNoInternals(answer.body);
        const toApi = r.target.startsWith("/api/v1") || answer.status === 400 || answer.status === 431;
        if (answer.status >= 400 && toApi && answer.body !== "")
          expect(answer.headers["content-type"], answer.body).toBe("application/problem+json");
      }),
      params,
    );
  });
});
