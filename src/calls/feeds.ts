// Fan-out for the Watch streams: one producer per key (a race, or a race and a
// language) on this instance, however many subscribe. The producer asks on a short
// beat through the same shared reads the polled calls use (a map look-up while the
// shared answer is fresh, a database read once it is due), and offers each new value
// to every subscriber. A subscriber keeps only the newest value it has not taken, so a
// slow one costs one message of memory, never a queue.

import type { Logger } from "pino";
import { droppedSubscribers } from "../telemetry/metrics.js";

/** A value with the id a client resumes after (the SSE event id). */
export interface Published<T> {
  id: string;
  value: T;
}

export type Read<T> = () => Promise<Published<T>>;

/** What a subscription yields: a new value, or a heartbeat when nothing came for a while. */
export type FeedEvent<T> = { value: Published<T> } | { heartbeat: true };

/** The producers' beat: a new live state goes out within this of its shared read being due. */
export const FEED_ASK_EVERY_MS = 250;

/** How long a new subscription waits for its first value before opening with a heartbeat. */
export const FIRST_WAIT_MS = 500;

export class SubscriptionStalled extends Error {
  constructor(stalledMs: number) {
    super(`the client has not taken a message for ${Math.round(stalledMs / 1000)} s`);
    this.name = "SubscriptionStalled";
  }
}

export interface FeedTiming {
  /**
   * How often a producer asks its shared read while anyone subscribes. Well under the
   * read's own lifetime: asking exactly as often would find the old answer still
   * fresh half the time and send every other state.
   */
  askEveryMs: number;
  /** A heartbeat after this long without a value. */
  heartbeatMs: number;
  /** A subscriber that leaves a value untaken this long is dropped. */
  stallMs: number;
}

/** Heartbeat and stall limits of the Watch streams (the producers' beat is askEveryMs). */
export type StreamTiming = Omit<FeedTiming, "askEveryMs">;

export class Feeds<T> {
  private readonly producers = new Map<string, Producer<T>>();

  constructor(
    private readonly timing: FeedTiming,
    private readonly logger: Logger,
  ) {}

  /**
   * Subscribes to `key`, whose producer reads with `read` (the first subscriber's
   * `read` serves everyone). The current value comes first unless its id is `resumeAfter`.
   */
  subscribe(key: string, read: Read<T>, resumeAfter: string): Subscription<T> {
    let producer = this.producers.get(key);
    if (!producer) {
      producer = new Producer(read, this.timing.askEveryMs, this.logger, () => this.producers.delete(key));
      this.producers.set(key, producer);
    }
    const subscription = new Subscription<T>(this.timing, resumeAfter, (s) => producer.remove(s));
    producer.add(subscription);
    return subscription;
  }

  /** Producers running now: one per key with subscribers. */
  get size(): number {
    return this.producers.size;
  }
}

class Producer<T> {
  private readonly subscribers = new Set<Subscription<T>>();
  private latest: Published<T> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading = false;

  constructor(
    private readonly read: Read<T>,
    private readonly everyMs: number,
    private readonly logger: Logger,
    private readonly onIdle: () => void,
  ) {}

  add(subscription: Subscription<T>): void {
    this.subscribers.add(subscription);
    if (this.latest) subscription.offer(this.latest);
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), this.everyMs);
      void this.tick();
    }
  }

  remove(subscription: Subscription<T>): void {
    this.subscribers.delete(subscription);
    if (this.subscribers.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      this.onIdle();
    }
  }

  private async tick(): Promise<void> {
    // A read slower than the beat is not overtaken by the next one.
    if (this.reading) return;
    this.reading = true;
    try {
      const next = await this.read();
      if (next.id === this.latest?.id) return;
      this.latest = next;
      for (const subscriber of this.subscribers) subscriber.offer(next);
    } catch (error) {
      // The stream stays open: the next beat reads again, heartbeats keep it alive meanwhile.
      this.logger.warn({ err: error }, "watch stream read failed; retrying on the next beat");
    } finally {
      this.reading = false;
    }
  }
}

/** What a Watch stream iterates (a live subscription, or a replay: replay.ts), and the two ways the server ends it. */
export interface FeedSubscription<T> extends AsyncIterable<FeedEvent<T>> {
  /** Ends the stream with `error` (a revoked credential, a stalled client). */
  fail(error: unknown): void;
  /** Ends the stream cleanly (the client left, the server shuts down). */
  end(): void;
}

export class Subscription<T> implements FeedSubscription<T> {
  private pending: Published<T> | null = null;
  private pendingSinceMs = 0;
  private lastSentId: string;
  private failure: unknown = null;
  private ended = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly timing: FeedTiming,
    resumeAfter: string,
    private readonly onClose: (subscription: Subscription<T>) => void,
  ) {
    this.lastSentId = resumeAfter;
  }

  /** A new value from the producer; it replaces one the client has not taken yet. */
  offer(value: Published<T>): void {
    if (value.id === this.lastSentId) return;
    const now = Date.now();
    if (this.pending === null) this.pendingSinceMs = now;
    else if (now - this.pendingSinceMs > this.timing.stallMs) {
      if (this.failure === null) droppedSubscribers.inc({ reason: "stalled" });
      this.fail(new SubscriptionStalled(now - this.pendingSinceMs));
      return;
    }
    this.pending = value;
    this.wake?.();
  }

  /** Ends the stream with `error` (a revoked credential, a stalled client). */
  fail(error: unknown): void {
    this.failure ??= error;
    this.wake?.();
  }

  /** Ends the stream cleanly (the client left, the server shuts down). */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<FeedEvent<T>> {
    let started = false;
    try {
      while (true) {
        if (this.failure !== null) throw this.failure;
        if (this.ended) return;
        if (this.pending !== null) {
          const value = this.pending;
          this.pending = null;
          this.lastSentId = value.id;
          started = true;
          yield { value };
          continue;
        }
        // At the start, a heartbeat soon when there is nothing to send yet, so the
        // stream opens (headers go out with the first message) without waiting.
        const wait = started ? this.timing.heartbeatMs : FIRST_WAIT_MS;
        started = true;
        if (!(await this.nextOrTimeout(wait))) yield { heartbeat: true };
      }
    } finally {
      this.onClose(this);
    }
  }

  /** True when woken by news, false after the heartbeat interval. */
  private nextOrTimeout(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve(false);
      }, timeoutMs);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve(true);
      };
    });
  }
}
