// Requests that go wrong before any route sees them, answered like every other
// failing request: a path whose percent-encoding does not decode, a request the HTTP
// parser refuses (problem+json written straight to the socket, as Node leaves it to
// us), and an HTTP/1.1 request without a Host header.

import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { TRACE_ID_HEADER } from "../errors/api-error.js";
import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import { traceIdFrom } from "../calls/context.js";
import { PROBLEM_CONTENT_TYPE, problemJson, sendProblem } from "./problem.js";

/**
 * The URL with each path segment that does not percent-decode (`%`, `%zz`, `%C0%AF`,
 * `%ED%A0%80`) kept as the text it is: its `%` become `%25`. The router would refuse
 * the whole URL with its own 400; this way `/races/%zz/live` reaches its route with
 * the id `%zz`, which is an id that does not exist (404 RACE_NOT_FOUND after the
 * token is checked), and a path that is no route is API_ROUTE_NOT_FOUND.
 */
export function keepUndecodableSegments(url: string): string {
  const queryAt = url.indexOf("?");
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (!path.includes("%") || decodes(path)) return url;
  const kept = path
    .split("/")
    .map((segment) => (decodes(segment) ? segment : segment.replaceAll("%", "%25")))
    .join("/");
  return queryAt < 0 ? kept : kept + url.slice(queryAt);
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Node's `clientError`: the parser refused the request (or it timed out), there is
 * no request object, and the connection closes after the answer. The client's fault,
 * so logged at debug level, never as our error.
 */
export function clientErrorHandler(errorsUrl: string, logger: Logger): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const code: ErrorCode =
      error.code === "HPE_HEADER_OVERFLOW"
        ? "API_REQUEST_HEADERS_TOO_LARGE"
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? "API_REQUEST_TIMEOUT"
          : "API_REQUEST_MALFORMED";
    const trace = traceIdFrom(undefined);
    logger.debug({ traceId: trace, code: error.code }, "refused by the HTTP parser");
    const body = Buffer.from(problemJson(errorsUrl, { code, params: {}, traceId: trace }));
    const status = ERROR_CODES[code].status;
    socket.end(
      Buffer.concat([
        Buffer.from(
          `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Bad Request"}\r\ncontent-type: ${PROBLEM_CONTENT_TYPE}\r\ncontent-length: ${body.length}\r\n` +
            `cache-control: no-store\r\nvary: Origin\r\n${TRACE_ID_HEADER}: ${trace}\r\nconnection: close\r\n\r\n`,
        ),
        body,
      ]),
    );
  };
}

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

/**
 * RFC 9112 3.2: an HTTP/1.1 request without Host is answered 400. Node would answer it
 * with an empty 400 of its own (its `requireHostHeader`, turned off in app.ts for this).
 */
export function hostRequired(errorsUrl: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (request.headers.host !== undefined || request.raw.httpVersion !== "1.1") return undefined;
    const trace = traceIdFrom(request.headers.traceparent);
    return sendProblem(reply.header("connection", "close"), errorsUrl, {
      code: "API_REQUEST_MALFORMED",
      params: {},
      traceId: trace,
      headers: { [TRACE_ID_HEADER]: trace },
    });
  };
}
