// The API's cache policy, the spec's "Cache" row and every Cache-Control the API sends:
// how long each answer is shared on the server, how long a client may keep it, and the
// X-Data-As-Of header that dates it. The services pick the value that fits what they
// read (a track window's end against the cut-off, the next insights generation) and
// set it on the RPC, so every protocol carries it; the gateway documents the same values.
//
// Every data answer is `private`: it is reached with a bearer token and only some clubs
// may see it, and a shared cache may store an answer to an Authorization request only
// when told `public` (RFC 9111 3.5), which would serve it to callers the guard never saw.

/** The response header that says how new the body's data is: its dataAsOf. */
export const DATA_AS_OF_HEADER = "x-data-as-of";

/** The events list changes when a club edits its events: a short freshness, then revalidate with the ETag. */
export const EVENTS_CACHE_CONTROL = "private, max-age=30";

/**
 * An event's live status changes when a race goes live or a group starts or finishes:
 * an overlay polling it every 10 s learns of that soon enough, and a 304 keeps each poll cheap.
 */
export const EVENT_LIVE_CACHE_CONTROL = "private, max-age=10";

/**
 * Results change when the club publishes or revises them (provisional to final, after
 * protests): minutes apart at most, so a 30 s freshness, then the gateway's ETag.
 */
export const RESULTS_CACHE_CONTROL = "private, max-age=30";

/** Scopes can be taken from a client at any time: always revalidate (the gateway's ETag). */
export const SCOPES_CACHE_CONTROL = "private, no-cache";

/** The spec's "shared server-side cache of 2 seconds per race", and what a client may keep. */
export const LIVE_MAX_AGE_MS = 2000;
export const LIVE_CACHE_CONTROL = `private, max-age=${LIVE_MAX_AGE_MS / 1000}`;

/** The insights of a live race: until the next generation is due, within the spec's "up to 60 s". */
export const INSIGHTS_MAX_AGE_S = 60;
/** A race that is not live answers the same until it goes live: poll it at the recommended 15-60 s. */
export const NOT_LIVE_INSIGHTS_MAX_AGE_S = 15;
export const INSIGHTS_CACHE_CONTROL_PATTERN = "^private, max-age=[0-9]+$";

/** The insights answer's Cache-Control: live, the seconds until `freshUntilMs` (1 to 60); otherwise 15. */
export function insightsCacheControl(isLive: boolean, freshUntilMs: number, nowMs: number): string {
  const maxAge = isLive ? Math.max(1, Math.min(INSIGHTS_MAX_AGE_S, Math.ceil((freshUntilMs - nowMs) / 1000))) : NOT_LIVE_INSIGHTS_MAX_AGE_S;
  return `private, max-age=${maxAge}`;
}

/** A track window or manoeuvres page that never changes (a track window ends at least 2 minutes before the cut-off). */
export const IMMUTABLE_CACHE_CONTROL = "private, max-age=3600, immutable";
/**
 * A track window reaching close to the cut-off: fixes may still arrive for it. Its answer
 * is shared for as long as a client may keep it: overlays following a live race ask for
 * the same window together, and the load test found these reads its largest cost.
 */
export const NEAR_NOW_MAX_AGE_MS = 2000;
export const NEAR_NOW_CACHE_CONTROL = `private, max-age=${NEAR_NOW_MAX_AGE_MS / 1000}`;

/**
 * An export of a start group whose capture window has settled: the same file for ever
 * (its ETag is known from the request before a fix is read), so a client keeps it a day.
 * An export still reaching the cut-off is sent NEAR_NOW_CACHE_CONTROL, without an ETag.
 */
export const EXPORT_SETTLED_CACHE_CONTROL = "private, max-age=86400, immutable";

/**
 * A race's analytics, and a manoeuvres page that may still change: computed once per
 * race per 2 s, as live is (the contract's "shared server-side read of 2 seconds per
 * race"), and what a client may keep. A settled manoeuvres page is IMMUTABLE_CACHE_CONTROL.
 */
export const ANALYTICS_MAX_AGE_MS = 2000;
export const ANALYTICS_CACHE_CONTROL = `private, max-age=${ANALYTICS_MAX_AGE_MS / 1000}`;

/** Errors, tokens and streams are never cached. */
export const NO_STORE = "no-store";
/** The token endpoint's `Pragma`, beside no-store, for HTTP/1.0 caches (RFC 6749 5.1). */
export const PRAGMA_NO_CACHE = "no-cache";

/** The OpenAPI document changes only with a release. */
export const OPENAPI_CACHE_CONTROL = "public, max-age=300";
/** The OAuth metadata document changes only with the deployment (base URL, scope table). */
export const METADATA_CACHE_CONTROL = "public, max-age=3600";
/**
 * The JWK Set: a retired key must stop verifying soon at the services that cache the set
 * too (decisions.md); a new key is looked up by its unknown kid anyway.
 */
export const JWKS_CACHE_CONTROL = "public, max-age=60";
/** The overlay starter's files: revalidated on every load, so a copied or updated page is picked up at once. */
export const OVERLAY_CACHE_CONTROL = "no-cache";
/** The errors page (/docs/errors) changes only with a release. */
export const ERRORS_PAGE_CACHE_CONTROL = "public, max-age=3600";
