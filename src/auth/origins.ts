// Which web pages may read the API's answers (CORS): the origins a club allows for all
// its clients, and those allowed for one client. A page's request carries its Origin;
// an answer grants it (Access-Control-Allow-Origin) only when the rule below says so.
// CORS decides what a browser lets a page read, never what the API serves: the token
// and every other rule apply to each call as before.
//
// - A call a token admitted is granted to the origins of the token's client (its own
//   and its club's), read with the client's state (at most CLIENT_STATE_MAX_AGE_MS old).
// - A preflight carries no token, and an error says nothing of the club's data, so both
//   are granted to every origin that some client or club allows (re-read as often):
//   a page can then send its token, and read a 401 to fetch a new one.
// - Any other origin gets no grant at all.

import { SharedRead } from "../caching/shared-read.js";
import { listAllowedOrigins } from "../store/origins.js";
import type { Pool } from "../store/pool.js";

/** Request headers a page may send besides the CORS-safelisted ones. */
export const CORS_ALLOWED_HEADERS = "Authorization, If-None-Match, Last-Event-ID, traceparent, Content-Type";
/** Response headers a page may read besides the CORS-safelisted ones (Cache-Control, Content-Type...). */
export const CORS_EXPOSED_HEADERS = "ETag, X-Data-As-Of, RateLimit, RateLimit-Policy, Retry-After, X-Trace-Id, WWW-Authenticate";
/** How long a browser may keep a preflight's answer: an origin removed still loses its grants on answers within 5 s. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;
/** The longest origin accepted: scheme, a 253-character host name and a port. */
const MAX_ORIGIN_LENGTH = 300;

export class InvalidOrigin extends Error {
  constructor(
    readonly origin: string,
    reason: string,
  ) {
    super(`origin "${origin.length > 60 ? `${origin.slice(0, 60)}...` : origin}" ${reason}`);
    this.name = "InvalidOrigin";
  }
}

/**
 * An origin as browsers send it (`https://club.example`, `http://localhost:5173`):
 * scheme, host and port only, lower-case, default port dropped. Throws InvalidOrigin
 * for anything else: a path, a wildcard, `null`, credentials, another scheme.
 */
export function parseOrigin(text: string): string {
  if (text.length > MAX_ORIGIN_LENGTH) throw new InvalidOrigin(text, `is longer than ${MAX_ORIGIN_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidOrigin(text, "is not an origin: write scheme://host[:port], e.g. https://club.example");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new InvalidOrigin(text, "must be http:// or https://");
  // URL accepts "https://club.example/" and "https://a@club.example"; an origin has neither path nor user.
  if (
    url.username !== "" ||
    url.password !== "" ||
    url.search !== "" ||
    url.hash !== "" ||
    !/^https?:\/\/[^/]+\/?$/i.test(text) ||
    text.includes("*")
  ) {
    throw new InvalidOrigin(text, "is not an origin: scheme://host[:port] only, no path, wildcard or credentials");
  }
  return url.origin;
}

/** Every origin in `entries`, normalised, each once; throws InvalidOrigin naming the first bad one. */
export function parseOrigins(entries: readonly string[]): string[] {
  return [...new Set(entries.map(parseOrigin))];
}

/** The headers that let the page at `origin` read an answer. */
export function corsGrant(origin: string): Record<string, string> {
  return { "access-control-allow-origin": origin, "access-control-expose-headers": CORS_EXPOSED_HEADERS };
}

/** The answer to a preflight from `origin` for a path answering `methods`. */
export function preflightGrant(origin: string, methods: string): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": methods,
    "access-control-allow-headers": CORS_ALLOWED_HEADERS,
    "access-control-max-age": String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}

/** The union of the origins every club and client allows: whom answers without a client's data are granted to. */
export class KnownOrigins {
  private readonly known: SharedRead<{ origins: ReadonlySet<string> }>;

  /** `maxAgeMs`: as old as a client's state may be, so a removed origin loses every grant together. */
  constructor(
    private readonly pool: Pool,
    maxAgeMs: number,
  ) {
    this.known = new SharedRead({ name: "known_origins", ttlMs: maxAgeMs, max: 1 });
  }

  /** The answer to a preflight from `origin` (no token yet) for a path answering `methods`: the grant, or nothing. */
  async preflight(origin: string, methods: string): Promise<Record<string, string>> {
    return (await this.has(origin)) ? preflightGrant(origin, methods) : {};
  }

  /** The grant of an answer that holds no client's data (an error, the public OpenAPI document), or nothing. */
  async withoutData(origin: string): Promise<Record<string, string>> {
    return (await this.has(origin)) ? corsGrant(origin) : {};
  }

  private async has(origin: string): Promise<boolean> {
    const { origins } = await this.known.get("", async () => ({ origins: new Set(await listAllowedOrigins(this.pool)) }));
    return origins.has(origin);
  }
}
