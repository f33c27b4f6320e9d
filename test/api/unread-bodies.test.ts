// A request answered before its body was read to the end (over the 8 MiB bound, or
// refused before it was read) gets its documented answer on every try, and its
// connection stays usable. A real socket, since the connection is what is tested: the
// client sends most of 9 MiB, waits for the answer's head, sends the rest, then a
// second request. A server that closes without reading makes that write fail (EPIPE,
// ECONNRESET) and leaves the second request unanswered.

import { connect as connectHttp2 } from "node:http2";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { bearer, useApi } from "../support/api.js";
import { envelope } from "../support/raw-http.js";
import { ingestScenario } from "../support/ingest-scenarios.js";

const api = useApi({ scenario: ingestScenario, client: "writer" });

const SIZE = 9 * 1024 * 1024;
const REST = 512 * 1024;
const TRIES = 3;

interface Outcome {
  /** The first answer: head and body as written. */
  answer: string;
  /** Whether the rest of the body went out without an error. */
  restSent: boolean;
  /** Whether a second request on the same connection was answered. */
  secondAnswered: boolean;
}

const chunk = (bytes: Buffer, chunked: boolean) =>
  chunked ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]) : bytes;

/** One try: 9 MiB to `path`, as one Content-Length body or chunked. */
function oversized(path: string, contentType: string, chunked: boolean, token: string | undefined): Promise<Outcome> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    let answer = "";
    let restSent = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ answer: answer || text, restSent, secondAnswered: text.includes('{"status":"ok"}') });
    };
    const timer = setTimeout(finish, 10_000);
    socket.on("data", (data: Buffer) => {
      text += data.toString("latin1");
      if (!answer && text.includes("\r\n\r\n")) {
        answer = text;
        const rest = Buffer.concat([chunk(Buffer.alloc(REST, 0x20), chunked), Buffer.from(chunked ? "0\r\n\r\n" : "")]);
        socket.write(rest, (error) => {
          restSent = !error;
          if (!error) socket.write("GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n");
        });
      }
      if (text.includes('{"status":"ok"}')) finish();
    });
    socket.on("error", () => undefined);
    socket.on("close", finish);
    const auth = token ? `authorization: Bearer ${token}\r\n` : "";
    const framing = chunked ? "transfer-encoding: chunked" : `content-length: ${SIZE}`;
    socket.write(`POST /${path} HTTP/1.1\r\nhost: x\r\ncontent-type: ${contentType}\r\n${auth}${framing}\r\n\r\n`);
    // A gRPC-Web body is an envelope announcing the whole message.
    const head = contentType.startsWith("application/grpc-web") ? envelope(Buffer.alloc(0)).fill(0, 0, 1) : Buffer.alloc(0);
    if (head.length) head.writeUInt32BE(SIZE - 5, 1);
    socket.write(chunk(Buffer.concat([head, Buffer.alloc(SIZE - REST - head.length, 0x20)]), chunked));
  });
}

const cases: Array<[string, string, string, (answer: string, token: boolean) => void]> = [
  [
    "Connect unary",
    "racing.v1.IngestService/AppendFixes",
    "application/json",
    (answer, token) => {
      expect(answer).toMatch(token ? /^HTTP\/1\.1 429 / : /^HTTP\/1\.1 401 /);
      expect(answer).toContain(token ? '"code":"resource_exhausted"' : '"code":"unauthenticated"');
    },
  ],
  [
    "Connect stream",
    "racing.v1.IngestService/StreamFixes",
    "application/connect+json",
    (answer, token) => expect(answer).toContain(token ? '"code":"resource_exhausted"' : '"code":"unauthenticated"'),
  ],
  [
    "gRPC-Web",
    "racing.v1.IngestService/AppendFixes",
    "application/grpc-web+proto",
    (answer, token) => expect(answer).toMatch(token ? /grpc-status: ?8\b/ : /grpc-status: ?16\b/),
  ],
  [
    "the token endpoint (over its 1 MiB)",
    "api/v1/oauth/token",
    "application/x-www-form-urlencoded",
    (answer) => {
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toContain('"code":"API_TOKEN_REQUEST_INVALID"');
    },
  ],
];

describe("a message over 8 MiB on HTTP/1.1", () => {
  for (const [name, path, contentType, expectAnswer] of cases)
    for (const chunked of [false, true])
      for (const withToken of [true, false])
        it(`${name}, ${chunked ? "chunked" : "with Content-Length"}, ${withToken ? "with" : "without"} a token: the documented answer on every try, the connection kept`, async () => {
          for (let i = 0; i < TRIES; i++) {
            const outcome = await oversized(path, contentType, chunked, withToken ? api.token : undefined);
            expectAnswer(outcome.answer, withToken);
            expect(outcome.restSent).toBe(true);
            expect(outcome.secondAnswered).toBe(true);
          }
        });
});

describe("a message over 8 MiB on HTTP/2", () => {
  /** The grpc-status of a 9 MiB call, read when the answer's trailers arrive (the body need not be taken). */
  function oversizedGrpc(token: string | undefined): Promise<string> {
    const session = connectHttp2(api.grpcUrl);
    const stream = session.request({
      ":method": "POST",
      ":path": "/racing.v1.IngestService/AppendFixes",
      "content-type": "application/grpc+proto",
      te: "trailers",
      ...(token ? bearer(token) : {}),
    });
    return new Promise<string>((resolve) => {
      const status = (fields: Record<string, unknown>) => {
        if (fields["grpc-status"] === undefined) return;
        resolve(String(fields["grpc-status"]));
        session.destroy();
      };
      stream.on("response", status);
      stream.on("trailers", status);
      stream.on("error", () => undefined);
      stream.end(envelope(Buffer.alloc(SIZE, 0x20)));
    });
  }

  it("gRPC (h2c): RESOURCE_EXHAUSTED with a token, UNAUTHENTICATED without", async () => {
    expect(await oversizedGrpc(api.token)).toBe("8");
    expect(await oversizedGrpc(undefined)).toBe("16");
  });
});
