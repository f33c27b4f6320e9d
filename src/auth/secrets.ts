// Client secrets are stored only as scrypt hashes (Node's built-in, memory-hard KDF),
// in a self-describing string so the cost can be raised later without breaking old
// hashes: `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>`.

import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

const LOG2_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(secret, salt, { N: 2 ** LOG2_N, r: R, p: P });
  return ["scrypt", LOG2_N, R, P, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

/** Constant-time comparison; a malformed stored hash never verifies. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, log2N, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !log2N || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await derive(
    secret,
    Buffer.from(salt, "base64url"),
    { N: 2 ** Number(log2N), r: Number(r), p: Number(p) },
    expected.length,
  );
  return timingSafeEqual(actual, expected);
}

function derive(secret: string, salt: Buffer, cost: ScryptOptions, length = KEY_LENGTH): Promise<Buffer> {
  const maxmem = 256 * (cost.N ?? 0) * (cost.r ?? 0) + 1024 * 1024;
  return new Promise((resolve, reject) =>
    scrypt(secret.normalize("NFC"), salt, length, { ...cost, maxmem }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}
