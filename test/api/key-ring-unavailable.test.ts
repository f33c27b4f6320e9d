// A valid token while the signing keys cannot be read: the read model did not answer
// (503 API_UNAVAILABLE, Retry-After 30), not a bad token (401 would send the client
// for a new token, which the database cannot give either).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../../src/store/pool.js";
import { bearer, connectCall, connectError, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { freePort } from "../support/ports.js";

const db = useFreshDatabase();
let api: Api;
let token: string;
beforeAll(async () => {
  await seedIdentities(db);
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
});
afterAll(() => api?.close());

describe("a token checked while the database is not there", () => {
  it("answers 503 API_UNAVAILABLE on REST and Connect, not 401", async () => {
    const deadPool = createPool(`mysql://race_api@127.0.0.1:${await freePort()}/nothing`);
    const dead = await startApi(db, {}, deadPool);
    try {
      const response = await fetch(`${dead.url}/api/v1/events`, { headers: bearer(token) });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("30");
      expect(await response.json()).toMatchObject({ code: "API_UNAVAILABLE" });
      const rpc = await connectCall(dead.url, "racing.v1.EventService/ListEvents", {}, bearer(token));
      expect(await connectError(rpc)).toMatchObject({ code: "unavailable", reason: "API_UNAVAILABLE" });
    } finally {
      await dead.close();
      await deadPool.end();
    }
  });

  it("still answers 401 API_TOKEN_INVALID for a bad token when the database is there", async () => {
    const response = await fetch(`${api.url}/api/v1/events`, { headers: bearer(`${token}x`) });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: "API_TOKEN_INVALID" });
  });
});
