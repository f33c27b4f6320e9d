// The Fastify schema of each REST route: its parameters (which Fastify validates),
// its answers with their headers (which the 200 serialiser and the OpenAPI document
// both read), and its errors, taken from the RPC's call policy.

import type { DescMethod, DescMethodUnary } from "@bufbuild/protobuf";
import type { FastifySchema } from "fastify";
// Brings the OpenAPI fields (summary, tags, security...) into FastifySchema.
import type {} from "@fastify/swagger";
import { NO_STORE as NO_STORE_VALUE, OPENAPI_CACHE_CONTROL, PRAGMA_NO_CACHE } from "../caching/cache-policy.js";
import type { DataBucket } from "../limits/policy.js";
import { callErrors, callPolicy } from "../calls/call-policies.js";
import { oauthErrorOf } from "../auth/token-endpoint.js";
import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import { ref, type JsonSchema } from "./json-schema-ref.js";
import { problem, tokenError as tokenErrorSchema } from "./problem-and-token-schemas.js";
import { PROBLEM_CONTENT_TYPE } from "./problem.js";

export const SECURITY_SCHEME = "oauth2";

/**
 * A response header. `always` marks the ones every such answer carries; the OpenAPI
 * document writes it as the header's `required` (openapi.ts), since Fastify's
 * response schemas have no place for it.
 */
const header = (description: string, schema: JsonSchema, always = true): JsonSchema => ({
  type: "string",
  ...schema,
  description,
  "x-always": always,
});

const TRACE_ID = header("Identifies this call in our logs; also traceId in error bodies.", { pattern: "^[0-9a-f]{32}$" });
const RATE_LIMIT_HEADERS = (always: boolean) => ({
  "RateLimit-Policy": header(
    'The bucket this call counts against, its quota and window (IETF draft-ietf-httpapi-ratelimit-headers), e.g. "tracking";q=120;w=60.',
    { maxLength: 100 },
    always,
  ),
  RateLimit: header('Calls left in the bucket and seconds until it refills, e.g. "tracking";r=119;t=42.', { maxLength: 100 }, always),
});
const RETRY_AFTER = (seconds: number) =>
  header(`Seconds to wait before retrying: always ${seconds}, never an HTTP date.`, { pattern: "^[0-9]+$" });
const NO_STORE = header("Errors are never cached.", { enum: [NO_STORE_VALUE] });
/** CORS (auth/origins.ts): which web page may read the answer, and the Vary that keeps pages apart in caches. */
const CORS = (vary: string, granted: string): Record<string, JsonSchema> => ({
  "Access-Control-Allow-Origin": header(
    `The Origin of the asking page, when ${granted}. Absent for any other page, and without an Origin header.`,
    { maxLength: 300 },
    false,
  ),
  "Access-Control-Expose-Headers": header("With Access-Control-Allow-Origin: the headers a page may read.", { maxLength: 200 }, false),
  Vary: header(
    vary === "Origin"
      ? "Answers differ by the asking page's origin (CORS)."
      : "Answers differ by compression and by the asking page's origin (CORS).",
    { enum: [vary] },
  ),
});
const DATA_CORS = CORS("Accept-Encoding, Origin", "the token's client or its club allows that origin");
const ERROR_CORS = CORS("Origin", "some client or club allows that origin (an error holds no data)");

export interface DataRouteDocs {
  rpc: DescMethodUnary;
  summary: string;
  description: string;
  tag: string;
  params?: JsonSchema;
  querystring?: JsonSchema;
  /** The $id of the 200 body's component schema. */
  body: string;
  /** The Cache-Control values the call sends (enum or pattern). */
  cacheControl: JsonSchema;
  /** Whether answers carry X-Data-As-Of (the race data endpoints). */
  dataAsOf?: boolean;
}

export function dataRouteSchema(route: DataRouteDocs): FastifySchema {
  const policy = callPolicy(route.rpc);
  const freshness: Record<string, JsonSchema> = {
    ETag: header("Strong validator of these exact bytes; send it back as If-None-Match.", { maxLength: 40 }),
    "Cache-Control": header(
      ["Private: answers are reached with a bearer token.", route.cacheControl.description].filter(Boolean).join(" "),
      route.cacheControl,
    ),
    ...(route.dataAsOf
      ? { "X-Data-As-Of": header("The body's dataAsOf: nothing in it is newer.", { format: "date-time", maxLength: 24 }) }
      : {}),
    ...RATE_LIMIT_HEADERS(true),
    "X-Trace-Id": TRACE_ID,
  };
  return {
    summary: route.summary,
    description: `${route.description}\n\nScope: ${policy.scope ?? "none (any valid token)"}. Rate limit: the ${bucketName(policy.bucket)} bucket.`,
    tags: [route.tag],
    operationId: lowerFirst(route.rpc.name),
    security: [{ [SECURITY_SCHEME]: policy.scope ? [policy.scope] : [] }],
    ...(route.params ? { params: route.params } : {}),
    ...(route.querystring ? { querystring: route.querystring } : {}),
    response: {
      200: { description: "OK", headers: { ...freshness, ...DATA_CORS }, content: { "application/json": { schema: ref(route.body) } } },
      304: {
        description: "Not Modified: If-None-Match matched. Same validators and freshness as the 200 it stands for, no body.",
        type: "null",
        headers: { ...freshness, ...DATA_CORS },
      },
      ...errorResponses(callErrors(policy), exampleParams(policy.scope, route.querystring)),
      "4XX": OTHER_CLIENT_ERRORS,
    },
  };
}

export interface StreamRouteDocs {
  rpc: DescMethod;
  summary: string;
  description: string;
  tag: string;
  params: JsonSchema;
  querystring?: JsonSchema;
  eventName: string;
  /** The $id of each event's data: the polled endpoint's body. */
  body: string;
}

/** A Watch stream as Server-Sent Events: 200 text/event-stream once the call is accepted, problem+json before. */
export function streamRouteSchema(route: StreamRouteDocs): FastifySchema {
  const policy = callPolicy(route.rpc);
  return {
    summary: route.summary,
    description: `${route.description}

Each event is \`id: <event id>\`, \`event: ${route.eventName}\` and one \`data:\` line holding the ${route.body} JSON the polled endpoint answers at that moment. A comment line \`: heartbeat\` comes when nothing changed for a while (15 s by default). Reconnect with the \`Last-Event-ID\` header: the last state you saw is not sent again, a newer one at once. The token goes in the Authorization header only, so a web page reads the stream with fetch and a streaming body reader, not EventSource (which cannot send headers). In this reference, "Try it out" shows the first 5 seconds of the stream, then closes it. Opening counts as one call against the ${bucketName(policy.bucket)} bucket; a client may hold a bounded number of open streams per server (10 by default; 429 RATE_LIMIT_EXCEEDED beyond). The guard runs again every second: a disabled, expired or rotated client, a removed scope or an expired token ends the stream within 5 seconds with an \`event: error\` whose data is the problem. A client that reads nothing for 30 s (by default) is dropped. On shutdown the stream ends; reconnect.

Scope: ${policy.scope}.`,
    tags: [route.tag],
    operationId: lowerFirst(route.rpc.name),
    security: [{ [SECURITY_SCHEME]: policy.scope ? [policy.scope] : [] }],
    params: route.params,
    ...(route.querystring ? { querystring: route.querystring } : {}),
    headers: {
      type: "object",
      properties: {
        "last-event-id": {
          type: "string",
          maxLength: 64,
          description: "The id of the last event received, when reconnecting. Any other value means: send the newest.",
        },
      },
    },
    response: {
      200: {
        description: `The stream: \`${route.eventName}\` events whose data is ${route.body} (see its schema), and heartbeats.`,
        headers: {
          "Cache-Control": header("Never cached.", { enum: [NO_STORE_VALUE] }),
          ...RATE_LIMIT_HEADERS(true),
          "X-Trace-Id": TRACE_ID,
          ...CORS("Origin", "the token's client or its club allows that origin"),
        },
        content: {
          "text/event-stream": {
            schema: { type: "string", description: `Server-Sent Events; each data line is a ${route.body}.` },
            // OpenAPI 3.1 cannot say what each event holds (3.2's itemSchema can): the data's schema, for tools and tests.
            "x-sse-data": ref(route.body),
          },
        },
      },
      ...errorResponses(callErrors(policy), exampleParams(policy.scope, route.querystring)),
      "4XX": OTHER_CLIENT_ERRORS,
    },
  };
}

export interface DownloadRouteDocs {
  rpc: DescMethod;
  summary: string;
  description: string;
  tag: string;
  params: JsonSchema;
  querystring: JsonSchema;
  /** The media types the file may have, with their parameters. */
  mediaTypes: readonly string[];
  /** The Cache-Control values the call sends. */
  cacheControl: JsonSchema;
}

/** A file streamed by a server-streaming RPC (download.ts): 200 with the file once the call is accepted, problem+json before. */
export function downloadRouteSchema(route: DownloadRouteDocs): FastifySchema {
  const policy = callPolicy(route.rpc);
  const freshness: Record<string, JsonSchema> = {
    ETag: header(
      "Weak validator, on a settled export only (see Cache-Control); known before anything is read: send it back as If-None-Match for a 304.",
      { maxLength: 40 },
      false,
    ),
    "Cache-Control": header(
      ["Private: answers are reached with a bearer token.", route.cacheControl.description].filter(Boolean).join(" "),
      route.cacheControl,
    ),
    "X-Data-As-Of": header("The delayed cut-off the file was cut at: nothing in it is newer.", { format: "date-time", maxLength: 24 }),
    ...RATE_LIMIT_HEADERS(true),
    "X-Trace-Id": TRACE_ID,
  };
  return {
    summary: route.summary,
    description: `${route.description}\n\nScope: ${policy.scope}. Rate limit: the ${bucketName(policy.bucket)} bucket.`,
    tags: [route.tag],
    operationId: lowerFirst(route.rpc.name),
    security: [{ [SECURITY_SCHEME]: policy.scope ? [policy.scope] : [] }],
    params: route.params,
    querystring: route.querystring,
    response: {
      200: {
        description: "The file, streamed as it is read.",
        headers: {
          ...freshness,
          "Content-Disposition": header('attachment; filename="<event>_<race>_<group>[_<sail number>].<extension>"', {
            pattern: '^attachment; filename="[a-z0-9_.-]+"$',
          }),
          "Content-Encoding": header("br or gzip when the request's Accept-Encoding takes it.", { enum: ["br", "gzip"] }, false),
          ...DATA_CORS,
        },
        content: Object.fromEntries(
          route.mediaTypes.map((mediaType) => [
            mediaType.split(";")[0]!,
            { schema: { type: "string", format: "binary", description: `Sent as Content-Type: ${mediaType}` } },
          ]),
        ),
      },
      304: {
        description: "Not Modified: If-None-Match named a settled export's ETag. Same validators and freshness, no body; nothing was read.",
        type: "null",
        headers: { ...freshness, ...DATA_CORS },
      },
      ...errorResponses(callErrors(policy), exampleParams(policy.scope, route.querystring)),
      "4XX": OTHER_CLIENT_ERRORS,
    },
  };
}

/**
 * Replaced by `{errors_url}` in the served document (openapi.ts): the route schemas are
 * built once, before any configuration is known.
 */
export const ERRORS_URL_PLACEHOLDER = "ERRORS_URL";
const EXAMPLE_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

/** Values of `params` in the examples of a call's errors: the scope it needs, its first query parameter. */
function exampleParams(scope: string | null, querystring: JsonSchema | undefined): Record<string, string> {
  const firstParameter = Object.keys((querystring?.properties as Record<string, unknown> | undefined) ?? {})[0];
  return { scope: scope ?? "tracking:read", name: firstParameter ?? "page" };
}

/** One problem body as the call answers it, with its documented status, code and params. */
function problemExample(code: ErrorCode, params: Record<string, string>, status: number = ERROR_CODES[code].status): JsonSchema {
  const spec = ERROR_CODES[code];
  const value: Record<string, unknown> = { type: `${ERRORS_URL_PLACEHOLDER}#${code}`, status, code };
  if (spec.params.length > 0) value.params = Object.fromEntries(spec.params.map((name) => [name, params[name] ?? ""]));
  value.traceId = EXAMPLE_TRACE_ID;
  return { summary: `${status} ${code}`, value };
}

/**
 * One response per status, its body a problem whose status and code are those this
 * call can answer there. The schema is the Problem component with `status` and `code`
 * narrowed in place rather than by `allOf` (Swagger UI builds its example from the first
 * branch alone, which showed every error as 400 API_TOKEN_REQUEST_INVALID), and each
 * code has a named example.
 */
function errorResponses(codes: readonly ErrorCode[], params: Record<string, string>): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  const responses: Record<string, JsonSchema> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: statusCodes.map((code) => `${code}: ${ERROR_CODES[code].when}`).join("\n\n"),
      headers: errorHeaders(status, statusCodes),
      content: {
        [PROBLEM_CONTENT_TYPE]: {
          schema: narrowed(problem, {
            status: { type: "integer", format: "int32", enum: [status] },
            code: { type: "string", enum: statusCodes },
          }),
          examples: Object.fromEntries(statusCodes.map((code) => [code, problemExample(code, params)])),
        },
      },
    };
  }
  return responses;
}

/** A component's schema with some properties replaced, inline: what Swagger UI reads whole. */
function narrowed(component: JsonSchema, properties: Record<string, JsonSchema>): JsonSchema {
  const { $id: _id, ...schema } = component;
  return { ...schema, properties: { ...(schema.properties as Record<string, JsonSchema>), ...properties } };
}

const OTHER_CLIENT_ERRORS: JsonSchema = {
  description: "Any other client error, e.g. API_ROUTE_NOT_FOUND for a path or method the API does not have.",
  headers: ERROR_CORS,
  content: {
    [PROBLEM_CONTENT_TYPE]: { schema: ref("Problem"), examples: { API_ROUTE_NOT_FOUND: problemExample("API_ROUTE_NOT_FOUND", {}) } },
  },
};

function errorHeaders(status: number, codes: readonly ErrorCode[]): Record<string, JsonSchema> {
  const headers: Record<string, JsonSchema> = { "Cache-Control": NO_STORE, "X-Trace-Id": TRACE_ID, ...ERROR_CORS };
  if (status === 401)
    headers["WWW-Authenticate"] = header('RFC 6750 Bearer challenge; error="invalid_token" when a token was sent.', { maxLength: 200 });
  if (codes.includes("API_SCOPE_MISSING"))
    headers["WWW-Authenticate"] = header(
      'API_SCOPE_MISSING only: error="insufficient_scope" and the scope needed.',
      { maxLength: 200 },
      false,
    );
  const retryAfter = codes.map((code) => ERROR_CODES[code]).find((spec) => "retryAfterSeconds" in spec);
  if (retryAfter && "retryAfterSeconds" in retryAfter) headers["Retry-After"] = RETRY_AFTER(retryAfter.retryAfterSeconds);
  // A call the guard let through has counted against its bucket, and says so even when it fails.
  if (status === 429) Object.assign(headers, RATE_LIMIT_HEADERS(true));
  else if (status === 400 || status === 404 || status === 503) Object.assign(headers, RATE_LIMIT_HEADERS(false));
  return headers;
}

function bucketName(bucket: DataBucket): string {
  return bucket === "tracking" ? "tracking (shared by the tracking:read endpoints)" : "general";
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

// RFC 6749 appendix A: client-id and client-secret are VSCHARs, scope is scope-tokens separated by spaces.
const VSCHARS = "^[\\x20-\\x7E]*$";
const SCOPE_LIST = "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+( [\\x21\\x23-\\x5B\\x5D-\\x7E]+)*$";

const TOKEN_ANSWER_HEADERS = {
  "Cache-Control": header("RFC 6749 5.1: tokens are never cached.", { enum: [NO_STORE_VALUE] }),
  Pragma: header("For HTTP/1.0 caches.", { enum: [PRAGMA_NO_CACHE] }),
};
/** A token endpoint error answer: its codes' RFC 6749 bodies, narrowed and with an example each, as for problems. */
const tokenError = (codes: readonly ErrorCode[], headers: Record<string, JsonSchema> = {}) => ({
  description: codes.map((code) => `${code}: ${ERROR_CODES[code].when}`).join("\n\n"),
  headers: { ...TOKEN_ANSWER_HEADERS, ...ERROR_CORS, ...headers },
  content: {
    "application/json": {
      schema: narrowed(tokenErrorSchema, {
        error: { type: "string", enum: [...new Set(codes.map(oauthErrorOf))] },
        code: { type: "string", enum: codes },
      }),
      examples: Object.fromEntries(
        codes.map((code) => {
          const value: Record<string, unknown> = { error: oauthErrorOf(code), code };
          if (ERROR_CODES[code].params.length > 0) value.params = { scope: "results:read" };
          return [code, { summary: `${code}`, value }];
        }),
      ),
    },
  },
});

/**
 * POST /api/v1/oauth/token. The token endpoint answers a malformed form with its own
 * RFC 6749 error, so the body schema documents the form and the route does not
 * validate against it (plugin.ts); the answers are serialised by these schemas.
 */
export const TOKEN_ROUTE_SCHEMA: FastifySchema = {
  summary: "Get an access token",
  description:
    "OAuth 2.0 client credentials grant (RFC 6749 section 4.4). Send the client id and secret either with HTTP Basic authentication or as the form fields client_id and client_secret, never both. Errors are RFC 6749 bodies with the API's code beside the `error`, not problem+json. Limited to 20 requests a minute per client id and, separately, per caller IP.",
  tags: ["Access"],
  operationId: "createToken",
  security: [],
  consumes: ["application/x-www-form-urlencoded"],
  body: {
    type: "object",
    required: ["grant_type"],
    properties: {
      grant_type: { type: "string", enum: ["client_credentials"] },
      scope: {
        type: "string",
        maxLength: 1000,
        pattern: SCOPE_LIST,
        description: "Space-separated subset of the client's scopes; omitted: all of them.",
      },
      client_id: { type: "string", maxLength: 128, pattern: VSCHARS, description: "Unless sent with HTTP Basic." },
      client_secret: { type: "string", maxLength: 1000, pattern: VSCHARS, description: "Unless sent with HTTP Basic." },
    },
  },
  response: {
    200: {
      description: "The token.",
      headers: { ...TOKEN_ANSWER_HEADERS, ...CORS("Origin", "the client or its club allows that origin") },
      content: { "application/json": { schema: ref("TokenResponse") } },
    },
    400: tokenError([
      "API_TOKEN_REQUEST_INVALID",
      "API_GRANT_TYPE_UNSUPPORTED",
      "API_SCOPE_INVALID",
      "API_CLIENT_DISABLED",
      "API_CLIENT_EXPIRED",
      "API_IP_NOT_ALLOWED",
    ]),
    401: tokenError(["API_CLIENT_CREDENTIALS_INVALID"], {
      "WWW-Authenticate": header("When the credentials came with HTTP Basic.", { enum: ['Basic realm="race-api"'] }, false),
    }),
    429: tokenError(["RATE_LIMIT_EXCEEDED"], {
      "Retry-After": RETRY_AFTER(ERROR_CODES.RATE_LIMIT_EXCEEDED.retryAfterSeconds),
      ...RATE_LIMIT_HEADERS(true),
    }),
    500: tokenError(["INTERNAL_ERROR"]),
    503: tokenError(["API_UNAVAILABLE"], { "Retry-After": RETRY_AFTER(ERROR_CODES.API_UNAVAILABLE.retryAfterSeconds) }),
  },
};

export const OPENAPI_ROUTE_SCHEMA: FastifySchema = {
  summary: "This API's OpenAPI 3.1 document",
  description:
    "Generated from the schemas that validate requests and serialise answers, so it describes exactly what the API does. No token needed.",
  tags: ["Meta"],
  operationId: "getOpenApiDocument",
  security: [],
  response: {
    200: {
      description: "The document.",
      headers: {
        ETag: header("Strong validator.", { maxLength: 40 }),
        "Cache-Control": header("Public: the same for every caller.", { enum: [OPENAPI_CACHE_CONTROL] }),
        ...CORS("Accept-Encoding, Origin", "some client or club allows that origin"),
      },
      content: {
        "application/json": {
          schema: { type: "object", required: ["openapi", "info", "paths"], properties: { openapi: { type: "string", const: "3.1.0" } } },
        },
      },
    },
    304: {
      description: "Not Modified: If-None-Match matched.",
      type: "null",
      headers: CORS("Accept-Encoding, Origin", "some client or club allows that origin"),
    },
    500: {
      description: "INTERNAL_ERROR: an unexpected failure; retry up to 3 attempts with backoff.",
      headers: ERROR_CORS,
      content: { [PROBLEM_CONTENT_TYPE]: { schema: ref("Problem") } },
    },
  },
};
