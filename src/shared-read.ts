// One read shared by every caller: a value per key, loaded at most once per `ttlMs`
// however many callers ask, with concurrent misses awaiting the same load
// (single-flight). A failed load is never kept: the next caller tries again, so a 503
// of a slow read model is not served from the cache. Used for client state, race
// visibility, the live read, settled track windows and insights answers.

import { LRUCache } from "lru-cache";

export interface SharedReadOptions<V> {
  /** How long a loaded value is served, counted from the start of its load (the moment its data was cut); per value if a function. */
  ttlMs: number | ((value: V) => number);
  /** Most keys kept; the least recently used go first. */
  max?: number;
  /** Or a bound on the values' total size, as `sizeOf` measures it. */
  maxSize?: { total: number; sizeOf: (value: V) => number };
}

export class SharedRead<V extends object> {
  private readonly values: LRUCache<string, V>;
  private readonly loading = new Map<string, Promise<V>>();

  constructor(private readonly options: SharedReadOptions<V>) {
    this.values = options.maxSize
      ? new LRUCache<string, V>({ maxSize: options.maxSize.total, sizeCalculation: options.maxSize.sizeOf })
      : new LRUCache<string, V>({ max: options.max ?? 1000 });
  }

  /** The value of `key` loaded less than ttlMs ago, the load under way, or a new load. */
  get(key: string, load: () => Promise<V>): Promise<V> {
    const cached = this.values.get(key);
    if (cached) return Promise.resolve(cached);
    let pending = this.loading.get(key);
    if (!pending) {
      const startedAt = Date.now();
      pending = load()
        .then((value) => {
          // The value's age is counted from the start of its read: it never outlives ttlMs.
          const ttlMs = typeof this.options.ttlMs === "function" ? this.options.ttlMs(value) : this.options.ttlMs;
          const ttl = ttlMs - (Date.now() - startedAt);
          if (ttl > 0) this.values.set(key, value, { ttl });
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }
}
