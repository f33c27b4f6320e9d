// The metrics listener: Prometheus text at /metrics on METRICS_PORT, bound to HOST, a
// port of its own so the public port never serves it (and a firewall can keep it
// internal). Nothing else is served there.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { NO_STORE } from "../caching/cache-policy.js";
import { registry, startProcessMetrics } from "./metrics.js";

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(host: string, port: number): Promise<MetricsServer> {
  startProcessMetrics();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "").split("?", 1)[0];
    if (path !== "/metrics")
      return void response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found: metrics are at /metrics\n");
    if (request.method !== "GET" && request.method !== "HEAD") {
      return void response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end("method not allowed\n");
    }
    registry.metrics().then(
      (text) =>
        response
          .writeHead(200, { "content-type": registry.contentType, "cache-control": NO_STORE })
          .end(request.method === "HEAD" ? undefined : text),
      (error: unknown) =>
        response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`metrics failed: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
