import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { classify } from "../../src/errors/classify.js";

function recordingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino(stream), lines };
}

describe("classify", () => {
  it("keeps our own error as it is, and logs nothing", () => {
    const { logger, lines } = recordingLogger();
    const error = new ApiError("API_SCOPE_MISSING", { scope: "tracking:read" }, { "x-extra": "1" });
    expect(classify(error, logger, { traceId: "t" })).toBe(error);
    expect(lines).toEqual([]);
  });

  it("makes a read model that does not answer API_UNAVAILABLE, logged as a warning", () => {
    const { logger, lines } = recordingLogger();
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:3306"), { code: "ECONNREFUSED" });
    expect(classify(refused, logger, { traceId: "t1" }).code).toBe("API_UNAVAILABLE");
    expect(lines).toMatchObject([{ level: 40, traceId: "t1", msg: "read model unavailable" }]);
  });

  it("makes anything else INTERNAL_ERROR without its message, logged as an error with the caller's fields", () => {
    const { logger, lines } = recordingLogger();
    const failure = classify(new TypeError("secret driver detail"), logger, { traceId: "t2", rpc: "GetRaceLive" });
    expect(failure.code).toBe("INTERNAL_ERROR");
    expect(failure.message).not.toContain("secret");
    expect(failure.params).toEqual({});
    expect(lines).toMatchObject([
      { level: 50, traceId: "t2", rpc: "GetRaceLive", msg: "unexpected error", err: { message: "secret driver detail" } },
    ]);
  });
});
