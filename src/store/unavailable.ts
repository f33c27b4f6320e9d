// Which database errors mean "the read model did not answer in time, or is not there"
// (503 API_UNAVAILABLE, Retry-After 30) rather than a bug in our SQL (500). Decided by
// the errors' `code` and `errno` fields; messages only where mysql2 sets nothing else.

import { POOL_WAIT_TIMEOUT } from "./pool.js";

/** Network and driver codes: Node's socket errors, mysql2's protocol errors, ours. */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT", // also mysql2's connectTimeout
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN", // DNS temporarily failing
  "PROTOCOL_CONNECTION_LOST",
  "PROTOCOL_SEQUENCE_TIMEOUT", // mysql2's per-query client timeout
  POOL_WAIT_TIMEOUT, // store/pool.ts: no connection became free in time
]);

/** Server (and libmysql client) error numbers; the same on MariaDB and MySQL 8 unless noted. */
const UNAVAILABLE_ERRNOS = new Set([
  1040, // ER_CON_COUNT_ERROR: too many connections
  1053, // ER_SERVER_SHUTDOWN
  1203, // ER_TOO_MANY_USER_CONNECTIONS
  1205, // ER_LOCK_WAIT_TIMEOUT
  1317, // ER_QUERY_INTERRUPTED
  1927, // ER_CONNECTION_KILLED (MariaDB), e.g. at shutdown
  1969, // ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
  2002, // CR_CONNECTION_ERROR
  2003, // CR_CONN_HOST_ERROR
  2006, // CR_SERVER_GONE_ERROR
  2013, // CR_SERVER_LOST
  3024, // ER_QUERY_TIMEOUT (MySQL max_execution_time)
  4031, // ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8: idle connection closed by the server)
]);

/**
 * mysql2's pool and closed connections raise plain Errors with no code: the message is
 * all there is to tell them by (mysql2 3.x, lib/base/pool.js and lib/base/connection.js).
 */
const UNAVAILABLE_MESSAGES = new Set([
  "Queue limit reached.",
  "Pool is closed.",
  "Can't add new command when connection is in closed state",
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  return databaseUnavailableCause(error) !== null;
}

/** Why the database did not answer (the metrics' `cause`), or null when it did and the error is ours. */
export type UnavailableCause = "statement_timeout" | "pool_wait" | "connection";

const TIMEOUT_CODES = new Set(["PROTOCOL_SEQUENCE_TIMEOUT"]);
const TIMEOUT_ERRNOS = new Set([1205, 1317, 1969, 3024]);
const POOL_WAIT = new Set<unknown>([POOL_WAIT_TIMEOUT, "Queue limit reached."]);

export function databaseUnavailableCause(error: unknown): UnavailableCause | null {
  return classify(error, 0);
}

function classify(error: unknown, depth: number): UnavailableCause | null {
  if (error === null || typeof error !== "object" || depth > 4) return null;
  const { code, errno, message, cause, errors } = error as {
    code?: unknown;
    errno?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return causeOf(code, errno);
  // Node's socket errors carry negative errnos; only the server's are positive.
  if (typeof errno === "number" && errno > 0 && UNAVAILABLE_ERRNOS.has(errno)) return causeOf(code, errno);
  if (typeof message === "string" && UNAVAILABLE_MESSAGES.has(message)) return POOL_WAIT.has(message) ? "pool_wait" : "connection";
  // Wrapped errors (a ConnectError's cause) and Node's AggregateError from dual-stack connects.
  const wrapped = classify(cause, depth + 1);
  if (wrapped) return wrapped;
  if (!Array.isArray(errors)) return null;
  for (const inner of errors) {
    const found = classify(inner, depth + 1);
    if (found) return found;
  }
  return null;
}

function causeOf(code: unknown, errno: unknown): UnavailableCause {
  if (TIMEOUT_CODES.has(code as string) || TIMEOUT_ERRNOS.has(errno as number)) return "statement_timeout";
  return POOL_WAIT.has(code) ? "pool_wait" : "connection";
}
