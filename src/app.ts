// Builds the HTTP/1.1 application: the Connect plugin (Connect and gRPC-Web on the
// same service implementations as the gRPC listener) and the health probes. It never
// listens itself, so tests can build as many apps as they like.

import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { connectRoutes } from "./services/routes.js";
import type { Pool } from "./store/pool.js";

export interface AppDeps {
  pool: Pool;
  logger: Logger;
}

const READINESS_TIMEOUT_MS = 2000;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: deps.logger as FastifyBaseLogger });

  // The Connect plugin replaces the body parsers inside its scope, so it gets a scope
  // of its own and the REST gateway keeps Fastify's.
  await app.register(async (connect) => {
    await connect.register(fastifyConnectPlugin, { routes: connectRoutes() });
  });

  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    try {
      await deps.pool.query({ sql: "SELECT 1", timeout: READINESS_TIMEOUT_MS });
      return { status: "ready" };
    } catch (error) {
      deps.logger.warn({ err: error }, "readiness check: database did not answer");
      return reply.code(503).header("retry-after", "30").send({ status: "unavailable", reason: "database" });
    }
  });

  return app;
}
