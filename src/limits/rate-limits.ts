// The rate-limit counters of the API: one count per bucket and key in fixed windows,
// held against the limits of policy.ts.
//
// Counters live in memory, or in Redis when a URL is given so that every instance spends
// one shared budget. When Redis fails (down, slow), each instance counts in its own memory
// instead: callers stay limited (per instance) and never see a 500 because of Redis.

import { Redis } from "ioredis";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { ApiError } from "../errors/api-error.js";
import { BUCKETS, rateLimitHeaders, standing, WINDOW_SECONDS, type Bucket, type LimitResult } from "./policy.js";
import { type Count, RedisCounts } from "./redis-counts.js";
import { rateLimited } from "../telemetry/metrics.js";

export interface RateLimitsOptions {
  redisUrl?: string | undefined;
  /** Prefix of every counter key (default "race-api"), so several services can share a Redis. */
  keyPrefix?: string;
  /** Called with every Redis failure: connection errors and calls answered from memory instead. */
  onRedisError?: (error: unknown) => void;
  /** Length of a window in seconds; 60 by the spec, shorter only in tests (headers still say w=60). */
  windowSeconds?: number;
  /** How long one Redis call may take before the count falls back to memory. */
  redisTimeoutMs?: number;
}

// Limits differ per club but counters are shared, so each bucket's limiter is a pure
// counter (a budget nobody reaches) and `consume` compares the count with the caller's limit.
const UNREACHABLE_POINTS = Number.MAX_SAFE_INTEGER;

export class RateLimits {
  private constructor(
    private readonly memory: Record<Bucket, RateLimiterMemory>,
    private readonly redis: RedisCounts | null,
    private readonly keyPrefix: string,
    private readonly windowSeconds: number,
    private readonly onRedisError: (error: unknown) => void,
  ) {}

  static async create(options: RateLimitsOptions): Promise<RateLimits> {
    const windowSeconds = options.windowSeconds ?? WINDOW_SECONDS;
    if (!Number.isInteger(windowSeconds) || windowSeconds < 1) {
      throw new RangeError(`windowSeconds must be a whole number of seconds, got ${windowSeconds}`);
    }
    const keyPrefix = options.keyPrefix ?? "race-api";
    const onRedisError = options.onRedisError ?? (() => {});
    const client = options.redisUrl ? await connect(options.redisUrl, options.redisTimeoutMs ?? 500, onRedisError) : null;

    const memory = {} as Record<Bucket, RateLimiterMemory>;
    for (const bucket of BUCKETS) memory[bucket] = new RateLimiterMemory({ points: UNREACHABLE_POINTS, duration: windowSeconds });
    const redis = client ? new RedisCounts(client, windowSeconds) : null;
    return new RateLimits(memory, redis, keyPrefix, windowSeconds, onRedisError);
  }

  /** Counts one call of `key` in `bucket` and says whether it fits in `limit` per minute (policy.ts). */
  async consume(bucket: Bucket, key: string, limit: number): Promise<LimitResult> {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    const counted = this.redis ? await this.countInRedis(this.redis, bucket, key) : await this.countInMemory(bucket, key);
    return standing(bucket, limit, counted.consumed, counted.msBeforeNext, this.windowSeconds);
  }

  /**
   * Counts one call and refuses it with RATE_LIMIT_EXCEEDED when it does not fit;
   * either way the answer carries the bucket's RateLimit headers, which this returns.
   */
  async charge(bucket: Bucket, key: string, limit: number): Promise<Record<string, string>> {
    const result = await this.consume(bucket, key, limit);
    const headers = rateLimitHeaders(result);
    if (!result.allowed) {
      rateLimited.inc({ bucket });
      throw new ApiError("RATE_LIMIT_EXCEEDED", {}, headers);
    }
    return headers;
  }

  /** Quits the Redis connection, if any. */
  async close(): Promise<void> {
    await this.redis?.close();
  }

  private async countInRedis(redis: RedisCounts, bucket: Bucket, key: string): Promise<Count> {
    try {
      return await redis.count(`${this.keyPrefix}:ratelimit:${bucket}:${key}`);
    } catch (error) {
      this.onRedisError(error);
    }
    return this.countInMemory(bucket, key);
  }

  private async countInMemory(bucket: Bucket, key: string): Promise<Count> {
    const counted = await this.memory[bucket].consume(key);
    return { consumed: counted.consumedPoints, msBeforeNext: counted.msBeforeNext };
  }
}

async function connect(url: string, timeoutMs: number, onRedisError: (error: unknown) => void): Promise<Redis> {
  const client = new Redis(url, {
    // Fail at once while disconnected instead of queueing: the call is counted in memory.
    enableOfflineQueue: false,
    // An increment in flight when the connection dropped was already counted in memory.
    autoResendUnfulfilledCommands: false,
    commandTimeout: timeoutMs,
    // A turn's counts are batched by RedisCounts, which does not wait for the previous batch.
    connectTimeout: Math.max(timeoutMs, 2000),
    lazyConnect: true,
  });
  // Without a listener ioredis prints every failed reconnect; it keeps retrying either way.
  client.on("error", onRedisError);
  try {
    await client.connect();
  } catch {
    // Redis down at start is no reason to stop: count in memory until it comes back.
  }
  return client;
}
