// A shared read keeps each value for its ttl and no longer; with purgeStale a stale
// value also leaves memory at once (a near-now track page is megabytes); with
// refreshAhead a value asked for late in its life is reloaded while it is still served.

import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { SharedRead } from "../src/shared-read.js";

/** A value with the moment its load began, from which its age (and ttl) is counted. */
type Dated = { n: number; loadedAt: number };

describe("SharedRead", () => {
  it("loads once per ttl, however many callers ask", async () => {
    const read = new SharedRead<{ n: number }>({ name: "test_once", ttlMs: 10_000 });
    let loads = 0;
    const load = async () => ({ n: ++loads });
    const answers = await Promise.all([read.get("k", load), read.get("k", load), read.get("k", load)]);
    expect(answers.map((a) => a.n)).toEqual([1, 1, 1]);
    expect((await read.get("k", load)).n).toBe(1);
    expect(loads).toBe(1);
  });

  it("with purgeStale, drops a stale value from memory without waiting for newer keys", async () => {
    const purged = new SharedRead<{ n: number }>({ name: "test_purged", ttlMs: 50, purgeStale: true });
    const kept = new SharedRead<{ n: number }>({ name: "test_kept", ttlMs: 50 });
    await purged.get("k", async () => ({ n: 1 }));
    await kept.get("k", async () => ({ n: 1 }));
    expect(purged.keys()).toBe(1);
    await sleep(300);
    expect(purged.keys()).toBe(0);
    // Without it the stale value stays until newer keys push it out (it is never served).
    expect(kept.keys()).toBe(1);
    expect((await kept.get("k", async () => ({ n: 2 }))).n).toBe(2);
  });

  describe("refreshAhead", () => {
    // Long enough that the 20 ms polls below surely fall in each value's reload window (70-90% of it).
    const TTL_MS = 4000;
    /** Asks for `keys` every 20 ms for `forMs`, noting each answer with the value's age when it was served. */
    async function poll(read: SharedRead<Dated>, keys: string[], load: (key: string) => Promise<Dated>, forMs: number) {
      const served: Array<{ key: string; n: number; ageMs: number }> = [];
      const until = Date.now() + forMs;
      while (Date.now() < until) {
        for (const key of keys) {
          const value = await read.get(key, () => load(key));
          served.push({ key, n: value.n, ageMs: Date.now() - value.loadedAt });
        }
        await sleep(20);
      }
      return served;
    }

    it("reloads a value asked for at 70-90% of its ttl while still serving it, never past its ttl", async () => {
      const read = new SharedRead<Dated>({ name: "test_ahead", ttlMs: TTL_MS, refreshAhead: true });
      const started: number[] = [];
      const load = async () => {
        started.push(Date.now());
        await sleep(50);
        return { n: started.length, loadedAt: started.at(-1)! };
      };
      const first = await read.get("k", load);
      const served = await poll(read, ["k"], load, TTL_MS + 500);

      // The second load began at 70-90% of the first value's ttl, and nobody waited for it:
      // until it was done, every caller got the first value, none of it older than the ttl.
      expect(started.length).toBeGreaterThanOrEqual(2);
      const secondAt = started[1]! - first.loadedAt;
      expect(secondAt).toBeGreaterThanOrEqual(TTL_MS * 0.7);
      expect(secondAt).toBeLessThan(TTL_MS * 0.9 + 100);
      expect(served.filter((answer) => answer.n === 1).length).toBeGreaterThan(0);
      expect(served.every((answer) => answer.ageMs <= TTL_MS)).toBe(true);
      expect(served.map((answer) => answer.n)).toEqual([...served.map((answer) => answer.n)].sort((a, b) => a - b));
      expect(read.joins).toBe(0);
    });

    it("reloads keys loaded together at moments of their own", async () => {
      const read = new SharedRead<Dated>({ name: "test_spread", ttlMs: TTL_MS, refreshAhead: true });
      const keys = Array.from({ length: 20 }, (_, i) => `race-${i}`);
      const reloadAges = new Map<string, number>();
      const firstAt = Date.now();
      const load = async (key: string) => {
        if (Date.now() - firstAt > TTL_MS / 2) reloadAges.set(key, reloadAges.get(key) ?? Date.now() - firstAt);
        return { n: 1, loadedAt: Date.now() };
      };
      await Promise.all(keys.map((key) => read.get(key, () => load(key))));
      await poll(read, keys, load, TTL_MS);

      expect(reloadAges.size).toBe(keys.length);
      const ages = [...reloadAges.values()];
      // Uniform over 800 ms of the ttl: 20 reloads within 200 ms of each other would be a herd.
      expect(Math.max(...ages) - Math.min(...ages)).toBeGreaterThan(200);
    });

    it("keeps serving the value when its reload fails, and the first caller after its ttl loads and sees the failure", async () => {
      const read = new SharedRead<Dated>({ name: "test_failed", ttlMs: TTL_MS, refreshAhead: true });
      let failing = false;
      let failures = 0;
      const load = async () => {
        if (failing) {
          failures += 1;
          throw new Error("the read model is down");
        }
        return { n: 1, loadedAt: Date.now() };
      };
      await read.get("k", load);
      failing = true;
      const served = await poll(read, ["k"], load, TTL_MS * 0.95);

      expect(failures).toBe(1);
      expect(served.every((answer) => answer.n === 1)).toBe(true);
      await sleep(TTL_MS * 0.1);
      await expect(read.get("k", load)).rejects.toThrow("the read model is down");
      expect(failures).toBe(2);
    });
  });
});
