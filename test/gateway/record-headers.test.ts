// The record-backed headers a REST call hands its service read and write as WHATWG
// Headers would: a service cannot tell them apart, and what it sets is what is sent.

import { describe, expect, it } from "vitest";
import { RequestHeaders, ResponseHeaders } from "../../src/gateway/record-headers.js";

describe("RequestHeaders", () => {
  const headers = new RequestHeaders({ authorization: "Bearer abc", "x-multi": ["a", "b"], "set-cookie": ["c=1", "d=2"] });

  it("reads names case-insensitively, repeated values joined as Headers joins them", () => {
    expect(headers.get("Authorization")).toBe("Bearer abc");
    expect(headers.get("x-multi")).toBe(
      new Headers([
        ["x-multi", "a"],
        ["x-multi", "b"],
      ]).get("x-multi"),
    );
    expect(headers.get("absent")).toBeNull();
    expect(headers.has("AUTHORIZATION")).toBe(true);
    expect(headers.has("absent")).toBe(false);
    expect(headers.getSetCookie()).toEqual(["c=1", "d=2"]);
  });

  it("iterates every header", () => {
    expect(Object.fromEntries(headers)).toEqual({ authorization: "Bearer abc", "x-multi": "a, b", "set-cookie": "c=1, d=2" });
    expect([...headers.keys()]).toEqual(["authorization", "x-multi", "set-cookie"]);
    const seen: string[] = [];
    headers.forEach((value, name) => {
      seen.push(`${name}=${value}`);
    });
    expect(seen).toEqual(["authorization=Bearer abc", "x-multi=a, b", "set-cookie=c=1, d=2"]);
  });

  it("is immutable, as a request's headers are", () => {
    expect(() => headers.set("authorization", "Bearer other")).toThrow(TypeError);
    expect(() => headers.append("x-new", "1")).toThrow(TypeError);
    expect(() => headers.delete("authorization")).toThrow(TypeError);
    expect(headers.get("authorization")).toBe("Bearer abc");
  });
});

describe("ResponseHeaders", () => {
  it("keeps what a call sets under lowercase names, in the record the gateway sends", () => {
    const headers = new ResponseHeaders();
    headers.set("X-Trace-Id", "t1");
    headers.set("Cache-Control", "private, max-age=2");
    headers.set("cache-control", "no-store");
    headers.append("Vary", "Accept-Encoding");
    headers.append("vary", "Origin");
    expect(headers.record).toEqual({ "x-trace-id": "t1", "cache-control": "no-store", vary: "Accept-Encoding, Origin" });
    expect(headers.get("CACHE-CONTROL")).toBe("no-store");
    expect(headers.has("x-trace-id")).toBe(true);
    headers.delete("X-Trace-Id");
    expect(headers.has("x-trace-id")).toBe(false);
    expect(headers.get("x-trace-id")).toBeNull();
    expect(Object.fromEntries(headers)).toEqual(headers.record);
  });
});
