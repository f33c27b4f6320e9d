import { describe, expect, it } from "vitest";
import { keyId } from "../../src/auth/key-ring.js";

describe("a signing key's id", () => {
  it("never begins with '-', which race-api keys retire would take for an option", () => {
    // 0xf8 makes the first base64url character '-' (index 62).
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0x41)];
    expect(draws[0]!.toString("base64url")).toMatch(/^-/);
    expect(keyId(() => draws.shift()!)).toBe(Buffer.alloc(16, 0x41).toString("base64url"));
  });

  it("is 22 base64url characters by default", () => {
    for (let i = 0; i < 200; i++) expect(keyId()).toMatch(/^[\w][\w-]{21}$/);
  });
});
