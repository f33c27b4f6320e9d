// The one classification of anything thrown into the spec's error, for every surface
// (RPCs and streams, the REST gateway, the token endpoint, the /.well-known documents):
// our typed error stands as it is; a read model that did not answer in time is
// API_UNAVAILABLE; anything else is INTERNAL_ERROR. What is not ours is logged with the
// caller's fields (its trace id), and never shown to the client.

import type { Logger } from "pino";
import { databaseUnavailableCause } from "../store/unavailable.js";
import { unavailable } from "../telemetry/metrics.js";
import { ApiError } from "./api-error.js";

export function classify(error: unknown, logger: Logger, fields: Record<string, unknown>): ApiError {
  if (error instanceof ApiError) return error;
  const cause = databaseUnavailableCause(error);
  if (cause) {
    unavailable.inc({ cause });
    logger.warn({ ...fields, err: error }, "read model unavailable");
    return new ApiError("API_UNAVAILABLE");
  }
  logger.error({ ...fields, err: error }, "unexpected error");
  return new ApiError("INTERNAL_ERROR");
}
