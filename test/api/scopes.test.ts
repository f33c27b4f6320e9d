// GET /api/v1/scopes and ScopeService.ListScopes: every scope with its description,
// and which of them the calling token holds. Any valid token may ask.

import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListScopesRequestSchema, ListScopesResponseSchema } from "../../gen/racing/v1/scopes_pb.js";
import { SCOPES } from "../../src/auth/scopes.js";
import { bearer, connectCall, connectError, identityScenario, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { grpcClient, unary } from "../support/grpc.js";

const db = useFreshDatabase();
let api: Api;

beforeAll(async () => {
  await seedIdentities(db, identityScenario());
  api = await startApi(db);
});
afterAll(() => api?.close());

function scopes(token: string | null): Promise<Response> {
  return fetch(`${api.url}/api/v1/scopes`, { headers: token === null ? {} : bearer(token) });
}

function expected(granted: string[]) {
  return {
    scopes: [
      { name: "tracking:read", description: SCOPES["tracking:read"], granted: granted.includes("tracking:read") },
      { name: "events:read", description: SCOPES["events:read"], granted: granted.includes("events:read") },
      { name: "results:read", description: SCOPES["results:read"], granted: granted.includes("results:read") },
      { name: "tracking:write", description: SCOPES["tracking:write"], granted: granted.includes("tracking:write") },
    ],
  };
}

describe("the scope list", () => {
  it("lists the four scopes with their descriptions, the client's granted to a token with every scope", async () => {
    const response = await scopes(await tokenFor(api.url, "overlay"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("cache-control")).toBe("private, no-cache");
    expect(response.headers.get("etag")).toBeTruthy();
    const body = await response.json();
    expect(body).toEqual(expected(["tracking:read", "events:read", "results:read"]));
    expect(body).toEqual({
      scopes: [
        { name: "tracking:read", description: "race live, live insights and track history", granted: true },
        { name: "events:read", description: "the events list and event live status", granted: true },
        { name: "results:read", description: "event and race results", granted: true },
        {
          name: "tracking:write",
          description:
            "write the club's own race data: positions, wind, live order, finishes, race state and events (live ingest over gRPC and Connect, not REST)",
          granted: false,
        },
      ],
    });
  });

  it("marks only the scopes the token was requested with, though the client holds more", async () => {
    expect(await (await scopes(await tokenFor(api.url, "overlay", "events:read"))).json()).toEqual(expected(["events:read"]));
    expect(await (await scopes(await tokenFor(api.url, "overlay", "tracking:read results:read"))).json()).toEqual(
      expected(["tracking:read", "results:read"]),
    );
  });

  it("needs no particular scope: a tracking-only client gets its list", async () => {
    const response = await scopes(await tokenFor(api.url, "trackingOnly"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(expected(["tracking:read"]));
  });

  it("still needs a valid token", async () => {
    const missing = await scopes(null);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: "API_TOKEN_MISSING" });
    const invalid = await scopes("not-a-token");
    expect(invalid.status).toBe(401);
    expect(await invalid.json()).toMatchObject({ code: "API_TOKEN_INVALID" });
  });

  it("answers over Connect and gRPC", async () => {
    const token = await tokenFor(api.url, "overlay", "results:read");
    const response = await connectCall(api.url, "racing.v1.ScopeService/ListScopes", {}, bearer(token));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      scopes: [
        { name: "tracking:read", description: SCOPES["tracking:read"] },
        { name: "events:read", description: SCOPES["events:read"] },
        { name: "results:read", description: SCOPES["results:read"], granted: true },
        { name: "tracking:write", description: SCOPES["tracking:write"] },
      ],
    });
    expect(await connectError(await connectCall(api.url, "racing.v1.ScopeService/ListScopes", {}))).toMatchObject({
      code: "unauthenticated",
      reason: "API_TOKEN_MISSING",
    });

    const client = grpcClient(api.grpcUrl);
    try {
      const metadata = new grpc.Metadata();
      metadata.set("authorization", `Bearer ${token}`);
      const message = await unary(
        client,
        "/racing.v1.ScopeService/ListScopes",
        ListScopesRequestSchema,
        ListScopesResponseSchema,
        {},
        metadata,
      );
      expect(message.scopes.map((scope) => [scope.name, scope.granted])).toEqual([
        ["tracking:read", false],
        ["events:read", false],
        ["results:read", true],
        ["tracking:write", false],
      ]);
    } finally {
      client.close();
    }
  });
});
