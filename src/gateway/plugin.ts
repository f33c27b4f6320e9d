// The public REST API under /api/v1: a table of paths onto the same service
// implementations the Connect and gRPC listeners serve. The gateway translates and
// decides nothing: path and query become a request message, the response message
// becomes the spec's JSON, a ConnectError becomes problem+json, and the validators
// (ETag, 304) are computed from the bytes it sends.

import { ConnectError } from "@connectrpc/connect";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { AddressResolver } from "../auth/client-address.js";
import type { TokenEndpoint } from "../auth/token-endpoint.js";
import { ApiError, describeRpcError, errorHeaders, TRACE_ID_HEADER } from "../errors/api-error.js";
import { traceId, traceIdFrom } from "../services/context.js";
import type { Services } from "../services/routes.js";
import { chooseEncoding, encodedBody } from "./encoded-body.js";
import { matchesIfNoneMatch } from "./http-cache.js";
import { sendProblem } from "./problem.js";
import { restCallContext, type RestRoute } from "./rpc-call.js";
import { REST_ROUTES } from "./routes.js";

export interface GatewayDeps {
  services: Services;
  tokenEndpoint: TokenEndpoint;
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

    api.post("/oauth/token", async (request, reply) => {
      const answer = await deps.tokenEndpoint.handle({
        contentType: request.headers["content-type"],
        authorization: request.headers.authorization,
        body: typeof request.body === "string" ? request.body : "",
        address: deps.resolveAddress(request.raw),
      });
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    });

    for (const route of REST_ROUTES) {
      api.get(route.path, (request, reply) => serve(deps, route, request, reply));
    }

    api.setNotFoundHandler((request, reply) => {
      const trace = traceIdFrom(request.headers.traceparent);
      return sendProblem(reply, deps.errorsUrl, { code: "API_ROUTE_NOT_FOUND", params: {}, traceId: trace, headers: { [TRACE_ID_HEADER]: trace } });
    });

    api.setErrorHandler((error, request, reply) => {
      const trace = traceIdFrom(request.headers.traceparent);
      deps.logger.error({ traceId: trace, err: error, url: request.url }, "gateway failed");
      return sendProblem(reply, deps.errorsUrl, { code: "INTERNAL_ERROR", params: {}, traceId: trace, headers: { [TRACE_ID_HEADER]: trace } });
    });
  };
}

async function serve(deps: GatewayDeps, route: RestRoute, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const context = restCallContext(route.rpc, request, deps.resolveAddress);
  const trace = context.values.get(traceId);
  try {
    const message = await route.call(deps.services, request, context);
    const encoded = encodedBody(message, () => route.json(message));
    const representation = await encoded.representation(chooseEncoding(request.headers["accept-encoding"], encoded.identity.body.length));
    const headers: Record<string, string> = { ...Object.fromEntries(context.responseHeader), etag: representation.etag, vary: "Accept-Encoding" };
    // 304 carries the same validators and freshness (Cache-Control, X-Data-As-Of) as the 200 it stands for.
    if (encoded.tags().some((tag) => matchesIfNoneMatch(request.headers["if-none-match"], tag))) return reply.code(304).headers(headers).send();
    if (representation.encoding !== "identity") headers["content-encoding"] = representation.encoding;
    return reply.headers(headers).type("application/json").send(representation.body);
  } catch (error) {
    return sendProblem(reply, deps.errorsUrl, problemOf(error, trace, deps.logger));
  }
}

function problemOf(error: unknown, trace: string, logger: Logger) {
  if (error instanceof ConnectError) {
    const { code, params } = describeRpcError(error);
    return { code, params, traceId: trace, headers: Object.fromEntries(error.metadata) };
  }
  if (error instanceof ApiError) return { code: error.code, params: { ...error.params }, traceId: trace, headers: errorHeaders(error, trace) };
  logger.error({ traceId: trace, err: error }, "gateway failed");
  return { code: "INTERNAL_ERROR" as const, params: {}, traceId: trace, headers: { [TRACE_ID_HEADER]: trace } };
}
