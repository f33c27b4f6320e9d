// The one error path, seen from outside: problem+json on REST, ErrorInfo on Connect,
// 404 for unknown paths, 500 without driver messages, 503 when the read model does
// not answer in time (a held lock, a stopped server) and recovery when it is back.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/errors/codes.js";
import { migrate } from "../../src/store/migrate.js";
import { createPool } from "../../src/store/pool.js";
import { startMariaDbInstance, type MariaDbInstance } from "../support/mariadb-instance.js";
import { bearer, connectCall, connectError, requestToken, seedIdentities, startApi, tokenFor, useApi, type Api } from "../support/api.js";
import { TEST_BASE_URL } from "../support/runtime.js";

const api = useApi({ client: "overlay" });

describe("problem+json", () => {
  it("answers an unknown path under /api/v1 with 404 API_ROUTE_NOT_FOUND", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/nothing-here"],
      ["POST", "/api/v1/events"],
    ] as const) {
      const response = await fetch(`${api.url}${path}`, { method, headers: bearer(api.token) });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toEqual({
        type: `${TEST_BASE_URL}/docs/errors#API_ROUTE_NOT_FOUND`,
        status: 404,
        code: "API_ROUTE_NOT_FOUND",
        traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      expect(Object.keys(body)).not.toContain("title");
    }
  });

  it("takes the trace id of a W3C traceparent", async () => {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const response = await fetch(`${api.url}/api/v1/events?page=0`, { headers: { ...bearer(api.token), traceparent } });
    expect(await response.json()).toMatchObject({ code: "API_PARAM_INVALID", traceId: "4bf92f3577b34da6a3ce929d0e0e4736" });
    expect(response.headers.get("x-trace-id")).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
  });

  it("answers an unexpected failure with 500 INTERNAL_ERROR and no driver message", async () => {
    await api.db.pool.query("RENAME TABLE races TO races_gone");
    try {
      const response = await fetch(`${api.url}/api/v1/events`, { headers: bearer(api.token) });
      expect(response.status).toBe(500);
      const text = await response.text();
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(body).toEqual({
        type: `${TEST_BASE_URL}/docs/errors#INTERNAL_ERROR`,
        status: 500,
        code: "INTERNAL_ERROR",
        traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      expect(text).not.toMatch(/races|exist|ER_|sql/i);
      expect(response.headers.get("x-trace-id")).toBe(body.traceId);
      expect(response.headers.get("cache-control")).toBe("no-store");

      const rpc = await connectCall(api.url, "racing.v1.EventService/ListEvents", {}, bearer(api.token));
      const rpcText = await rpc.clone().text();
      expect(rpcText).not.toMatch(/races|exist|ER_|sql/i);
      expect(await connectError(rpc)).toMatchObject({ code: "internal", reason: "INTERNAL_ERROR" });
    } finally {
      await api.db.pool.query("RENAME TABLE races_gone TO races");
    }
  });
});

describe("the errors page", () => {
  it("documents every code at its anchor, with when it happens and what to do", async () => {
    const response = await fetch(`${api.url}/docs/errors`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      const section = new RegExp(`<section id="${code}">([\\s\\S]*?)</section>`).exec(html)?.[1];
      expect(section, code).toBeDefined();
      expect(section).toContain(`HTTP ${spec.status}`);
      expect(section).toContain(
        spec.when.slice(0, 40).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"),
      );
      if ("retryAfterSeconds" in spec) expect(section).toContain(`Retry-After: ${spec.retryAfterSeconds}`);
    }
  });
});

describe("503 API_UNAVAILABLE", () => {
  it("answers when a held lock keeps the read model from answering in time, then recovers", async () => {
    const quickPool = createPool(api.db.url, { statementTimeoutMs: 300 });
    const quick = await startApi(api.db, {}, quickPool);
    const locker = await api.db.pool.getConnection();
    try {
      await locker.query("LOCK TABLES events WRITE");
      const response = await fetch(`${quick.url}/api/v1/events`, { headers: bearer(api.token) });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("30");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("etag")).toBeNull();
      expect(await response.json()).toMatchObject({ status: 503, code: "API_UNAVAILABLE" });

      const rpc = await connectCall(quick.url, "racing.v1.EventService/ListEvents", {}, bearer(api.token));
      expect(rpc.headers.get("retry-after")).toBe("30");
      expect(await connectError(rpc)).toMatchObject({ code: "unavailable", reason: "API_UNAVAILABLE", retryDelaySeconds: 30 });
    } finally {
      await locker.query("UNLOCK TABLES");
      locker.release();
    }
    expect((await fetch(`${quick.url}/api/v1/events`, { headers: bearer(api.token) })).status).toBe(200);
    await quick.close();
    await quickPool.end();
  });

  describe("when the database server stops", () => {
    let instance: MariaDbInstance;
    let own: Api;
    beforeAll(async () => {
      instance = await startMariaDbInstance();
      const pool = createPool(instance.url, { statementTimeoutMs: 1000 });
      await migrate(pool);
      const ownDb = { url: instance.url, pool };
      await seedIdentities(ownDb);
      own = await startApi(ownDb);
    }, 120_000);
    afterAll(async () => {
      await own?.close();
      await own?.runtime.pool.end();
      await instance?.destroy();
    });

    it("answers 503 on data calls and the token endpoint, and recovers by itself when it is back", async () => {
      const ownToken = await tokenFor(own.url, "overlay");
      expect((await fetch(`${own.url}/api/v1/events`, { headers: bearer(ownToken) })).status).toBe(200);

      await instance.stop();
      const down = await fetch(`${own.url}/api/v1/events`, { headers: bearer(ownToken) });
      expect(down.status).toBe(503);
      expect(down.headers.get("retry-after")).toBe("30");
      expect(await down.json()).toMatchObject({ code: "API_UNAVAILABLE" });
      const tokenDown = await requestToken(own.url, "overlay");
      expect(tokenDown.status).toBe(503);
      expect(tokenDown.headers.get("retry-after")).toBe("30");
      expect(await tokenDown.json()).toEqual({ error: "temporarily_unavailable", code: "API_UNAVAILABLE" });

      await instance.start();
      const deadline = Date.now() + 15_000;
      let status = 0;
      while (Date.now() < deadline && status !== 200) {
        status = (await fetch(`${own.url}/api/v1/events`, { headers: bearer(ownToken) })).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(status).toBe(200);
      expect((await requestToken(own.url, "overlay")).status).toBe(200);
    }, 60_000);
  });
});
