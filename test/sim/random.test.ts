import { describe, expect, it } from "vitest";
import { rngFor, uuidFrom } from "../../src/sim/random.js";

const draw = (seed: string | number, ...labels: (string | number)[]) => {
  const rng = rngFor(seed, ...labels);
  return Array.from({ length: 8 }, () => rng.nextUint32());
};

describe("rngFor", () => {
  it("repeats a stream for the same seed and labels", () => {
    expect(draw("regatta", "boat", 3)).toEqual(draw("regatta", "boat", 3));
  });

  it("gives different streams for other seeds or labels", () => {
    expect(draw("regatta", "boat", 3)).not.toEqual(draw("regatta", "boat", 4));
    expect(draw("regatta", "boat", 3)).not.toEqual(draw("regata", "boat", 3));
    expect(draw(1)).not.toEqual(draw(2));
  });

  it("keeps int() within its inclusive bounds and reaches both ends", () => {
    const rng = rngFor("bounds");
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(rng.int(3, 7));
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7]);
  });

  it("draws normals with mean ~0 and deviation ~1", () => {
    const rng = rngFor("normal");
    const xs = Array.from({ length: 20_000 }, () => rng.normal());
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(sd - 1)).toBeLessThan(0.03);
  });
});

describe("uuidFrom", () => {
  it("makes lowercase v4-looking UUIDs, repeatably", () => {
    const a = rngFor("ids");
    const b = rngFor("ids");
    const ids = Array.from({ length: 200 }, () => uuidFrom(a));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(uuidFrom(b)).toBe(ids[0]);
  });
});
