// Requests a well-behaved client cannot send: raw bytes on a TCP socket (a broken
// request line, no Host, headers over the limit), and an HTTP/2 (h2c) gRPC call with
// a body of our choosing. The answer is read as the server wrote it.

import { connect as connectHttp2, constants } from "node:http2";
import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Closes the connection (still open after a `headOnly` answer). */
  close(): void;
}

/**
 * Writes `request` as it is and reads until the server closes the connection (or
 * `timeoutMs`); with `headOnly`, until the end of the answer's head, leaving the
 * connection open (a HEAD answer has no body).
 */
export function rawRequest(url: string, request: string | Buffer, timeoutMs = 5000, headOnly = false): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString("latin1").slice(0, 200)}`));
    }, timeoutMs);
    const answer = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const [statusLine, ...headerLines] = text.slice(0, split < 0 ? text.length : split).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1] ?? 0),
        headers,
        body: split < 0 ? "" : text.slice(split + 4),
        close: () => socket.destroy(),
      });
    };
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      if (headOnly && Buffer.concat(chunks).includes("\r\n\r\n")) answer();
    });
    socket.on("error", () => undefined);
    socket.on("close", answer);
    socket.write(request);
  });
}

export interface GrpcAnswer {
  status: number;
  grpcStatus: string | undefined;
  grpcMessage: string;
}

/** One gRPC call over h2c with `body` as the request's bytes (normally a length-prefixed message). */
export function rawGrpcCall(
  url: string,
  path: string,
  body: Buffer,
  headers: Record<string, string> = {},
  timeoutMs = 5000,
): Promise<GrpcAnswer> {
  return new Promise((resolve, reject) => {
    const session = connectHttp2(url);
    session.on("error", reject);
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`no gRPC answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const stream = session.request({
      [constants.HTTP2_HEADER_METHOD]: "POST",
      [constants.HTTP2_HEADER_PATH]: `/${path}`,
      "content-type": "application/grpc+proto",
      te: "trailers",
      ...headers,
    });
    let status = 0;
    let grpcStatus: string | undefined;
    let grpcMessage = "";
    const read = (fields: Record<string, unknown>) => {
      if (fields["grpc-status"] !== undefined) grpcStatus = String(fields["grpc-status"]);
      if (fields["grpc-message"] !== undefined) grpcMessage = decodeURIComponent(String(fields["grpc-message"]));
    };
    stream.on("response", (fields) => {
      status = Number(fields[constants.HTTP2_HEADER_STATUS]);
      read(fields);
    });
    stream.on("trailers", read);
    stream.on("data", () => undefined);
    stream.on("error", reject);
    stream.on("close", () => {
      clearTimeout(timer);
      session.close();
      resolve({ status, grpcStatus, grpcMessage });
    });
    stream.end(body);
  });
}

/** A gRPC / gRPC-Web data frame: flag byte, big-endian length, the bytes. */
export function envelope(bytes: Buffer, flags = 0): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([head, bytes]);
}
