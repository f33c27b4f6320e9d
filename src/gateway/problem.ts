// REST errors as RFC 9457 problem+json, exactly the spec's fields: type, status,
// code, params (only for codes that carry them) and traceId; no title or detail.

import type { FastifyReply } from "fastify";
import { NO_STORE } from "../caching/cache-policy.js";
import { errorHeaders, type ApiError } from "../errors/api-error.js";
import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import { markProblemCode } from "../telemetry/request-metrics.js";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export interface Problem {
  code: ErrorCode;
  params: Record<string, string>;
  traceId: string;
  headers: Record<string, string>;
}

/** The problem for an API error (errors/classify.ts makes one of anything thrown). */
export function problemOf(error: ApiError, traceId: string): Problem {
  return { code: error.code, params: { ...error.params }, traceId, headers: errorHeaders(error, traceId) };
}

export function sendProblem(reply: FastifyReply, errorsUrl: string, problem: Problem): FastifyReply {
  markProblemCode(reply, problem.code);
  // An error is never cached: the next try may succeed. Bytes, not a string, so
  // Fastify adds no charset parameter: problem+json defines none (RFC 9457).
  return reply
    .code(ERROR_CODES[problem.code].status)
    .headers({ ...problem.headers, "cache-control": NO_STORE })
    .type(PROBLEM_CONTENT_TYPE)
    .send(Buffer.from(problemJson(errorsUrl, problem)));
}

/** The problem's body: also the data of the `error` event that ends a stream. */
export function problemJson(errorsUrl: string, problem: Omit<Problem, "headers">): string {
  const spec = ERROR_CODES[problem.code];
  const body: Record<string, unknown> = { type: `${errorsUrl}#${problem.code}`, status: spec.status, code: problem.code };
  if (spec.params.length > 0) body.params = problem.params;
  body.traceId = problem.traceId;
  return JSON.stringify(body);
}
