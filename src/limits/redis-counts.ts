// Fixed-window counts in Redis, shared by every instance.
//
// Every count made in one turn of the event loop goes out in one write, and that write
// does not wait for the previous one to be answered: Redis answers in order on one
// connection, so each count costs one round trip. (ioredis's own auto-pipelining sends
// one pipeline at a time, so under load a count waited up to two round trips.)

import type { Redis, Result } from "ioredis";

declare module "ioredis" {
  interface RedisCommander<Context> {
    /** COUNT_SCRIPT, defined by RedisCounts. */
    raceApiCount(key: string, windowSeconds: number): Result<[number, number], Context>;
  }
}

/** A key's count in its current window, and the milliseconds until that window ends. */
export interface Count {
  consumed: number;
  msBeforeNext: number;
}

// Atomic on the server, so two instances counting the same key at once never lose a count
// and a window always gets its expiry. Answers {count, pttl}.
const COUNT_SCRIPT = `
redis.call('set', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local consumed = redis.call('incr', KEYS[1])
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[1])
  ttl = 1000 * ARGV[1]
end
return {consumed, ttl}`;

interface Pending {
  key: string;
  resolve: (count: Count) => void;
  reject: (error: unknown) => void;
}

export class RedisCounts {
  private pending: Pending[] = [];

  constructor(
    private readonly client: Redis,
    private readonly windowSeconds: number,
  ) {
    client.defineCommand("raceApiCount", { numberOfKeys: 1, lua: COUNT_SCRIPT });
  }

  /** Counts one call of `key`; rejects when Redis is not connected or does not answer in time. */
  count(key: string): Promise<Count> {
    if (this.client.status !== "ready") return Promise.reject(new Error(`Redis is ${this.client.status}`));
    return new Promise((resolve, reject) => {
      if (this.pending.push({ key, resolve, reject }) === 1) setImmediate(() => this.send());
    });
  }

  /** Quits the connection. */
  async close(): Promise<void> {
    try {
      await this.client.quit();
    } catch {
      // Not connected (Redis down): there is nothing to say goodbye to.
    } finally {
      this.client.disconnect();
    }
  }

  private send(): void {
    const batch = this.pending;
    this.pending = [];
    const pipeline = this.client.pipeline();
    for (const { key } of batch) pipeline.raceApiCount(key, this.windowSeconds);
    pipeline.exec().then(
      (results) => {
        batch.forEach(({ resolve, reject }, i) => {
          const [error, answer] = results?.[i] ?? [new Error("Redis gave no answer"), null];
          if (error) reject(error);
          else {
            const [consumed, msBeforeNext] = answer as [number, number];
            resolve({ consumed, msBeforeNext });
          }
        });
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  }
}
