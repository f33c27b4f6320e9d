// The signing keys as this instance sees them: the newest unretired key signs, every
// unretired key verifies. The set is re-read at most every `refreshMs` (5 s unless
// configured), so a key retired on one instance is refused by all within that time. A
// kid not in the set is looked up again at once: another instance may have just created
// the key and signed with it.

import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from "jose";
import { activeKeys, insertKey } from "../store/signing-keys.js";
import type { Pool } from "../store/pool.js";

export const SIGNING_ALGORITHM = "ES256";
/** An unknown kid reads the set again at most this often, so made-up kids cost at most one small read per interval. */
const UNKNOWN_KID_REREAD_MS = 100;

interface Key {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public key as published in the JWK Set (auth/discovery.ts). */
  publicJwk: JWK;
}

export class KeyRing {
  private keys: Key[] = [];
  private loadedAt = -Infinity;
  /** When the last read of the set began: a key committed before then is in it. */
  private readStartedAt = -Infinity;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly refreshMs: number,
  ) {}

  /** The key to sign with; creates the first key when the database has none. */
  async signingKey(): Promise<Key> {
    await this.fresh();
    if (this.keys.length === 0) {
      await createKey(this.pool);
      await this.reload();
    }
    return this.keys[0]!;
  }

  /** The public half of every unretired key: what others need to verify our tokens. */
  async publicJwks(): Promise<JWK[]> {
    await this.fresh();
    return this.keys.map((key) => key.publicJwk);
  }

  /** The verification key for `kid`, or null when it is unknown or retired. */
  async verificationKey(kid: string): Promise<CryptoKey | null> {
    // Every request with a known token asks: the fresh case awaits nothing.
    if (this.stale()) await this.reload();
    const known = this.publicKey(kid);
    if (known) return known;
    // Unknown: read the set once more, begun after this token arrived (and shared by
    // every token waiting for one), so a key another instance made just now verifies here.
    const askedAt = performance.now();
    while (this.readStartedAt < askedAt) {
      const wait = this.readStartedAt + UNKNOWN_KID_REREAD_MS - performance.now();
      await (wait > 0 ? delay(wait) : this.reload());
    }
    await this.loading;
    return this.publicKey(kid);
  }

  private publicKey(kid: string): CryptoKey | null {
    return this.keys.find((key) => key.kid === kid)?.publicKey ?? null;
  }

  private async fresh(): Promise<void> {
    if (this.stale()) await this.reload();
  }

  private stale(): boolean {
    return performance.now() - this.loadedAt >= this.refreshMs;
  }

  /** One read at a time, however many requests find the set stale together. */
  private reload(): Promise<void> {
    this.loading ??= (async () => {
      try {
        this.readStartedAt = performance.now();
        const stored = await activeKeys(this.pool);
        this.keys = await Promise.all(
          stored.map(async (key) => {
            const publicKey = (await importJWK(JSON.parse(key.publicJwk) as JWK, key.alg)) as CryptoKey;
            return {
              kid: key.kid,
              privateKey: (await importJWK(JSON.parse(key.privateJwk) as JWK, key.alg)) as CryptoKey,
              publicKey,
              // Exported from the imported key, so nothing but the public parameters can leave.
              publicJwk: { ...(await exportJWK(publicKey)), kid: key.kid, alg: key.alg, use: "sig" },
            };
          }),
        );
        this.loadedAt = performance.now();
      } finally {
        this.loading = null;
      }
    })();
    return this.loading;
  }
}

/** Adds a new signing key; it signs from now on, and older keys keep verifying until retired. */
export async function createKey(pool: Pool): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const kid = keyId();
  await insertKey(pool, {
    kid,
    alg: SIGNING_ALGORITHM,
    privateJwk: JSON.stringify(await exportJWK(privateKey)),
    publicJwk: JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALGORITHM }),
  });
  return kid;
}

/**
 * A new key's id: 16 random bytes as base64url, drawn again when it would begin with
 * "-", which a command line takes for an option (`race-api keys retire -x...`).
 */
export function keyId(random: () => Buffer = () => randomBytes(16)): string {
  for (;;) {
    const kid = random().toString("base64url");
    if (!kid.startsWith("-")) return kid;
  }
}
