// Every error code of the API in one table: its HTTP status, its parameters, what a
// client should do, and (token endpoint) its RFC 6749 `error`. The RPC mapping,
// problem+json, the token endpoint and the /docs/errors page all read this table.

export interface ErrorCodeSpec {
  status: 400 | 401 | 403 | 404 | 408 | 409 | 429 | 431 | 500 | 503;
  /** Names of `params` the code always carries. */
  params: readonly string[];
  /** Seconds a client must wait before retrying (sent as Retry-After and RetryInfo). */
  retryAfterSeconds?: number;
  /** The RFC 6749 `error` when the token endpoint answers with this code. */
  oauthError?: string;
  /** When it happens, for the errors page. */
  when: string;
  /** What a client should do, for the errors page. */
  remedy: string;
  /** Answered only by IngestService (gRPC/Connect), never on the REST v1 surface. */
  ingestOnly?: true;
  /** The RPC code when the status's usual one would mislead (api-error.ts maps the rest by status). */
  rpcCode?: "FAILED_PRECONDITION";
}

export const ERROR_CODES = {
  API_TOKEN_REQUEST_INVALID: {
    status: 400,
    params: [],
    oauthError: "invalid_request",
    when: "Token endpoint: the request is not a valid client_credentials form post: the content type is not application/x-www-form-urlencoded, a parameter is repeated, or the client credentials were sent both in the Authorization header and in the body.",
    remedy:
      "Fix the request: POST a form, and send the credentials either with HTTP Basic or as client_id and client_secret fields, never both.",
  },
  API_GRANT_TYPE_UNSUPPORTED: {
    status: 400,
    params: [],
    oauthError: "unsupported_grant_type",
    when: "Token endpoint: grant_type is missing or is not client_credentials.",
    remedy: "Send grant_type=client_credentials; it is the only grant the API supports.",
  },
  API_CLIENT_CREDENTIALS_INVALID: {
    status: 401,
    params: [],
    oauthError: "invalid_client",
    when: "Token endpoint: the client id is unknown or the secret is wrong (the two are not told apart).",
    remedy: "Check the credentials your club issued. Do not retry with the same ones.",
  },
  API_SCOPE_INVALID: {
    status: 400,
    params: ["scope"],
    oauthError: "invalid_scope",
    when: "Token endpoint: a requested scope does not exist or is not granted to this client; params.scope names it.",
    remedy: "Request only scopes your client holds, or omit scope to receive all of them.",
  },
  API_TOKEN_MISSING: {
    status: 401,
    params: [],
    when: "A data call came without an Authorization: Bearer header.",
    remedy: "Fetch a token from POST /api/v1/oauth/token and send it as Authorization: Bearer <token>.",
  },
  API_TOKEN_INVALID: {
    status: 401,
    params: [],
    when: "The bearer token is unknown, malformed, expired, signed by someone else, or was issued before the client's secret was rotated.",
    remedy: "Fetch a fresh token and retry once. If that fails too, stop and check your credentials.",
  },
  API_CLIENT_DISABLED: {
    status: 401,
    params: [],
    oauthError: "unauthorized_client",
    when: "The client has been disabled by its club. Data calls answer 401; the token endpoint answers 400 unauthorized_client.",
    remedy: "Do not retry. Ask the club to enable the client.",
  },
  API_CLIENT_EXPIRED: {
    status: 401,
    params: [],
    oauthError: "unauthorized_client",
    when: "The client is past its expiry date. Data calls answer 401; the token endpoint answers 400 unauthorized_client.",
    remedy: "Do not retry. Ask the club for a new expiry date or a new client.",
  },
  API_IP_NOT_ALLOWED: {
    status: 403,
    params: [],
    oauthError: "unauthorized_client",
    when: "The caller's IP address is not on the client's allowlist. Data calls answer 403; the token endpoint answers 400 unauthorized_client.",
    remedy: "Call from an allowed address, or ask the club to extend the allowlist.",
  },
  API_SCOPE_MISSING: {
    status: 403,
    params: ["scope"],
    when: "The token does not grant the scope this call needs; params.scope names it.",
    remedy: "Request a token with that scope; if the client does not hold it, ask the club to grant it.",
  },
  API_PARAM_INVALID: {
    status: 400,
    params: ["name"],
    when: "A parameter is missing, malformed or out of range; params.name names it.",
    remedy: "Fix the named parameter. Retrying the same request gives the same answer.",
  },
  API_ROUTE_NOT_FOUND: {
    status: 404,
    params: [],
    when: "No endpoint exists at this path and method.",
    remedy: "Check the path against the API reference.",
  },
  API_REQUEST_MALFORMED: {
    status: 400,
    params: [],
    when: "The request is not valid HTTP/1.1: a request line or header the server cannot parse (spaces, control characters or non-ASCII bytes in the path, an unknown method, a broken header line), or no Host header.",
    remedy: "Fix the client or proxy that sends it. Retrying the same bytes gives the same answer.",
  },
  API_REQUEST_HEADERS_TOO_LARGE: {
    status: 431,
    params: [],
    when: "The request's header section is larger than the server accepts (16 KiB).",
    remedy: "Send fewer or shorter headers.",
  },
  API_REQUEST_TIMEOUT: {
    status: 408,
    params: [],
    when: "The request's header section or body did not arrive in time.",
    remedy: "Send the whole request promptly; retry once the connection is sound.",
  },
  EVENT_NOT_FOUND: {
    status: 404,
    params: [],
    when: "The event id does not exist, is not your club's (as owner or co-host), is not published, is a legacy id, or is not a UUID. All answer identically.",
    remedy: "Use an id from the events list. Do not retry.",
  },
  RACE_NOT_FOUND: {
    status: 404,
    params: [],
    when: "The race id does not exist, belongs to an event you cannot see, or is not a UUID. All answer identically; a malformed id is 404, not 400.",
    remedy: "Use a race id from the event live status. Do not retry.",
  },
  START_GROUP_NOT_FOUND: {
    status: 404,
    params: [],
    when: "Track: the start group id is well-formed but not a start group of this race.",
    remedy: "Use a start group id from the race live answer.",
  },
  ENTRY_NOT_FOUND: {
    status: 404,
    params: [],
    when: "Track export: the entry id is well-formed but not a boat the start group shows (an entry of the group, approved, with a phone).",
    remedy: "Use an entryId from the race live answer or a track page of the same start group, or leave entryId out to export every boat.",
  },
  TRACKING_NOT_SHARED: {
    status: 404,
    params: [],
    when: "The event's club has not enabled tracking sharing (race endpoints only).",
    remedy: "Do not retry; the club must opt in to share tracking data.",
  },
  INGEST_CONFLICT: {
    status: 409,
    params: ["name"],
    ingestOnly: true,
    when: "IngestService: a reading (wind, live order, course version) with this natural key is already stored with other values; params.name names the key field. The stored one stands and nothing was written.",
    remedy: "Do not retry the same request. A reading is a fact once recorded: send a correction as a new reading at its own time.",
  },
  TRACKS_ALREADY_SERVED: {
    status: 400,
    params: [],
    ingestOnly: true,
    rpcCode: "FAILED_PRECONDITION",
    when: "IngestService.LoadRecordedTracks: the start group's event is, or has once been, published with tracking shared, so its track windows may already have been served as immutable. Nothing was written.",
    remedy:
      "Do not retry: load recorded tracks before the event is published and shared. Fixes of a race being served go through AppendFixes, within its settled-window rule.",
  },
  RATE_LIMIT_EXCEEDED: {
    status: 429,
    params: [],
    // Fixed by the spec, not computed from the rate-limit window.
    retryAfterSeconds: 60,
    when: "The client used up its requests for this minute in the bucket of this call (the RateLimit and RateLimit-Policy headers say which).",
    remedy: "Wait exactly Retry-After seconds (60), then retry.",
  },
  API_UNAVAILABLE: {
    status: 503,
    params: [],
    retryAfterSeconds: 30,
    when: "The read model did not answer in time. Nothing was cached.",
    remedy: "Wait exactly Retry-After seconds (30), then retry.",
  },
  INTERNAL_ERROR: {
    status: 500,
    params: [],
    when: "An unexpected server error. The traceId identifies it in our logs.",
    remedy: "Retry up to 3 attempts in total, with backoff of 1 s, 2 s and 4 s. Quote the traceId if you report it.",
  },
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}

export function errorSpec(code: ErrorCode): ErrorCodeSpec {
  return ERROR_CODES[code];
}
