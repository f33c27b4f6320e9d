// Builds the HTTP/1.1 application: the public REST gateway under /api/v1, the Connect
// plugin (Connect and gRPC-Web on the same service implementations as the gRPC
// listener), the errors page and the health probes. It never listens itself, so
// tests can build as many apps as they like.

import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import { ERRORS_PAGE_CACHE_CONTROL } from "../caching/cache-policy.js";
import { errorsPage } from "../docs/errors-page.js";
import { referenceOptions } from "../docs/reference.js";
import { overlayPage } from "../overlay/static-files.js";
import { COMPONENT_SCHEMAS } from "../gateway/json-schemas.js";
import { openApiOptions } from "../gateway/openapi.js";
import { gateway } from "../gateway/plugin.js";
import { sendProblem } from "../gateway/problem.js";
import { wellKnown } from "../gateway/well-known.js";
import { TRACE_ID_HEADER } from "../errors/api-error.js";
import { ERROR_CODES } from "../errors/codes.js";
import { clientErrorHandler, hostRequired, keepUndecodableSegments } from "../gateway/unroutable-requests.js";
import type { Runtime } from "./runtime.js";
import { callContext, traceIdFrom } from "../calls/context.js";
import { RequestLog } from "../telemetry/request-log.js";
import { connectRoutes, READ_OPTIONS } from "../calls/connect-routes.js";
import { recordRestResponse, rpcMetrics } from "../telemetry/request-metrics.js";

const READINESS_TIMEOUT_MS = 2000;
/** Node refuses request heads over 16 KiB, so no path parameter is longer than this. */
const MAX_PATH_PARAM_LENGTH = 16 * 1024;
const LARGE_ARRAY_SIZE = 100;

export async function buildApp(runtime: Runtime): Promise<FastifyInstance> {
  // A long id is still an id that does not exist (404 RACE_NOT_FOUND), not a route
  // that does not: Fastify's default of 100 characters would answer API_ROUTE_NOT_FOUND.
  const app = Fastify({
    loggerInstance: runtime.logger as FastifyBaseLogger,
    logController: new RequestLog(),
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    // fast-json-stringify writes a long array item by item, three times slower than
    // JSON.stringify for a track page's number arrays; its own switch hands arrays
    // longer than this to JSON.stringify. The mappers build exactly the schema's fields.
    serializerOpts: { largeArrayMechanism: "json-stringify", largeArraySize: LARGE_ARRAY_SIZE },
    // While shutting down, a request on a kept-alive connection is answered as usual
    // rather than with Fastify's own 503 body, which is not problem+json: the server
    // closes each connection as soon as it is idle (server.ts).
    return503OnClosing: false,
    // Requests that go wrong before routing get problem+json too (unroutable-requests.ts).
    rewriteUrl: (request) => keepUndecodableSegments(request.url ?? "/"),
    clientErrorHandler: clientErrorHandler(runtime.errorsUrl, runtime.logger),
    http: { requireHostHeader: false },
  });
  app.addHook("onRequest", hostRequired(runtime.errorsUrl));

  // Before any route, so it sees them all; it documents only the gateway's tagged ones.
  await app.register(fastifySwagger, openApiOptions(runtime.publicBaseUrl, runtime.errorsUrl));
  for (const schema of COMPONENT_SCHEMAS) app.addSchema(schema);

  // The Connect plugin replaces the body parsers inside its scope, so it gets a scope
  // of its own and the REST gateway keeps its own.
  await app.register(async (connect) => {
    // Connect negotiates the protocol from the content type and answers one it does not
    // serve (415, as the Connect and gRPC protocols say) in its own form: every request
    // reaches it, including one whose content type Fastify cannot parse (`;;;`, empty,
    // non-ASCII), which Fastify would answer with a body of its own.
    connect.addHook("onRequest", async (request) => {
      if (request.headers["content-type"] !== undefined && request.mediaType === undefined) delete request.raw.headers["content-type"];
    });
    connect.addContentTypeParser("*", (_request, _body, done) => done(null, undefined));
    await connect.register(fastifyConnectPlugin, {
      routes: connectRoutes(runtime),
      ...READ_OPTIONS,
      contextValues: (request) => callContext(runtime.resolveAddress(request.raw), request.headers.traceparent),
      interceptors: [rpcMetrics],
    });
  });
  // The gateway's requests are counted in a scope around it (its RPCs are called in-process, past the interceptors).
  await app.register(async (rest) => {
    rest.addHook("onResponse", recordRestResponse);
    await rest.register(gateway(runtime), { prefix: "/api/v1" });
  });
  await app.register(wellKnown(runtime));

  await app.register(fastifySwaggerUi, referenceOptions());
  await app.register(overlayPage);

  const page = errorsPage();
  app.get("/docs/errors", async (_request, reply) =>
    reply.type("text/html; charset=utf-8").header("cache-control", ERRORS_PAGE_CACHE_CONTROL).send(page),
  );

  // Outside /api/v1 too, an unknown path is problem+json rather than Fastify's own body.
  app.setNotFoundHandler((request, reply) => {
    const trace = traceIdFrom(request.headers.traceparent);
    return sendProblem(reply, runtime.errorsUrl, {
      code: "API_ROUTE_NOT_FOUND",
      params: {},
      traceId: trace,
      headers: { [TRACE_ID_HEADER]: trace },
    });
  });

  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    try {
      // The primary: without it nothing is written, and reads fall back to it.
      await runtime.pool.query({ sql: "SELECT 1", timeout: READINESS_TIMEOUT_MS });
      // A replica that lags or fails costs no readiness: reads are on the primary meanwhile.
      const replica = runtime.reads.replicaState();
      return replica ? { status: "ready", replica: replica.inUse ? "in use" : "bypassed" } : { status: "ready" };
    } catch (error) {
      runtime.logger.warn({ err: error }, "readiness check: database did not answer");
      return reply
        .code(503)
        .header("retry-after", String(ERROR_CODES.API_UNAVAILABLE.retryAfterSeconds))
        .send({ status: "unavailable", reason: "database" });
    }
  });

  return app;
}
