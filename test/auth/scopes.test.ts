// The list of scopes and the check every caller shares.

import { describe, expect, it } from "vitest";
import { isScope, parseScopes, SCOPES, UnknownScope } from "../../src/auth/scopes.js";

describe("scopes", () => {
  it("lists the API's scopes, each with what it grants", () => {
    expect(Object.keys(SCOPES)).toEqual(["tracking:read", "events:read", "results:read", "tracking:write"]);
    for (const description of Object.values(SCOPES)) expect(description.length).toBeGreaterThan(10);
  });

  it("knows its own scopes and nothing else", () => {
    expect(isScope("tracking:read")).toBe(true);
    expect(isScope("tracking:write")).toBe(true);
    for (const name of ["tracking:admin", "TRACKING:READ", "", "toString", "__proto__"]) expect(isScope(name)).toBe(false);
  });

  it("parses a list, dropping duplicates in order", () => {
    expect(parseScopes(["events:read", "tracking:read", "events:read"])).toEqual(["events:read", "tracking:read"]);
    expect(parseScopes([])).toEqual([]);
  });

  it("names an unknown scope", () => {
    expect(() => parseScopes(["tracking:read", "tracking:admin"])).toThrow(UnknownScope);
    expect(() => parseScopes(["tracking:admin"])).toThrow(
      'unknown scope "tracking:admin" (scopes: tracking:read, events:read, results:read, tracking:write)',
    );
  });
});
