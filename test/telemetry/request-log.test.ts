// The access log: one line per request, written when the answer is out, with the
// method, URL, status and time, at info; nothing when the request comes in.

import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";

const db = useFreshDatabase();
let api: Api;
const logged: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const log = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) logged.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  api = await startApi(db, {}, db.pool, 0, pino({ level: "info" }, log));
});
afterAll(() => api?.close());

describe("the request log", () => {
  it("writes one line per request, once answered: method, URL, status and time", async () => {
    const path = "/api/v1/races/00000000-0000-4000-8000-000000000001/live?probe=1";
    logged.length = 0;
    const response = await fetch(`${api.url}${path}`);
    expect(response.status).toBe(401);
    await response.text();
    await expect.poll(() => logged.filter((line) => line.req !== undefined || line.res !== undefined).length).toBeGreaterThan(0);
    const lines = logged.filter((line) => (line.req as { url?: string } | undefined)?.url === path || line.res !== undefined);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: "request completed",
      req: { method: "GET", url: path },
      res: { statusCode: 401 },
      responseTime: expect.any(Number),
    });
  });
});
