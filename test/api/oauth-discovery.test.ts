// OAuth discovery: the RFC 8414 metadata and the JWK Set, used by an independent
// OAuth library (oauth4webapi) that configures itself from the metadata, gets tokens
// both ways the metadata names, and verifies them against the JWK Set as a resource
// server would.

import { decodeProtectedHeader, generateKeyPair, SignJWT } from "jose";
import type { RowDataPacket } from "mysql2/promise";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../src/auth/key-ring.js";
import { SCOPES } from "../../src/auth/scopes.js";
import { createPool } from "../../src/store/pool.js";
import { retireKey } from "../../src/store/signing-keys.js";
import type { Runtime } from "../../src/composition/runtime.js";
import { startServer, type RunningServer } from "../../src/composition/server.js";
import { useFreshDatabase } from "../support/database.js";
import { bearer, secretOf, seedIdentities, startApi } from "../support/api.js";
import { within } from "../support/load.js";
import { freePort } from "../support/ports.js";
import { testRuntime } from "../support/runtime.js";

const db = useFreshDatabase();
let issuer: string;
let runtime: Runtime;
let server: RunningServer;
beforeAll(async () => {
  await seedIdentities(db);
  // The issuer is the address the library reaches, as in production (PUBLIC_BASE_URL).
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  runtime = await testRuntime(db, { publicBaseUrl: issuer });
  server = await startServer({ host: "127.0.0.1", port, grpcPort: 0 }, runtime);
});
afterAll(async () => {
  await server?.close();
  await runtime?.close();
});

// The test talks plain http to 127.0.0.1; production metadata is https.
const INSECURE = { [oauth.allowInsecureRequests]: true };
const audience = () => `${issuer}/api/v1`;

async function discover(): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  return oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { algorithm: "oauth2", ...INSECURE }));
}

async function clientCredentials(
  as: oauth.AuthorizationServer,
  clientId: string,
  auth: oauth.ClientAuth,
  scope: string,
): Promise<oauth.TokenEndpointResponse> {
  const client: oauth.Client = { client_id: clientId };
  const response = await oauth.clientCredentialsGrantRequest(as, client, auth, { scope }, INSECURE);
  return oauth.processClientCredentialsResponse(as, client, response);
}

function verify(as: oauth.AuthorizationServer, token: string): Promise<oauth.JWTAccessTokenClaims> {
  const request = new Request(`${issuer}/api/v1/scopes`, { headers: bearer(token) });
  return oauth.validateJwtAccessToken(as, request, audience(), INSECURE);
}

describe("GET /.well-known/oauth-authorization-server", () => {
  it("is RFC 8414 metadata of the token endpoint, its grant, its client authentication and the scope table", async () => {
    const response = await fetch(`${issuer}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(await response.json()).toEqual({
      issuer,
      token_endpoint: `${issuer}/api/v1/oauth/token`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      grant_types_supported: ["client_credentials"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      scopes_supported: Object.keys(SCOPES),
      response_types_supported: [],
      service_documentation: `${issuer}/docs`,
    });
  });

  it("lists every scope of the one scope table", async () => {
    const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as { scopes_supported: string[] };
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(["tracking:read", "events:read", "results:read"]));
    expect(metadata.scopes_supported).toHaveLength(Object.keys(SCOPES).length);
  });

  it("answers HEAD with the headers and no body", async () => {
    const response = await fetch(`${issuer}/.well-known/oauth-authorization-server`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe("");
  });

  it("answers other methods and unknown well-known paths with 404 problem+json", async () => {
    for (const [method, path] of [
      ["POST", "/.well-known/oauth-authorization-server"],
      ["DELETE", "/.well-known/jwks.json"],
      ["GET", "/.well-known/openid-configuration"],
      ["GET", "/.well-known/oauth-authorization-server/extra"],
    ] as const) {
      const response = await fetch(`${issuer}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(await response.json()).toMatchObject({ code: "API_ROUTE_NOT_FOUND", status: 404 });
    }
  });
});

describe("an OAuth library configured from the metadata", () => {
  it("discovers the server, and the issuer it checks is the one the tokens carry", async () => {
    const as = await discover();
    expect(as.issuer).toBe(issuer);
    expect(as.token_endpoint).toBe(`${issuer}/api/v1/oauth/token`);
  });

  it("gets a token with client_secret_basic and calls the API with it", async () => {
    const as = await discover();
    const tokens = await clientCredentials(as, "overlay", oauth.ClientSecretBasic(secretOf("overlay")), "tracking:read events:read");
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "tracking:read events:read" });
    const events = await fetch(`${issuer}/api/v1/events`, { headers: bearer(tokens.access_token) });
    expect(events.status).toBe(200);
  });

  it("gets a token with client_secret_post", async () => {
    const tokens = await clientCredentials(
      await discover(),
      "trackingOnly",
      oauth.ClientSecretPost(secretOf("trackingOnly")),
      "tracking:read",
    );
    expect(tokens.scope).toBe("tracking:read");
  });

  it("is refused a token for a wrong secret, as RFC 6749 says", async () => {
    const as = await discover();
    const failed = await clientCredentials(as, "overlay", oauth.ClientSecretBasic("not-the-secret"), "tracking:read").catch(
      (error: unknown) => error,
    );
    // A 401 with a Basic challenge, which the library reports as such.
    expect(failed).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const challenge = failed as oauth.WWWAuthenticateChallengeError;
    expect(challenge.status).toBe(401);
    expect(challenge.cause.map((c) => c.scheme)).toEqual(["basic"]);
    expect(await challenge.response.json()).toMatchObject({ error: "invalid_client", code: "API_CLIENT_CREDENTIALS_INVALID" });
  });

  it("verifies an access token against the JWK Set (RFC 9068), as a resource server would", async () => {
    const as = await discover();
    const { access_token: token } = await clientCredentials(as, "overlay", oauth.ClientSecretBasic(secretOf("overlay")), "tracking:read");
    const claims = await verify(as, token);
    expect(claims).toMatchObject({ iss: issuer, aud: audience(), sub: "overlay", client_id: "overlay", scope: "tracking:read" });
  });

  it("refuses a token whose payload was changed, and one signed by a key not in the set", async () => {
    const as = await discover();
    const { access_token: token } = await clientCredentials(as, "overlay", oauth.ClientSecretBasic(secretOf("overlay")), "tracking:read");
    const [header, payload, signature] = token.split(".");
    const widened = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), scope: "tracking:read results:read" }),
    ).toString("base64url");
    await expect(verify(as, `${header}.${widened}.${signature}`)).rejects.toThrow();

    // Same claims and kid, another key: the set decides, not the token.
    const { privateKey } = await generateKeyPair("ES256");
    const forged = await new SignJWT({ client_id: "overlay", scope: "tracking:read", sv: 1 })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: decodeProtectedHeader(token).kid! })
      .setIssuer(issuer)
      .setAudience(audience())
      .setSubject("overlay")
      .setIssuedAt()
      .setExpirationTime("1h")
      .setJti("forged")
      .sign(privateKey);
    await expect(verify(as, forged)).rejects.toThrow();
  });
});

describe("GET /.well-known/jwks.json", () => {
  interface Jwks {
    keys: Array<Record<string, string>>;
  }
  const jwks = async () => (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as Jwks;

  it("publishes the public half of each signing key with its kid, and nothing private", async () => {
    const response = await fetch(`${issuer}/.well-known/jwks.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/jwk-set+json");
    expect(response.headers.get("cache-control")).toBe("public, max-age=60");
    const { keys } = (await response.json()) as Jwks;
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);
      expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    }
  });

  it("follows rotation and retirement within the key ring's refresh interval", async () => {
    const before = (await jwks()).keys.map((key) => key.kid);
    const added = await createKey(db.pool);
    const kids = async () => (await jwks()).keys.map((key) => key.kid);
    await within(5000, async () => expect(await kids()).toEqual([added, ...before]));
    // The same public key the stored JWK holds.
    const [stored] = await db.pool.query<RowDataPacket[]>("SELECT public_jwk FROM signing_keys WHERE kid = ?", [added]);
    const { x, y } = JSON.parse(stored[0]!.public_jwk as string) as { x: string; y: string };
    expect((await jwks()).keys[0]).toMatchObject({ kid: added, x, y });

    await retireKey(db.pool, added);
    await within(5000, async () => expect(await kids()).toEqual(before));
  });

  it("answers 503 API_UNAVAILABLE with Retry-After when the keys cannot be read", async () => {
    const deadPool = createPool(`mysql://race_api@127.0.0.1:${await freePort()}/nothing`);
    const dead = await startApi(db, {}, deadPool);
    try {
      const response = await fetch(`${dead.url}/.well-known/jwks.json`);
      expect(response.status).toBe(503);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.headers.get("retry-after")).toBe("30");
      expect(await response.json()).toMatchObject({ code: "API_UNAVAILABLE", traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    } finally {
      await dead.close();
      await deadPool.end();
    }
  });
});

describe("the public port", () => {
  it("answers unknown paths outside /api/v1 with 404 problem+json", async () => {
    for (const path of ["/metrics", "/nothing", "/.env"]) {
      const response = await fetch(`${issuer}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(await response.json()).toEqual({
        type: `${issuer}/docs/errors#API_ROUTE_NOT_FOUND`,
        status: 404,
        code: "API_ROUTE_NOT_FOUND",
        traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
    }
  });
});
