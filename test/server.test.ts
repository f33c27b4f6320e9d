// `race-api serve` in-process: both listeners, the same Connect routes on each, the
// probes, and a graceful close.

import type * as grpc from "@grpc/grpc-js";
import { once } from "node:events";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as reflection from "../gen/grpc/reflection/v1/reflection_pb.js";
import { GetLiveInsightsRequestSchema, GetLiveInsightsResponseSchema } from "../gen/racing/v1/live_insights_pb.js";
import { buildApp } from "../src/composition/app.js";
import type { Runtime } from "../src/composition/runtime.js";
import { startServer, type RunningServer } from "../src/composition/server.js";
import { createPool } from "../src/store/pool.js";
import { useFreshDatabase } from "./support/database.js";
import { bidi, grpcClient, unary } from "./support/grpc.js";
import { testRuntime } from "./support/runtime.js";

const db = useFreshDatabase();
let runtime: Runtime;
let server: RunningServer;

beforeAll(async () => {
  runtime = await testRuntime(db);
  server = await startServer({ host: "127.0.0.1", port: 0, grpcPort: 0 }, runtime);
});
afterAll(async () => {
  await server?.close();
  await runtime?.close();
});

describe("HTTP/1.1 listener", () => {
  it("answers /healthz without touching the database", async () => {
    const response = await fetch(`${server.httpUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("answers /readyz after pinging the database", async () => {
    const response = await fetch(`${server.httpUrl}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ready" });
  });

  it("answers /readyz with 503 when the database does not answer", async () => {
    const unreachable = createPool("mysql://nobody:nothing@127.0.0.1:1/race_api_none");
    const app = await buildApp({ ...runtime, pool: unreachable });
    try {
      const response = await app.inject({ method: "GET", url: "/readyz" });
      expect(response.statusCode).toBe(503);
      expect(response.headers["retry-after"]).toBe("30");
      expect(response.json()).toEqual({ status: "unavailable", reason: "database" });
    } finally {
      await app.close();
      await unreachable.end();
    }
  });

  it("serves the Connect protocol on the same services", async () => {
    const response = await fetch(`${server.httpUrl}/racing.v1.LiveInsightsService/GetLiveInsights`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ raceId: "00000000-0000-4000-8000-000000000000" }),
    });
    // The guard of the implementation answered: the call reached the service.
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: "unauthenticated" });
  });
});

describe("gRPC listener (h2c)", () => {
  let client: grpc.Client;
  beforeAll(() => {
    client = grpcClient(server.grpcUrl);
  });
  afterAll(() => client.close());

  it("lists the services through reflection to a @grpc/grpc-js client", async () => {
    const [answer] = await bidi(
      client,
      "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
      reflection.ServerReflectionRequestSchema,
      reflection.ServerReflectionResponseSchema,
      [{ messageRequest: { case: "listServices", value: "" } }],
    );
    const services = answer?.messageResponse.case === "listServicesResponse" ? answer.messageResponse.value.service.map((s) => s.name) : [];
    expect(services).toEqual(
      expect.arrayContaining([
        "racing.v1.RaceLiveService",
        "racing.v1.TrackService",
        "racing.v1.LiveInsightsService",
        "racing.v1.EventService",
      ]),
    );
  });

  it("routes racing.v1 calls to the same implementations", async () => {
    const error = await unary(
      client,
      "/racing.v1.LiveInsightsService/GetLiveInsights",
      GetLiveInsightsRequestSchema,
      GetLiveInsightsResponseSchema,
      { raceId: "x" },
    ).then(
      () => null,
      (e: grpc.ServiceError) => e,
    );
    expect(error?.code).toBe(16); // UNAUTHENTICATED: the guard of the implementation answered
    expect(error?.details).toContain("API_TOKEN_MISSING");
  });
});

describe("close", () => {
  it("stops both listeners", async () => {
    const other = await startServer({ host: "127.0.0.1", port: 0, grpcPort: 0 }, runtime);
    const client = grpcClient(other.grpcUrl);
    // An open HTTP/2 session must not keep the listener alive.
    await bidi(
      client,
      "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
      reflection.ServerReflectionRequestSchema,
      reflection.ServerReflectionResponseSchema,
      [{ messageRequest: { case: "listServices", value: "" } }],
    );
    await other.close();
    client.close();
    await expect(fetch(`${other.httpUrl}/healthz`)).rejects.toThrow();
    const grpcGone = await fetch(other.grpcUrl).then(
      () => false,
      () => true,
    );
    expect(grpcGone).toBe(true);
  });

  it("closes a connection that never sent a request instead of waiting for its keep-alive timeout", async () => {
    const other = await startServer({ host: "127.0.0.1", port: 0, grpcPort: 0 }, runtime);
    // As undici leaves after a dropped fetch stream, or a browser's preconnect.
    const socket = connect(Number(new URL(other.httpUrl).port), "127.0.0.1");
    socket.on("error", () => {}); // the server may reset it
    await once(socket, "connect");
    const closedByServer = once(socket, "close");
    await other.close();
    await closedByServer;
    expect(socket.destroyed).toBe(true);
  });
});
