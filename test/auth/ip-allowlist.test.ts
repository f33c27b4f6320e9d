// The IP allowlist on its own: which callers each kind of entry admits, and which
// entries are refused.

import { describe, expect, it } from "vitest";
import { InvalidAllowlistEntry, parseAllowlist } from "../../src/auth/ip-allowlist.js";

describe("parseAllowlist", () => {
  it("admits any address when empty", () => {
    const list = parseAllowlist([]);
    expect(list.entries).toEqual([]);
    for (const address of ["10.1.2.3", "203.0.113.9", "::1", "2001:db8::1", "::ffff:10.1.2.3"]) expect(list.allows(address)).toBe(true);
  });

  it("matches a single IPv4 address exactly", () => {
    const list = parseAllowlist(["192.0.2.10"]);
    expect(list.allows("192.0.2.10")).toBe(true);
    expect(list.allows("192.0.2.11")).toBe(false);
    expect(list.allows("192.0.2.1")).toBe(false);
  });

  it("matches IPv4 CIDR ranges at their edges", () => {
    const list = parseAllowlist(["10.0.0.0/8", "198.51.100.64/26"]);
    expect(list.allows("10.0.0.0")).toBe(true);
    expect(list.allows("10.255.255.255")).toBe(true);
    expect(list.allows("11.0.0.0")).toBe(false);
    expect(list.allows("9.255.255.255")).toBe(false);
    expect(list.allows("198.51.100.64")).toBe(true);
    expect(list.allows("198.51.100.127")).toBe(true);
    expect(list.allows("198.51.100.63")).toBe(false);
    expect(list.allows("198.51.100.128")).toBe(false);
  });

  it("treats /32 as one address and /0 as every IPv4 address", () => {
    expect(parseAllowlist(["192.0.2.10/32"]).allows("192.0.2.10")).toBe(true);
    expect(parseAllowlist(["192.0.2.10/32"]).allows("192.0.2.11")).toBe(false);
    const all = parseAllowlist(["0.0.0.0/0"]);
    expect(all.allows("1.2.3.4")).toBe(true);
    expect(all.allows("255.255.255.255")).toBe(true);
  });

  it("masks the host bits of a range written with them", () => {
    const list = parseAllowlist(["10.1.2.3/8"]);
    expect(list.allows("10.200.0.1")).toBe(true);
    expect(list.allows("11.1.2.3")).toBe(false);
  });

  it("matches single IPv6 addresses in any spelling", () => {
    const list = parseAllowlist(["2001:db8::10"]);
    expect(list.allows("2001:db8::10")).toBe(true);
    expect(list.allows("2001:0db8:0000:0000:0000:0000:0000:0010")).toBe(true);
    expect(list.allows("2001:DB8::10")).toBe(true);
    expect(list.allows("2001:db8::11")).toBe(false);
    expect(parseAllowlist(["::1"]).allows("::1")).toBe(true);
    expect(parseAllowlist(["::1"]).allows("::2")).toBe(false);
  });

  it("matches IPv6 CIDR ranges at their edges", () => {
    const list = parseAllowlist(["2001:db8::/32", "fd00:1:2:3::/64"]);
    expect(list.allows("2001:db8::")).toBe(true);
    expect(list.allows("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff")).toBe(true);
    expect(list.allows("2001:db9::")).toBe(false);
    expect(list.allows("2001:db7:ffff::1")).toBe(false);
    expect(list.allows("fd00:1:2:3:abcd::1")).toBe(true);
    expect(list.allows("fd00:1:2:4::1")).toBe(false);
  });

  it("keeps the families apart", () => {
    expect(parseAllowlist(["10.0.0.0/8"]).allows("2001:db8::1")).toBe(false);
    expect(parseAllowlist(["2001:db8::/32"]).allows("10.1.2.3")).toBe(false);
  });

  it("treats an IPv4-mapped IPv6 caller as its IPv4 address", () => {
    const list = parseAllowlist(["10.0.0.0/8", "192.0.2.10"]);
    expect(list.allows("::ffff:10.1.2.3")).toBe(true);
    expect(list.allows("::FFFF:10.1.2.3")).toBe(true);
    expect(list.allows("::ffff:a01:203")).toBe(true); // hex spelling of 10.1.2.3
    expect(list.allows("0:0:0:0:0:ffff:10.1.2.3")).toBe(true);
    expect(list.allows("::ffff:192.0.2.10")).toBe(true);
    expect(list.allows("::ffff:11.1.2.3")).toBe(false);
    expect(list.allows("::ffff:192.0.2.11")).toBe(false);
  });

  it("treats an IPv4-mapped IPv6 entry as its IPv4 form", () => {
    const single = parseAllowlist(["::ffff:192.0.2.10"]);
    expect(single.allows("192.0.2.10")).toBe(true);
    expect(single.allows("::ffff:192.0.2.10")).toBe(true);
    expect(single.allows("192.0.2.11")).toBe(false);
    const range = parseAllowlist(["::ffff:10.0.0.0/104"]); // 10.0.0.0/8
    expect(range.allows("10.9.9.9")).toBe(true);
    expect(range.allows("::ffff:10.9.9.9")).toBe(true);
    expect(range.allows("11.0.0.1")).toBe(false);
    const everyMapped = parseAllowlist(["::ffff:0:0/96"]);
    expect(everyMapped.allows("203.0.113.1")).toBe(true);
    expect(everyMapped.allows("2001:db8::1")).toBe(false);
  });

  it("does not take IPv4-compatible or other IPv6 addresses for IPv4", () => {
    const list = parseAllowlist(["10.0.0.0/8"]);
    expect(list.allows("::10.1.2.3")).toBe(false);
    expect(list.allows("64:ff9b::10.1.2.3")).toBe(false);
  });

  it("ignores a caller's zone index", () => {
    expect(parseAllowlist(["fe80::/10"]).allows("fe80::1%eth0")).toBe(true);
  });

  it("refuses callers that are not addresses when the list is not empty", () => {
    const list = parseAllowlist(["10.0.0.0/8"]);
    for (const address of ["", "localhost", "10.1.2", "10.1.2.3/8", "not an ip"]) expect(list.allows(address)).toBe(false);
  });

  it("keeps the entries as given", () => {
    expect(parseAllowlist(["10.0.0.0/8", "2001:db8::/32"]).entries).toEqual(["10.0.0.0/8", "2001:db8::/32"]);
  });

  it.each([
    ["10.0.0.0/33", "has a prefix length that is not a whole number from 0 to 32"],
    ["10.0.0.0/-1", "has a prefix length that is not a whole number from 0 to 32"],
    ["10.0.0.0/", "has a prefix length that is not a whole number from 0 to 32"],
    ["10.0.0.0/8.5", "has a prefix length that is not a whole number from 0 to 32"],
    ["10.0.0.0/ 8", "has a prefix length that is not a whole number from 0 to 32"],
    ["2001:db8::/129", "has a prefix length that is not a whole number from 0 to 128"],
    ["2001:db8::/0x20", "has a prefix length that is not a whole number from 0 to 128"],
    ["10.0.0.256", "is not an IPv4 or IPv6 address or CIDR range"],
    ["10.0.0", "is not an IPv4 or IPv6 address or CIDR range"],
    ["010.0.0.1", "is not an IPv4 or IPv6 address or CIDR range"],
    ["2001:db8:::1", "is not an IPv4 or IPv6 address or CIDR range"],
    ["example.org", "is not an IPv4 or IPv6 address or CIDR range"],
    ["*", "is not an IPv4 or IPv6 address or CIDR range"],
    ["", "is not an IPv4 or IPv6 address or CIDR range"],
    [" 10.0.0.1", "is not an IPv4 or IPv6 address or CIDR range"],
    ["10.0.0.0/8/9", "is not an IPv4 or IPv6 address or CIDR range"],
    ["fe80::1%eth0", "has a zone index (%...), which an allowlist cannot use"],
  ])("refuses %j, naming it", (entry, reason) => {
    const attempt = () => parseAllowlist(["192.0.2.1", entry]);
    expect(attempt).toThrow(InvalidAllowlistEntry);
    expect(attempt).toThrow(`allowlist entry "${entry}" ${reason}`);
    try {
      attempt();
    } catch (error) {
      expect((error as InvalidAllowlistEntry).entry).toBe(entry);
    }
  });
});
