// The API's typed error and its one conversion to the RPC world: a ConnectError whose
// google.rpc.ErrorInfo carries the spec's code (reason) and params (metadata), with
// RetryInfo for 429 and 503. REST callers get the same error back through the gateway,
// which reads it with `describeRpcError`.

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { DurationSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema, RetryInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ERROR_CODES, isErrorCode, type ErrorCode, type ErrorCodeSpec } from "./codes.js";

/** ErrorInfo.domain: the service that produced the error (AIP-193). */
export const ERROR_DOMAIN = "race-api";
export const TRACE_ID_HEADER = "x-trace-id";

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly params: Readonly<Record<string, string>> = {},
    /** Headers the answer must carry beyond those the code implies (e.g. RateLimit). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(Object.keys(params).length > 0 ? `${code} ${JSON.stringify(params)}` : code);
    this.name = "ApiError";
  }
}

type OutgoingDetails = NonNullable<ConstructorParameters<typeof ConnectError>[3]>;

const CODE_BY_STATUS: Record<number, Code> = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.NotFound,
  408: Code.DeadlineExceeded,
  409: Code.AlreadyExists,
  429: Code.ResourceExhausted,
  431: Code.InvalidArgument,
  500: Code.Internal,
  503: Code.Unavailable,
};

/** The codes a table entry names itself (ErrorCodeSpec.rpcCode). */
const RPC_CODES: Record<NonNullable<ErrorCodeSpec["rpcCode"]>, Code> = {
  FAILED_PRECONDITION: Code.FailedPrecondition,
};

/** Response headers an error implies: its challenge, its retry delay, its trace id. */
export function errorHeaders(error: ApiError, traceId: string): Record<string, string> {
  const headers: Record<string, string> = { ...error.headers, ...retryAfter(error.code), [TRACE_ID_HEADER]: traceId };
  const challenge = bearerChallenge(error);
  if (challenge) headers["www-authenticate"] = challenge;
  return headers;
}

/** Retry-After for the codes that have one (429, 503): whole seconds, never an HTTP date. */
export function retryAfter(code: ErrorCode): Record<string, string> {
  const spec = ERROR_CODES[code];
  return "retryAfterSeconds" in spec ? { "retry-after": String(spec.retryAfterSeconds) } : {};
}

/** The google.rpc.ErrorInfo of `error`: its code as reason, its params as metadata. */
export function errorInfo(error: ApiError): MessageInitShape<typeof ErrorInfoSchema> {
  return { reason: error.code, domain: ERROR_DOMAIN, metadata: { ...error.params } };
}

export function toConnectError(error: ApiError, traceId: string): ConnectError {
  const spec = ERROR_CODES[error.code];
  const details: OutgoingDetails = [{ desc: ErrorInfoSchema, value: errorInfo(error) }];
  if ("retryAfterSeconds" in spec) {
    details.push({ desc: RetryInfoSchema, value: { retryDelay: create(DurationSchema, { seconds: BigInt(spec.retryAfterSeconds) }) } });
  }
  const code = "rpcCode" in spec ? RPC_CODES[spec.rpcCode] : CODE_BY_STATUS[spec.status];
  return new ConnectError(error.message, code, errorHeaders(error, traceId), details);
}

/** The API error a ConnectError carries; one without our ErrorInfo is an internal error. */
export function describeRpcError(error: ConnectError): { code: ErrorCode; params: Record<string, string> } {
  const info = error.findDetails(ErrorInfoSchema).find((detail) => detail.domain === ERROR_DOMAIN);
  if (info && isErrorCode(info.reason)) return { code: info.reason, params: { ...info.metadata } };
  return { code: "INTERNAL_ERROR", params: {} };
}

/** RFC 6750 section 3: how a data call's 401 and scope 403 challenge the client. */
function bearerChallenge(error: ApiError): string | null {
  const realm = `Bearer realm="${ERROR_DOMAIN}"`;
  switch (error.code) {
    case "API_TOKEN_MISSING":
      return realm;
    case "API_TOKEN_INVALID":
    case "API_CLIENT_DISABLED":
    case "API_CLIENT_EXPIRED":
      return `${realm}, error="invalid_token"`;
    case "API_SCOPE_MISSING":
      return `${realm}, error="insufficient_scope", scope="${error.params.scope ?? ""}"`;
    default:
      return null;
  }
}
