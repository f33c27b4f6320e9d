// `race-api serve` as a value: the HTTP/1.1 app on HOST:PORT and the gRPC listener
// (h2c) on GRPC_PORT, both serving the same Connect routes, with one graceful close.

import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Server as HttpServer } from "node:http";
import { createServer as createHttp2Server, type Http2Session } from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { buildApp } from "./app.js";
import type { Config } from "./config.js";
import type { Runtime } from "./runtime.js";
import { callContext } from "../calls/context.js";
import { connectRoutes, READ_OPTIONS } from "../calls/connect-routes.js";
import { startMetricsServer, type MetricsServer } from "../telemetry/metrics-server.js";
import { rpcMetrics } from "../telemetry/request-metrics.js";

export interface RunningServer {
  httpUrl: string;
  grpcUrl: string;
  /** Prometheus text, when METRICS_PORT is not 0. */
  metricsUrl: string | undefined;
  /** Stops accepting, lets in-flight requests and streams finish, then resolves. */
  close(): Promise<void>;
}

/** `metricsPort` absent or 0: no metrics listener. */
export async function startServer(
  config: Pick<Config, "host" | "port" | "grpcPort"> & Partial<Pick<Config, "metricsPort">>,
  runtime: Runtime,
): Promise<RunningServer> {
  const app = await buildApp(runtime);
  const idle = idleConnections(app.server);
  await app.listen({ host: config.host, port: config.port });

  const sessions = new Set<Http2Session>();
  const grpc = createHttp2Server(
    connectNodeAdapter({
      routes: connectRoutes(runtime),
      ...READ_OPTIONS,
      contextValues: (request) => callContext(runtime.resolveAddress(request), request.headers.traceparent),
      interceptors: [rpcMetrics],
    }),
  );
  grpc.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  let metrics: MetricsServer | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      grpc.once("error", reject);
      grpc.listen(config.grpcPort, config.host, () => resolve());
    });
    metrics = config.metricsPort ? await startMetricsServer(config.host, config.metricsPort) : undefined;
  } catch (error) {
    // A port in use: nothing stays open, so the command ends with its error rather than hanging.
    if (grpc.listening) await new Promise<void>((resolve) => grpc.close(() => resolve()));
    await app.close();
    throw error;
  }

  const httpUrl = urlOf("http", app.server.address() as AddressInfo);
  const grpcUrl = urlOf("http", grpc.address() as AddressInfo);
  runtime.logger.info({ httpUrl, grpcUrl, metricsUrl: metrics?.url }, "listening");

  return {
    httpUrl,
    grpcUrl,
    metricsUrl: metrics?.url,
    async close() {
      // Watch streams never finish by themselves: end them, so their clients reconnect elsewhere.
      runtime.streams.endAll();
      const grpcClosed = new Promise<void>((resolve) => grpc.close(() => resolve()));
      // session.close() sends GOAWAY and waits for the session's open streams.
      for (const session of sessions) session.close();
      // Node closes the keep-alive connections that are idle when closing starts; one
      // whose request was in flight stays open once answered, until the client drops it
      // or Fastify's 72 s keep-alive timeout, and the close waits for it. Close each as
      // soon as it is idle.
      const closeIdle = setInterval(() => idle.close(), 100);
      try {
        await Promise.all([app.close(), grpcClosed, metrics?.close()]);
      } finally {
        clearInterval(closeIdle);
      }
    },
  };
}

/**
 * Closes the HTTP/1.1 listener's idle connections. Node's closeIdleConnections() (Node
 * 20) passes over a connection that has not sent a request yet, which clients leave
 * behind (undici opens one after a dropped fetch stream; browsers preconnect), and the
 * close then waited 70 s for it: those are closed here too.
 */
function idleConnections(server: HttpServer): { close(): void } {
  const unused = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    unused.add(socket);
    socket.once("close", () => unused.delete(socket));
  });
  server.on("request", (request) => unused.delete(request.socket));
  return {
    close() {
      server.closeIdleConnections();
      for (const socket of unused) socket.destroy();
    },
  };
}

function urlOf(scheme: string, address: AddressInfo): string {
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `${scheme}://${host}:${address.port}`;
}
