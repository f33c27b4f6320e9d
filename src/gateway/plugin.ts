// The public REST API under /api/v1: a table of paths onto the same service
// implementations the Connect and gRPC listeners serve. The gateway translates and
// decides nothing: path and query (checked by each route's schema) become a request
// message, the response message becomes the spec's JSON, a stream's messages become
// Server-Sent Events, a ConnectError becomes problem+json, the validators (ETag,
// 304) are computed from the bytes it sends, and the CORS headers the origin policy
// (auth/origins.ts) gives are sent with each answer.

import type { DescMethod } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from "fastify";
import type { Logger } from "pino";
import type { AddressResolver } from "../auth/client-address.js";
import type { KnownOrigins } from "../auth/origins.js";
import type { TokenEndpoint } from "../auth/token-endpoint.js";
import { NO_STORE, OPENAPI_CACHE_CONTROL } from "../caching/cache-policy.js";
import { describeRpcError, TRACE_ID_HEADER } from "../errors/api-error.js";
import { classify } from "../errors/classify.js";
import { traceId, traceIdFrom } from "../calls/context.js";
import type { StreamTiming } from "../calls/feeds.js";
import type { Services } from "../calls/connect-routes.js";
import type { CallOpener } from "../calls/admission.js";
import { inRpcSpan } from "../calls/guarded.js";
import { drainRequest } from "../calls/unread-bodies.js";
import { chooseEncoding, encodedBody, type EncodedBody, type Representation } from "./encoded-body.js";
import { matchesIfNoneMatch } from "../caching/validators.js";
import { problemJson, problemOf, sendProblem, type Problem } from "./problem.js";
import { restCallContext, type Query, type RestCallContext, type RestRoute } from "./rpc-call.js";
import { OPENAPI_ROUTE_SCHEMA, TOKEN_ROUTE_SCHEMA } from "./route-schemas.js";
import { DOWNLOAD_ROUTES, REST_ROUTES, STREAM_ROUTES } from "./rest-routes.js";
import { fileHeaders, writeDownload, type DownloadRoute } from "./download.js";
import { STREAM_HEADERS, writeStream, type StreamRoute } from "./sse.js";
import { recordRestStreamEnd } from "../telemetry/request-metrics.js";
import type { ExportTrackResponse } from "../../gen/racing/v1/track_pb.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The RPC a data route calls: its error handler opens that call before answering a refused parameter. */
    rpc?: DescMethod;
  }
}

export interface GatewayDeps {
  services: Services;
  /** Opens a data call before its parameters are read: authentication first (calls/admission.ts). */
  openCall: CallOpener;
  streamTiming: StreamTiming;
  tokenEndpoint: TokenEndpoint;
  origins: KnownOrigins;
  resolveAddress: AddressResolver;
  errorsUrl: string;
  logger: Logger;
}

export function gateway(deps: GatewayDeps) {
  return async (api: FastifyInstance) => {
    // Every body reaches the token endpoint as text, so it can answer a wrong
    // content type with its own OAuth error rather than Fastify's 415.
    api.removeAllContentTypeParsers();
    api.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

    // The token endpoint checks its form itself: the schema only documents it (route-schemas.ts).
    const token = async (request: FastifyRequest, reply: FastifyReply, body: string | null) => {
      const answer = await deps.tokenEndpoint.handle({
        contentType: request.headers["content-type"],
        authorization: request.headers.authorization,
        body,
        address: deps.resolveAddress(request.raw),
        origin: request.headers.origin,
      });
      return reply.code(answer.status).headers(answer.headers).type("application/json").send(answer.body);
    };
    api.post(
      "/oauth/token",
      {
        schema: TOKEN_ROUTE_SCHEMA,
        validatorCompiler: () => () => true,
        // A body Fastify could not read (over the size limit, an unparsable Content-Type,
        // cut short by the client) is the endpoint's to answer, in RFC 6749's form.
        errorHandler: (error: FastifyError, request, reply) => {
          if ((error.statusCode ?? 500) >= 500) throw error;
          // Fastify closes the connection after a body it did not read, and a client still
          // sending would lose the answer: the rest is read and dropped instead.
          reply.removeHeader("connection");
          drainRequest(request.raw);
          return token(request, reply, null);
        },
      },
      (request, reply) => token(request, reply, typeof request.body === "string" ? request.body : ""),
    );

    api.get("/openapi.json", { schema: OPENAPI_ROUTE_SCHEMA }, async (request, reply) => {
      const document = api.swagger();
      const encoded = encodedBody(document, () => JSON.stringify(document));
      const cors = request.headers.origin === undefined ? {} : await deps.origins.withoutData(request.headers.origin);
      return sendEncoded(request, reply, encoded, { "cache-control": OPENAPI_CACHE_CONTROL, ...cors });
    });

    for (const route of REST_ROUTES) api.get(route.path, routeOptions(route), (request, reply) => serve(deps, route, request, reply));
    for (const route of STREAM_ROUTES)
      api.get(route.path, routeOptions(route), (request, reply) => serveStream(deps, route, request, reply));
    for (const route of DOWNLOAD_ROUTES)
      api.get(route.path, routeOptions(route), (request, reply) => serveDownload(deps, route, request, reply));

    // CORS preflights (OPTIONS): a page asks whether it may send its token. The answer
    // carries no token, so the policy answers for the origin alone (auth/origins.ts).
    const methods = new Map<string, string>([
      ["/oauth/token", "POST"],
      ["/openapi.json", "GET, HEAD"],
    ]);
    for (const route of [...REST_ROUTES, ...STREAM_ROUTES, ...DOWNLOAD_ROUTES]) methods.set(route.path, "GET, HEAD");
    for (const [path, allowed] of methods) api.options(path, (request, reply) => answerOptions(deps, allowed, request, reply));
    api.addHook("onSend", (request, reply, payload, done) => {
      reply.header("vary", withOrigin(reply.getHeader("vary")));
      const origin = request.headers.origin;
      // An error holds no client's data; the page may read it when the policy says so (a 401 tells it to fetch a new token).
      if (origin === undefined || reply.statusCode < 400 || reply.hasHeader("access-control-allow-origin")) return done(null, payload);
      deps.origins.withoutData(origin).then(
        (cors) => {
          reply.headers(cors);
          done(null, payload);
        },
        // Without the known origins the answer goes out ungranted: the page retries, nobody is granted by mistake.
        (error: unknown) => {
          deps.logger.warn({ err: error }, "CORS: known origins unavailable");
          done(null, payload);
        },
      );
    });

    api.setNotFoundHandler((request, reply) => {
      const trace = traceIdFrom(request.headers.traceparent);
      return sendProblem(reply, deps.errorsUrl, {
        code: "API_ROUTE_NOT_FOUND",
        params: {},
        traceId: trace,
        headers: { [TRACE_ID_HEADER]: trace },
      });
    });

    api.setErrorHandler(async (error: FastifyError, request, reply) => {
      const trace = traceIdFrom(request.headers.traceparent);
      // A path or query value the route's schema refuses: the parameter at fault, by name,
      // once the call is admitted (authentication first), with its rate-limit standing.
      if (error.validation) {
        const rpc = request.routeOptions.config.rpc;
        const context = rpc && restCallContext(rpc, request, deps.resolveAddress);
        const admission = context ? await deps.openCall(rpc, context.requestHeader, context.values) : undefined;
        if (context && admission && "refusal" in admission)
          return sendProblem(reply, deps.errorsUrl, callProblem(admission.refusal, context, deps.logger));
        const callTrace = context?.values.get(traceId) ?? trace;
        return sendProblem(reply, deps.errorsUrl, {
          code: "API_PARAM_INVALID",
          params: { name: parameterName(error.validation[0]!) },
          traceId: callTrace,
          headers: { ...(admission && "headers" in admission ? admission.headers : {}), [TRACE_ID_HEADER]: callTrace },
        });
      }
      return sendProblem(reply, deps.errorsUrl, problemOf(classify(error, deps.logger, { traceId: trace, url: request.url }), trace));
    });
  };
}

/** The route's schema and RPC, and its query adjustment and integer check before the schema validates. */
function routeOptions(route: { rpc: DescMethod; schema: FastifySchema; normalizeQuery?: (query: Query) => void }) {
  const normalize = route.normalizeQuery;
  const integers = integerParameters(route.schema);
  // The error handler opens the call before it answers a parameter the schema refused.
  const config = { rpc: route.rpc };
  // Only where there is something to do: an async hook costs every request of its route a promise and a hook run.
  if (!normalize && integers.length === 0) return { schema: route.schema, config };
  return {
    schema: route.schema,
    config,
    preValidation: async (request: FastifyRequest) => {
      const query = request.query as Query;
      normalize?.(query);
      refuseNonDecimal(query, integers);
    },
  };
}

/** The query parameters the schema types as integers. */
function integerParameters(schema: FastifySchema): string[] {
  const properties = (schema.querystring as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {};
  return Object.keys(properties).filter((name) => properties[name]!.type === "integer");
}

const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]*)$/;

/**
 * An integer in the query is written in plain decimal. The schema's coercion would take
 * whatever Number() reads (0x2, 1e0, +2, " 2", 02, 2.0, Infinity): refused here as the
 * schema refuses any other invalid value, naming the parameter.
 */
function refuseNonDecimal(query: Query, names: readonly string[]): void {
  for (const name of names) {
    const value = query[name];
    if (typeof value === "string" && !DECIMAL_INTEGER.test(value)) {
      throw Object.assign(new Error(`querystring/${name} must be a decimal integer`), {
        statusCode: 400,
        validation: [{ instancePath: `/${name}`, params: {} }],
      });
    }
  }
}

async function serve(deps: GatewayDeps, route: RestRoute, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const context = restCallContext(route.rpc, request, deps.resolveAddress);
  try {
    // Authentication first: the call is admitted before its parameters become a request message.
    const message = await inRpcSpan(route.rpc, context.requestHeader, context.values, async () => {
      const admission = await deps.openCall(route.rpc, context.requestHeader, context.values);
      if ("refusal" in admission) throw admission.refusal;
      for (const [name, value] of Object.entries(admission.headers)) context.responseHeader.set(name, value);
      return route.call(deps.services, request, context);
    });
    // The route's 200 schema writes the bytes (fast-json-stringify), unless the route has its own writer.
    // The route's function, not the reply: a kept body may serialise again long after this request.
    const serialize = route.stringify ?? reply.getSerializationFunction("200", "application/json")!;
    const encoded = encodedBody(message, () => serialize(route.json(message) as Record<string, unknown>));
    // The reply is a thenable: awaiting it settles the handler's promise only once the answer is out, even when an onSend hook (CORS) lets it go later.
    return await sendEncoded(request, reply, encoded, context.responseHeader.record);
  } catch (error) {
    return sendProblem(reply, deps.errorsUrl, callProblem(error, context, deps.logger));
  }
}

/**
 * A Watch stream as SSE. Until its first message the call can still fail like a
 * unary one (guard, race, stream cap): then it is a problem+json answer.
 */
async function serveStream(deps: GatewayDeps, route: StreamRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const clientLeft = new AbortController();
  reply.raw.once("close", () => clientLeft.abort());
  const context = restCallContext(route.rpc, request, deps.resolveAddress, clientLeft.signal);
  const messages = route.open(deps.services, request, context);
  let first: IteratorResult<object>;
  try {
    first = await messages.next();
  } catch (error) {
    await sendProblem(reply, deps.errorsUrl, callProblem(error, context, deps.logger));
    return;
  }
  if (first.done) return void reply.code(204).send();
  // HEAD has no body to carry a stream: the headers GET would start with, once the same
  // checks passed, and the stream (with its slot) ends at once.
  if (request.method === "HEAD") {
    await messages.return?.();
    return void reply.headers({ ...Object.fromEntries(context.responseHeader), ...STREAM_HEADERS }).send();
  }
  const serialize = reply.compileSerializationSchema(route.dataSchema) as (json: unknown) => string;
  // The stream writes its own head (no onSend hook runs): the call's headers, its CORS grant among them.
  const headers = { ...context.responseHeader.record, vary: "Origin" };
  await writeStream(reply, route, messages, first.value, headers, serialize, {
    stallMs: deps.streamTiming.stallMs,
    problemBody: (error) => {
      const { code, params, traceId: trace } = callProblem(error, context, deps.logger);
      return problemJson(deps.errorsUrl, { code, params, traceId: trace });
    },
  });
}

/**
 * A file streamed by its RPC. Until the file's first message the call can still fail
 * like a unary one (guard, race, group, entry, export cap): then it is a problem+json
 * answer. A not_modified message is 304; HEAD gets the head GET would start with.
 */
async function serveDownload(deps: GatewayDeps, route: DownloadRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const clientLeft = new AbortController();
  reply.raw.once("close", () => clientLeft.abort());
  const context = restCallContext(route.rpc, request, deps.resolveAddress, clientLeft.signal);
  const messages = route.open(deps.services, request, context);
  let first: IteratorResult<ExportTrackResponse>;
  try {
    first = await messages.next();
  } catch (error) {
    await sendProblem(reply, deps.errorsUrl, callProblem(error, context, deps.logger));
    return;
  }
  const headers = context.responseHeader.record;
  if (first.done || first.value.notModified || request.method === "HEAD") {
    await messages.return?.();
    if (first.done) throw new Error(`${route.rpc.name} ended without a message`);
    if (first.value.notModified) return void reply.code(304).headers(headers).send();
    return void reply.headers({ ...headers, ...fileHeaders(first.value), vary: "Accept-Encoding" }).send();
  }
  const encoding = chooseEncoding(request.headers["accept-encoding"], Number.POSITIVE_INFINITY);
  // The file writes its own head (no onSend hook runs): the call's headers, its CORS grant among them.
  reply.hijack();
  reply.raw.writeHead(200, {
    ...headers,
    ...fileHeaders(first.value),
    ...(encoding === "identity" ? {} : { "content-encoding": encoding }),
    vary: "Accept-Encoding, Origin",
  });
  let failure: unknown;
  try {
    await writeDownload(reply.raw, messages, encoding);
  } catch (error) {
    failure = error;
    // A client gone is no failure of ours; anything else is logged as every call's failure is.
    if (!clientLeft.signal.aborted) callProblem(error, context, deps.logger);
    reply.raw.destroy();
  } finally {
    recordRestStreamEnd(request, failure);
  }
}

/** OPTIONS: a CORS preflight's answer from the policy, or the methods of the path. */
async function answerOptions(deps: GatewayDeps, methods: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const origin = request.headers.origin;
  const preflight = origin !== undefined && request.headers["access-control-request-method"] !== undefined;
  let cors: Record<string, string> = {};
  try {
    if (preflight) cors = await deps.origins.preflight(origin, methods);
  } catch (error) {
    // A preflight's failure cannot be read by the page anyway: no grant, and the page tries again.
    deps.logger.warn({ err: error }, "CORS: known origins unavailable");
  }
  return reply
    .code(204)
    .headers({ allow: methods, "cache-control": NO_STORE, ...cors })
    .send();
}

/** Answers differ by the page asking: shared caches must keep them apart. */
function withOrigin(vary: string | number | string[] | undefined): string {
  if (vary === undefined) return "Origin";
  return `${Array.isArray(vary) ? vary.join(", ") : String(vary)}, Origin`;
}

/**
 * The answer in the encoding the client prefers, or 304 when If-None-Match names it.
 * A representation made before (every cached answer's) is sent at once, with no
 * promise: only a first compression is waited for. `headers` are this answer's own
 * (the call's record, or a literal): the validators are added to them, not to a copy.
 */
function sendEncoded(
  request: FastifyRequest,
  reply: FastifyReply,
  encoded: EncodedBody,
  headers: Record<string, string>,
): FastifyReply | Promise<FastifyReply> {
  const chosen = encoded.representation(chooseEncoding(request.headers["accept-encoding"], encoded.size));
  if (chosen instanceof Promise)
    return chosen.then((representation) => sendRepresentation(request, reply, encoded, representation, headers));
  return sendRepresentation(request, reply, encoded, chosen, headers);
}

function sendRepresentation(
  request: FastifyRequest,
  reply: FastifyReply,
  encoded: EncodedBody,
  representation: Representation,
  headers: Record<string, string>,
): FastifyReply {
  headers.etag = representation.etag;
  headers.vary = "Accept-Encoding";
  // 304 carries the same validators and freshness (Cache-Control, X-Data-As-Of) as the 200 it stands for.
  const ifNoneMatch = request.headers["if-none-match"];
  if (ifNoneMatch !== undefined && encoded.tags().some((tag) => matchesIfNoneMatch(ifNoneMatch, tag)))
    return reply.code(304).headers(headers).send();
  if (representation.encoding !== "identity") headers["content-encoding"] = representation.encoding;
  // Set with the rest rather than by reply.type(): one pass over the headers.
  headers["content-type"] = "application/json";
  return reply.headers(headers).send(representation.body);
}

/** The parameter an ajv error is about: a missing one, or the first segment of the failing path. */
function parameterName(error: { instancePath: string; params: Record<string, unknown> }): string {
  if (typeof error.params.missingProperty === "string") return error.params.missingProperty;
  return error.instancePath.split("/")[1] ?? "";
}

/** What a call's failure answers: the RPC's error as it stands, anything else as classify() has it. */
function callProblem(error: unknown, context: RestCallContext, logger: Logger): Problem {
  const trace = context.values.get(traceId);
  if (error instanceof ConnectError) {
    const { code, params } = describeRpcError(error);
    // As Connect does: the headers the call set (its rate-limit standing), then the error's own.
    return { code, params, traceId: trace, headers: { ...context.responseHeader.record, ...Object.fromEntries(error.metadata) } };
  }
  return problemOf(classify(error, logger, { traceId: trace }), trace);
}
