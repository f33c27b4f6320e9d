// The fan-out behind the Watch streams, on its own clock: one producer per key, the
// newest value only for a subscriber that falls behind, a stalled one dropped, resume,
// heartbeats, and no reads once nobody listens.

import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { Feeds, SubscriptionStalled, type FeedEvent, type Published } from "../../src/calls/feeds.js";

const timing = { askEveryMs: 20, heartbeatMs: 60, stallMs: 150 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A read whose value changes on every call; counts its calls. */
function counter() {
  const state = { reads: 0 };
  const read = async (): Promise<Published<number>> => {
    state.reads++;
    return { id: String(state.reads), value: state.reads };
  };
  return { state, read };
}

async function take<T>(iterator: AsyncIterator<FeedEvent<T>>): Promise<FeedEvent<T>> {
  const next = await iterator.next();
  if (next.done) throw new Error("ended");
  return next.value;
}

describe("Feeds", () => {
  it("runs one producer per key, whatever the number of subscribers", async () => {
    const feeds = new Feeds<number>(timing, pino({ level: "silent" }));
    const { state, read } = counter();
    const subscriptions = Array.from({ length: 50 }, () => feeds.subscribe("race", read, ""));
    expect(feeds.size).toBe(1);
    await sleep(110);
    // About one read per beat (110 / 20), not one per subscriber per beat.
    expect(state.reads).toBeGreaterThanOrEqual(3);
    expect(state.reads).toBeLessThanOrEqual(8);
    for (const subscription of subscriptions) subscription.end();
  });

  it("hands a subscriber that fell behind only the newest value", async () => {
    const feeds = new Feeds<number>(timing, pino({ level: "silent" }));
    const { state, read } = counter();
    const iterator = feeds.subscribe("race", read, "")[Symbol.asyncIterator]();
    await sleep(100);
    const event = await take(iterator);
    expect(event).toEqual({ value: { id: String(state.reads), value: state.reads } });
    expect(state.reads).toBeGreaterThan(2);
    await iterator.return?.(undefined);
  });

  it("drops a subscriber that leaves a value untaken longer than the stall limit", async () => {
    const feeds = new Feeds<number>(timing, pino({ level: "silent" }));
    const { read } = counter();
    const iterator = feeds.subscribe("race", read, "")[Symbol.asyncIterator]();
    await sleep(timing.stallMs + 100);
    await expect(iterator.next()).rejects.toBeInstanceOf(SubscriptionStalled);
  });

  it("does not send the value a resuming client has seen; heartbeats while nothing changes", async () => {
    const feeds = new Feeds<string>(timing, pino({ level: "silent" }));
    const read = async () => ({ id: "same", value: "unchanged" });
    const fresh = feeds.subscribe("race", read, "")[Symbol.asyncIterator]();
    expect(await take(fresh)).toEqual({ value: { id: "same", value: "unchanged" } });
    expect(await take(fresh)).toEqual({ heartbeat: true });
    const resumed = feeds.subscribe("race", read, "same")[Symbol.asyncIterator]();
    expect(await take(resumed)).toEqual({ heartbeat: true });
    await fresh.return?.(undefined);
    await resumed.return?.(undefined);
  });

  it("stops reading once the last subscriber has gone", async () => {
    const feeds = new Feeds<number>(timing, pino({ level: "silent" }));
    const { state, read } = counter();
    const iterator = feeds.subscribe("race", read, "")[Symbol.asyncIterator]();
    await take(iterator);
    await iterator.return?.(undefined);
    expect(feeds.size).toBe(0);
    const reads = state.reads;
    await sleep(100);
    expect(state.reads).toBe(reads);
  });

  it("ends a subscription cleanly on end(), and with the error on fail()", async () => {
    const feeds = new Feeds<number>(timing, pino({ level: "silent" }));
    const { read } = counter();
    const ending = feeds.subscribe("race", read, "");
    const failing = feeds.subscribe("race", read, "");
    const endingIterator = ending[Symbol.asyncIterator]();
    const failingIterator = failing[Symbol.asyncIterator]();
    await take(endingIterator);
    await take(failingIterator);
    ending.end();
    failing.fail(new Error("revoked"));
    await expect(endingIterator.next()).resolves.toEqual({ done: true, value: undefined });
    await expect(failingIterator.next()).rejects.toThrow("revoked");
  });
});
