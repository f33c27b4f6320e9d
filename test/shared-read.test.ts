// A shared read keeps each value for its ttl and no longer; with purgeStale a stale
// value also leaves memory at once (a near-now track page is megabytes).

import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { SharedRead } from "../src/caching/shared-read.js";

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
});
