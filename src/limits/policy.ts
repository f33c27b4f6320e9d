// The rate-limit policy of the API, every figure and rule of it: the buckets, their
// per-minute defaults and the token endpoint's 20, which call counts against which
// bucket, when a counted call is refused, and what the answer says about it (the
// RateLimit headers, Retry-After). rate-limits.ts counts calls; everything else reads this.

/**
 * The data-call buckets: tracking for the tracking:read endpoints, ingest for
 * IngestService (tracking:write), general for every other data call.
 */
export type DataBucket = "tracking" | "general" | "ingest";
/** The token endpoint's two limits: per client_id and, separately, per caller IP. */
export type TokenBucket = "token-client" | "token-ip";
export type Bucket = DataBucket | TokenBucket;

export const BUCKETS: readonly Bucket[] = ["tracking", "general", "ingest", "token-client", "token-ip"];

/** The spec's window: every limit is per minute. */
export const WINDOW_SECONDS = 60;

/**
 * Requests per minute of a data bucket when the club sets none. Ingest: one call per
 * second of fixes of one start group, for 100 start groups at once.
 */
export const DEFAULT_PER_MINUTE: Readonly<Record<DataBucket, number>> = { general: 60, tracking: 120, ingest: 6000 };

/**
 * Exports a client may run at once on one instance (track export). Opening one counts
 * as one call against its bucket, whatever its size: what it costs the database is
 * bounded by this instead, as each export reads one boat's page at a time.
 */
export const EXPORTS_PER_CLIENT = 2;

/** The token endpoint's limit, per client_id and per caller IP alike. */
export const TOKEN_REQUESTS_PER_MINUTE = 20;

/**
 * The bucket a data call counts against: the spec shares the tracking bucket among the
 * tracking:read endpoints; writes have a bucket of their own, so a feeding platform
 * never eats into what its club's readers may ask.
 */
export function bucketOf(scope: string | null): DataBucket {
  if (scope === "tracking:read") return "tracking";
  return scope === "tracking:write" ? "ingest" : "general";
}

/** A club's limits per data bucket: its own where it set one, the defaults otherwise. */
export function clubLimits(club: {
  rateLimitPerMinute: number | null;
  trackingRateLimitPerMinute: number | null;
  ingestRateLimitPerMinute: number | null;
}): Record<DataBucket, number> {
  return {
    general: club.rateLimitPerMinute ?? DEFAULT_PER_MINUTE.general,
    tracking: club.trackingRateLimitPerMinute ?? DEFAULT_PER_MINUTE.tracking,
    ingest: club.ingestRateLimitPerMinute ?? DEFAULT_PER_MINUTE.ingest,
  };
}

export interface LimitResult {
  bucket: Bucket;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends and the count starts again. */
  resetSeconds: number;
  allowed: boolean;
}

/**
 * The standing of a caller who has made `counted` calls in this window, this one
 * included. Counting goes on past the limit, so a client that keeps calling stays
 * refused until the window ends: a fixed window, no burst beyond the stated rate.
 */
export function standing(bucket: Bucket, limit: number, counted: number, msBeforeReset: number, windowSeconds: number): LimitResult {
  return {
    bucket,
    limit,
    remaining: Math.max(0, limit - counted),
    resetSeconds: Math.min(windowSeconds, Math.max(1, Math.ceil(msBeforeReset / 1000))),
    allowed: counted <= limit,
  };
}

/** The IETF draft headers (draft-ietf-httpapi-ratelimit-headers, structured fields) for a data answer. */
export function rateLimitHeaders(result: LimitResult): Record<string, string> {
  return {
    "ratelimit-policy": `"${result.bucket}";q=${result.limit};w=${WINDOW_SECONDS}`,
    ratelimit: `"${result.bucket}";r=${result.remaining};t=${result.resetSeconds}`,
  };
}
