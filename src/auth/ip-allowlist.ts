// A client's IP allowlist: IPv4 and IPv6 addresses and CIDR ranges, matched with node's
// net.BlockList. An empty list accepts any address. IPv4-mapped IPv6 addresses
// (`::ffff:10.1.2.3`, what a dual-stack socket reports for an IPv4 caller) count as
// their IPv4 form, both as entries and as callers, so `10.0.0.0/8` admits them.

import { BlockList, isIP } from "node:net";

export interface IpAllowlist {
  /** The entries as given; empty = any address. */
  readonly entries: readonly string[];
  /** Whether a caller at `address` may call; an unparseable address never may, unless the list is empty. */
  allows(address: string): boolean;
}

export class InvalidAllowlistEntry extends Error {
  constructor(
    readonly entry: string,
    reason: string,
  ) {
    super(`allowlist entry "${entry}" ${reason}`);
    this.name = "InvalidAllowlistEntry";
  }
}

type Family = "ipv4" | "ipv6";

interface Address {
  address: string;
  family: Family;
}

/** Throws InvalidAllowlistEntry naming the first entry that is not an address or CIDR range. */
export function parseAllowlist(entries: readonly string[]): IpAllowlist {
  const list = new BlockList();
  for (const entry of entries) addEntry(list, entry);
  const kept = Object.freeze([...entries]);
  return {
    entries: kept,
    allows(address) {
      if (kept.length === 0) return true;
      const caller = parseCaller(address.replace(/%.*$/, "")); // a zone index says nothing about who calls
      return caller !== null && list.check(caller.address, caller.family);
    },
  };
}

function addEntry(list: BlockList, entry: string): void {
  const [text = "", prefixText, ...extra] = entry.split("/");
  if (text.includes("%")) throw new InvalidAllowlistEntry(entry, "has a zone index (%...), which an allowlist cannot use");
  const family = isIP(text);
  if (family === 0 || extra.length > 0) throw new InvalidAllowlistEntry(entry, "is not an IPv4 or IPv6 address or CIDR range");
  const width = family === 4 ? 32 : 128;
  let prefix = width;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > width) {
      throw new InvalidAllowlistEntry(entry, `has a prefix length that is not a whole number from 0 to ${width}`);
    }
    prefix = Number(prefixText);
  }
  // A mapped entry is its IPv4 form, its prefix counted within the last 32 bits; a
  // range wider than the mapped block (`::/64`) stays IPv6.
  const mapped = family === 6 ? mappedIpv4(text) : null;
  if (mapped !== null && prefix >= 96) add(list, mapped, prefix - 96, "ipv4");
  else add(list, text, prefix, family === 4 ? "ipv4" : "ipv6");
}

function add(list: BlockList, address: string, prefix: number, family: Family): void {
  if (prefix === (family === "ipv4" ? 32 : 128)) list.addAddress(address, family);
  else list.addSubnet(address, prefix, family);
}

/** A caller's address in the family it is matched in (a mapped IPv6 address as IPv4), or null. */
function parseCaller(text: string): Address | null {
  const family = isIP(text);
  if (family === 4) return { address: text, family: "ipv4" };
  if (family !== 6) return null;
  const mapped = mappedIpv4(text);
  return mapped === null ? { address: text, family: "ipv6" } : { address: mapped, family: "ipv4" };
}

/** `::ffff:a.b.c.d` in any spelling (dotted, hex, uncompressed) as `a.b.c.d`; otherwise null. */
function mappedIpv4(ipv6: string): string | null {
  let canonical: string;
  try {
    canonical = new URL(`http://[${ipv6}]/`).hostname; // WHATWG URL writes the canonical RFC 5952 form
  } catch {
    return null;
  }
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(canonical);
  if (!match) return null;
  const high = parseInt(match[1]!, 16);
  const low = parseInt(match[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
