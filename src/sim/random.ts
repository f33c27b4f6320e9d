// Seeded randomness for the simulator: an sfc32 generator, named sub-streams and
// UUIDs drawn from it, so that one seed always yields the same race.

export type Seed = number | string;

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128-bit state, passes
 * PractRand, and needs only 32-bit integer ops, which V8 runs without allocating.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal: number | null = null;

  constructor(a: number, b: number, c: number, d: number) {
    this.a = a | 0;
    this.b = b | 0;
    this.c = c | 0;
    this.d = d | 0;
    // The first outputs of a freshly seeded sfc32 are poorly mixed; burn them.
    for (let i = 0; i < 15; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Uniform integer in [min, max], both ends included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** +1 or -1 with equal odds. */
  sign(): 1 | -1 {
    return this.next() < 0.5 ? 1 : -1;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Standard normal (Box-Muller); the second value of each pair is kept for the next call. */
  normal(): number {
    if (this.spareNormal !== null) {
      const spare = this.spareNormal;
      this.spareNormal = null;
      return spare;
    }
    let u = this.next();
    while (u === 0) u = this.next();
    const radius = Math.sqrt(-2 * Math.log(u));
    const angle = 2 * Math.PI * this.next();
    this.spareNormal = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  }

  /** Fisher-Yates shuffle of a copy. */
  shuffled<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const tmp = out[i] as T;
      out[i] = out[j] as T;
      out[j] = tmp;
    }
    return out;
  }
}

/**
 * A generator for one named purpose of one seed (`rngFor(seed, "boat", 3)`). Separate
 * streams keep parts independent: adding a wind reading does not move every boat.
 */
export function rngFor(seed: Seed, ...labels: (string | number)[]): Rng {
  const [a, b, c, d] = cyrb128([String(seed), ...labels.map(String)].join("\u0000"));
  return new Rng(a, b, c, d);
}

/** A lowercase UUID that looks like v4 (version nibble 4, variant 10xx), drawn from `rng`. */
export function uuidFrom(rng: Rng): string {
  const w0 = rng.nextUint32();
  const w1 = (rng.nextUint32() & 0xffff0fff) | 0x00004000;
  const w2 = (rng.nextUint32() & 0x3fffffff) | 0x80000000;
  const w3 = rng.nextUint32();
  const h0 = hex8(w0);
  const h1 = hex8(w1 >>> 0);
  const h2 = hex8(w2 >>> 0);
  const h3 = hex8(w3);
  return `${h0}-${h1.slice(0, 4)}-${h1.slice(4)}-${h2.slice(0, 4)}-${h2.slice(4)}${h3}`;
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, "0");
}

/** cyrb128 string hash: four well-mixed 32-bit words to seed sfc32 from any text. */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}
