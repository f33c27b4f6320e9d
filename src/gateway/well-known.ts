// The /.well-known documents of the authorization server (auth/discovery.ts) over
// HTTP: the RFC 8414 metadata, written once, and the JWK Set, read from the key ring
// (refreshed at most every 5 s). A key ring that cannot be read answers problem+json.

import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { authorizationServerMetadata, JWKS_CONTENT_TYPE, JWKS_PATH, jwkSet, METADATA_PATH } from "../auth/discovery.js";
import type { KeyRing } from "../auth/key-ring.js";
import { JWKS_CACHE_CONTROL, METADATA_CACHE_CONTROL } from "../caching/cache-policy.js";
import { classify } from "../errors/classify.js";
import { traceIdFrom } from "../calls/context.js";
import { problemOf, sendProblem } from "./problem.js";

export interface WellKnownDeps {
  keys: KeyRing;
  publicBaseUrl: string;
  errorsUrl: string;
  logger: Logger;
}

export function wellKnown(deps: WellKnownDeps) {
  return async (app: FastifyInstance) => {
    // Bytes, not strings, so Fastify adds no charset parameter: JSON defines none (RFC 8259).
    const metadata = Buffer.from(JSON.stringify(authorizationServerMetadata(deps.publicBaseUrl)));
    app.get(METADATA_PATH, async (_request, reply) =>
      reply.type("application/json").header("cache-control", METADATA_CACHE_CONTROL).send(metadata),
    );

    app.get(JWKS_PATH, async (request, reply) => {
      try {
        const body = Buffer.from(JSON.stringify(await jwkSet(deps.keys)));
        return await reply.type(JWKS_CONTENT_TYPE).header("cache-control", JWKS_CACHE_CONTROL).send(body);
      } catch (error) {
        const trace = traceIdFrom(request.headers.traceparent);
        return sendProblem(reply, deps.errorsUrl, problemOf(classify(error, deps.logger, { traceId: trace, url: request.url }), trace));
      }
    });
  };
}
