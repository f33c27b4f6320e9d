// One read shared by every caller: a value per key, loaded at most once per `ttlMs`
// however many callers ask, with concurrent misses awaiting the same load
// (single-flight). A failed load is never kept: the next caller tries again, so a 503
// of a slow read model is not served from the cache. Used for client state, race
// visibility, the live read, settled track windows and insights answers.

import { LRUCache } from "lru-cache";
import { watchSharedRead, type SharedReadFigures } from "../telemetry/metrics.js";

export interface SharedReadOptions<V> {
  /** What it holds, as its metrics name it (`cache` label). */
  name: string;
  /** How long a loaded value is served, counted from the start of its load (the moment its data was cut); per value if a function. */
  ttlMs: number | ((value: V) => number);
  /** Most keys kept; the least recently used go first. */
  max?: number;
  /** Or a bound on the values' total size, as `sizeOf` measures it. */
  maxSize?: { total: number; sizeOf: (value: V) => number };
  /**
   * Drop each value as soon as it is stale (a timer per load) rather than when newer keys
   * push it out: for values of megabytes under keys that rarely repeat, which would
   * otherwise stay in memory up to `max` of them, and make every full GC mark them.
   */
  purgeStale?: boolean;
}

export class SharedRead<V extends object> implements SharedReadFigures {
  private readonly values: LRUCache<string, V>;
  private readonly loading = new Map<string, Promise<V>>();
  readonly name: string;
  hits = 0;
  joins = 0;
  loads = 0;

  constructor(private readonly options: SharedReadOptions<V>) {
    this.name = options.name;
    this.values = options.maxSize
      ? new LRUCache<string, V>({ maxSize: options.maxSize.total, sizeCalculation: options.maxSize.sizeOf })
      : new LRUCache<string, V>({ max: options.max ?? 1000, ttlAutopurge: options.purgeStale ?? false });
    watchSharedRead(this);
  }

  keys(): number {
    return this.values.size;
  }

  /** The value of `key` loaded less than ttlMs ago, the load under way, or a new load. */
  get(key: string, load: () => Promise<V>): Promise<V> {
    const cached = this.values.get(key);
    if (cached) {
      this.hits += 1;
      return Promise.resolve(cached);
    }
    const pending = this.loading.get(key);
    if (pending) {
      this.joins += 1;
      return pending;
    }
    this.loads += 1;
    const startedAt = Date.now();
    const loaded = load()
      .then((value) => {
        // The value's age is counted from the start of its read: it never outlives ttlMs.
        const ttlMs = typeof this.options.ttlMs === "function" ? this.options.ttlMs(value) : this.options.ttlMs;
        const ttl = ttlMs - (Date.now() - startedAt);
        if (ttl > 0) this.values.set(key, value, { ttl });
        return value;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, loaded);
    return loaded;
  }
}
