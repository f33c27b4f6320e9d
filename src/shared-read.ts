// One read shared by every caller: a value per key, loaded at most once per `ttlMs`
// however many callers ask, with concurrent misses awaiting the same load
// (single-flight). A failed load is never kept: the next caller tries again, so a 503
// of a slow read model is not served from the cache. Used for client state, race
// visibility, the live read, settled track windows and insights answers.

import { LRUCache } from "lru-cache";
import { watchSharedRead, type SharedReadFigures } from "./telemetry/metrics.js";

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
  /**
   * Reload a value that callers keep asking for before it goes stale: the first caller
   * after a random moment between 70% and 90% of its ttl starts the load and, like every
   * caller until it is done, is served the value still held. Callers of a busy key then
   * never wait for its reload, and keys loaded together (every race's live read) reload
   * at moments of their own rather than as one herd every ttl: measured under the load
   * test, that herd was 140 statements every 2 s, with the acknowledgements and reads of
   * those moments queued behind it (docs/decisions.md). No value is served past its ttl.
   */
  refreshAhead?: boolean;
}

/** A value, and from when a caller's read starts its reload (Infinity: not before it is stale). */
interface Entry<V> {
  value: V;
  refreshAtMs: number;
}

/**
 * Where in a value's ttl refreshAhead reloads it: spread over a fifth of the ttl, and
 * early enough (the last tenth left) for the reload to be done before the value is stale.
 */
const REFRESH_FROM = 0.7;
const REFRESH_SPREAD = 0.2;

export class SharedRead<V extends object> implements SharedReadFigures {
  private readonly values: LRUCache<string, Entry<V>>;
  private readonly loading = new Map<string, Promise<V>>();
  readonly name: string;
  hits = 0;
  joins = 0;
  loads = 0;

  constructor(private readonly options: SharedReadOptions<V>) {
    this.name = options.name;
    const maxSize = options.maxSize;
    this.values = maxSize
      ? new LRUCache<string, Entry<V>>({ maxSize: maxSize.total, sizeCalculation: (entry) => maxSize.sizeOf(entry.value) })
      : new LRUCache<string, Entry<V>>({ max: options.max ?? 1000, ttlAutopurge: options.purgeStale ?? false });
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
      if (Date.now() >= cached.refreshAtMs && !this.loading.has(key)) {
        // One reload per value. If it fails, the value is served until it is stale, and
        // the callers after that load again themselves and see what went wrong.
        cached.refreshAtMs = Infinity;
        this.load(key, load).catch(() => {});
      }
      return Promise.resolve(cached.value);
    }
    const pending = this.loading.get(key);
    if (pending) {
      this.joins += 1;
      return pending;
    }
    return this.load(key, load);
  }

  private load(key: string, load: () => Promise<V>): Promise<V> {
    this.loads += 1;
    const startedAt = Date.now();
    const loaded = load()
      .then((value) => {
        // The value's age is counted from the start of its read: it never outlives ttlMs.
        const ttlMs = typeof this.options.ttlMs === "function" ? this.options.ttlMs(value) : this.options.ttlMs;
        const ttl = ttlMs - (Date.now() - startedAt);
        const refreshAtMs = this.options.refreshAhead ? startedAt + ttlMs * (REFRESH_FROM + REFRESH_SPREAD * Math.random()) : Infinity;
        if (ttl > 0) this.values.set(key, { value, refreshAtMs }, { ttl });
        return value;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, loaded);
    return loaded;
  }
}
