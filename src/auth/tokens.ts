// Access tokens: JWTs in the RFC 9068 profile (`typ: at+jwt`), signed with the key
// ring's current key, carrying the client's secret version so a rotation kills the
// tokens issued before it. Verification pins the algorithm, issuer, audience, type
// and every claim we rely on, and remembers a verified token until it expires so
// its signature is checked once.

import { randomUUID } from "node:crypto";
import { jwtVerify, SignJWT, type JWTPayload } from "jose";
import { LRUCache } from "lru-cache";
import { ApiError } from "../errors/api-error.js";
import { isDatabaseUnavailable } from "../store/unavailable.js";
import { SIGNING_ALGORITHM, type KeyRing } from "./key-ring.js";

export const TOKEN_LIFETIME_SECONDS = 3600;
const TOKEN_TYPE = "at+jwt";
const REQUIRED_CLAIMS = ["iss", "aud", "sub", "client_id", "iat", "exp", "jti", "scope", "sv"];
const CACHED_TOKENS = 50_000;

export interface TokenClaims {
  /** The signing key's id. */
  kid: string;
  clientId: string;
  scopes: string[];
  /** The client's secret version when the token was issued. */
  secretVersion: number;
  /** Epoch seconds. */
  expiresAt: number;
}

export interface TokenIssuer {
  issuer: string;
  audience: string;
}

export class Tokens {
  private readonly verified = new LRUCache<string, TokenClaims>({ max: CACHED_TOKENS });

  constructor(
    private readonly keys: KeyRing,
    private readonly names: TokenIssuer,
  ) {}

  async issue(clientId: string, scopes: readonly string[], secretVersion: number): Promise<{ token: string; expiresIn: number }> {
    const key = await this.keys.signingKey();
    const token = await new SignJWT({ client_id: clientId, scope: scopes.join(" "), sv: secretVersion })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: TOKEN_TYPE, kid: key.kid })
      .setIssuer(this.names.issuer)
      .setAudience(this.names.audience)
      .setSubject(clientId)
      .setIssuedAt()
      .setExpirationTime(`${TOKEN_LIFETIME_SECONDS}s`)
      .setJti(randomUUID())
      .sign(key.privateKey);
    return { token, expiresIn: TOKEN_LIFETIME_SECONDS };
  }

  /** The token's claims, or API_TOKEN_INVALID for anything we did not issue or that has expired. */
  async verify(token: string): Promise<TokenClaims> {
    const cached = this.verified.get(token);
    if (cached && cached.expiresAt * 1000 > Date.now()) {
      // The signature was checked once; only a retired key must still be noticed.
      if (await this.keys.verificationKey(cached.kid)) return cached;
    }
    const claims = await this.verifySignature(token);
    this.verified.set(token, claims, { ttl: Math.max(1, claims.expiresAt * 1000 - Date.now()) });
    return claims;
  }

  private async verifySignature(token: string): Promise<TokenClaims> {
    try {
      const { payload, protectedHeader } = await jwtVerify(
        token,
        async (header) => {
          const key = header.kid ? await this.keys.verificationKey(header.kid) : null;
          if (!key) throw new Error("unknown or retired signing key");
          return key;
        },
        {
          algorithms: [SIGNING_ALGORITHM],
          issuer: this.names.issuer,
          audience: this.names.audience,
          typ: TOKEN_TYPE,
          requiredClaims: REQUIRED_CLAIMS,
        },
      );
      return claimsOf(payload, protectedHeader.kid ?? "");
    } catch (error) {
      // Keys that could not be read say nothing about the token: 503, not 401 (errors/classify.ts).
      if (isDatabaseUnavailable(error)) throw error;
      // Why it failed (expired, foreign, tampered, retired key) is not the client's business.
      throw new ApiError("API_TOKEN_INVALID");
    }
  }
}

function claimsOf(payload: JWTPayload, kid: string): TokenClaims {
  const { client_id: clientId, scope, sv } = payload;
  if (typeof clientId !== "string" || typeof scope !== "string" || typeof sv !== "number" || payload.sub !== clientId) {
    throw new Error("claims of the wrong type");
  }
  return { kid, clientId, scopes: scope.split(" ").filter(Boolean), secretVersion: sv, expiresAt: payload.exp! };
}
