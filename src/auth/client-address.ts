// The caller's IP address for allowlists and per-IP limits: the socket's peer, or
// the X-Forwarded-For entry added by the nearest proxy we trust (TRUST_PROXY), as
// Express and Fastify read it (proxy-addr). Used by every surface.

import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import proxyAddr from "proxy-addr";

export type AddressResolver = (request: IncomingMessage | Http2ServerRequest) => string;

export function addressResolver(trustProxy: readonly string[]): AddressResolver {
  // Trusting no proxy, the answer is the socket's peer: proxy-addr would parse
  // X-Forwarded-For on every request only to ignore it. (A socket already closed has
  // no peer: the empty address, which no allowlist admits.)
  if (trustProxy.length === 0) return (request) => normalize(request.socket.remoteAddress ?? "");
  const trust = proxyAddr.compile([...trustProxy]);
  return (request) => normalize(proxyAddr(request as IncomingMessage, trust));
}

/** `::ffff:10.1.2.3` is the IPv4 address 10.1.2.3 seen through a dual-stack socket. */
function normalize(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}
