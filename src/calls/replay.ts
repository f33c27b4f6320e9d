// A Watch stream that replays a race before it goes live: one state per 2 s of race
// time from a start moment, paced by the replay clock (every 2/speed s of wall time),
// each read through a source the viewers share (so 500 viewers at one moment cost one
// read), then, once the next moment is at or past the delayed cut-off, the live stream.
// Heartbeats while a read is slow, and the live streams' stall rule: a state left
// untaken for stallMs ends the stream.

import type { Logger } from "pino";
import { eventMoment, REPLAY_STEP_MS } from "../domain/past-moment.js";
import {
  FIRST_WAIT_MS,
  SubscriptionStalled,
  type FeedEvent,
  type FeedSubscription,
  type Published,
  type StreamTiming,
  type Subscription,
} from "./feeds.js";

export interface ReplaySource<T> {
  /** The state at the moment `atMs` (its id is the moment), shared by every viewer at it. */
  at(atMs: number): Promise<Published<T>>;
  /** The delayed cut-off now: a replay never sends a moment at or after it. */
  cutoffMs(): Promise<number>;
  /** The live stream the replay goes on as once it has caught up. */
  live(resumeAfter: string): Subscription<T>;
}

export interface ReplayOptions {
  /** The first moment, on the 2-second grid (past-moment.ts replayStart). */
  startMs: number;
  /** Race time per wall-clock time, 1 to 60. */
  speed: number;
  /** The id the client resumes after: the live stream, if the replay has already caught up, starts after it. */
  resumeAfter: string;
  timing: StreamTiming;
  logger: Logger;
}

/** A failed read is tried again after this long (the live producers' beat is shorter: a replay has no deadline). */
const RETRY_READ_MS = 1000;

export class Replay<T> implements FeedSubscription<T> {
  private failure: unknown = null;
  private ended = false;
  private wake: (() => void) | null = null;
  private live: Subscription<T> | null = null;

  constructor(
    private readonly source: ReplaySource<T>,
    private readonly options: ReplayOptions,
  ) {}

  fail(error: unknown): void {
    this.failure ??= error;
    this.live?.fail(error);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.live?.end();
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<FeedEvent<T>> {
    const { startMs, speed, timing, resumeAfter } = this.options;
    const startedAtMs = Date.now();
    let lastId = resumeAfter;
    let lastMs = eventMoment(resumeAfter) ?? Number.NEGATIVE_INFINITY;
    for (let step = 0; ; step++) {
      const momentMs = startMs + step * REPLAY_STEP_MS;
      if (this.stopped() || momentMs >= (await this.source.cutoffMs())) break;
      // The replay clock: moment k is due k * 2 s / speed after the replay began.
      const dueAtMs = startedAtMs + (step * REPLAY_STEP_MS) / speed;
      while (Date.now() < dueAtMs && !this.stopped()) await this.within(null, dueAtMs - Date.now());
      const state = yield* this.read(momentMs, step === 0);
      if (state === null) break;
      const readyAtMs = Date.now();
      yield { value: state };
      if (Date.now() - readyAtMs > timing.stallMs) throw new SubscriptionStalled(Date.now() - readyAtMs);
      lastId = state.id;
      lastMs = momentMs;
    }
    this.throwIfFailed();
    if (this.ended) return;
    // Caught up: the live stream, never going back before the last replayed moment
    // (its shared read may be up to 2 s older than the cut-off that ended the replay).
    this.live = this.source.live(lastId);
    for await (const event of this.live) {
      if ("value" in event && Number(event.value.id) <= lastMs) continue;
      yield event;
    }
  }

  /** The state at `momentMs`, with heartbeats while it is read and a retry after a failed read; null once stopped. */
  private async *read(momentMs: number, first: boolean): AsyncGenerator<FeedEvent<T>, Published<T> | null> {
    let waitMs = first ? FIRST_WAIT_MS : this.options.timing.heartbeatMs;
    while (!this.stopped()) {
      const reading = this.source.at(momentMs);
      reading.catch(() => {});
      try {
        while (!this.stopped()) {
          const outcome = await this.within(reading, waitMs);
          if (outcome !== null) return outcome.value;
          if (!this.stopped()) yield { heartbeat: true };
          waitMs = this.options.timing.heartbeatMs;
        }
      } catch (error) {
        // The stream stays open: the read is tried again, heartbeats keep it alive meanwhile.
        this.options.logger.warn({ err: error }, "replay read failed; retrying");
        await this.within(null, RETRY_READ_MS);
      }
    }
    return null;
  }

  private stopped(): boolean {
    this.throwIfFailed();
    return this.ended;
  }

  private throwIfFailed(): void {
    if (this.failure !== null) throw this.failure;
  }

  /** `promise`'s value, or null after `timeoutMs` or when the stream is ended or failed meanwhile (a pause when null). */
  private within<V>(promise: Promise<V> | null, timeoutMs: number): Promise<{ value: V } | null> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
      };
      const timer = setTimeout(() => {
        done();
        resolve(null);
      }, timeoutMs);
      this.wake = () => {
        done();
        resolve(null);
      };
      promise?.then(
        (value) => {
          done();
          resolve({ value });
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  }
}
