// POST /api/v1/oauth/token: the client-credentials grant exactly as specified. No
// rule here needs a socket: the endpoint is called through Fastify's inject.

import { decodeJwt, decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { TOKEN_LIFETIME_SECONDS } from "../../src/auth/tokens.js";
import { ALL_SCOPES, identityScenario, secretOf } from "../support/api.js";
import { useInProcessApi } from "../support/in-process.js";
import { TEST_BASE_URL } from "../support/runtime.js";

const api = useInProcessApi({
  scenario: () => {
    const scenario = identityScenario();
    // A client id and secret with characters Basic must form-url-encode.
    scenario.clients.push({
      clientId: "club:overlay+1",
      clientSecret: "p@ss word:+/=",
      clubId: scenario.clubs[0]!.id,
      scopes: ["events:read"],
    });
    return scenario;
  },
  // Requests come from distinct addresses (via the trusted loopback proxy), so only
  // the tests about the per-IP limit share one.
  config: { trustProxy: ["loopback"] },
});

/** The grant by form fields for `clientId`, from a fresh address. */
function requestToken(clientId: string): Promise<Response> {
  const form = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: secretOf(clientId) });
  return api.fetch("/api/v1/oauth/token", {
    method: "POST",
    headers: { ...FORM, "x-forwarded-for": freshAddress() },
    body: form.toString(),
  });
}

const FORM = { "content-type": "application/x-www-form-urlencoded" };

function basic(id: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString("base64")}`;
}

let nextAddress = 1;
const freshAddress = () => `192.0.2.${nextAddress++}`;

async function post(
  body: string,
  headers: Record<string, string> = FORM,
  address = freshAddress(),
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await api.fetch("/api/v1/oauth/token", { method: "POST", headers: { ...headers, "x-forwarded-for": address }, body });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe("a valid token request", () => {
  it("issues an RFC 9068 access token by form fields", async () => {
    const response = await requestToken("overlay");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("pragma")).toBe("no-cache");
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: "Bearer",
      expires_in: TOKEN_LIFETIME_SECONDS,
      scope: ALL_SCOPES.join(" "),
    });

    const token = body.access_token as string;
    const header = decodeProtectedHeader(token);
    expect(header).toEqual({ alg: "ES256", typ: "at+jwt", kid: expect.stringMatching(/^[\w-]{22}$/) });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: TEST_BASE_URL,
      aud: `${TEST_BASE_URL}/api/v1`,
      sub: "overlay",
      client_id: "overlay",
      scope: ALL_SCOPES.join(" "),
      sv: 1,
    });
    expect(claims.exp! - claims.iat!).toBe(TOKEN_LIFETIME_SECONDS);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(30);
  });

  it("accepts HTTP Basic, form-url-decoding id and secret after base64 (RFC 6749 2.3.1)", async () => {
    const { status, body } = await post("grant_type=client_credentials", {
      ...FORM,
      authorization: basic("club:overlay+1", "p@ss word:+/="),
    });
    expect(status).toBe(200);
    expect(decodeJwt(body.access_token as string).client_id).toBe("club:overlay+1");
  });

  it("grants a requested subset of the client's scopes", async () => {
    const { status, body } = await post(
      `grant_type=client_credentials&client_id=overlay&client_secret=${secretOf("overlay")}&scope=events:read`,
    );
    expect(status).toBe(200);
    expect(body.scope).toBe("events:read");
    expect(decodeJwt(body.access_token as string).scope).toBe("events:read");
  });

  it("issues a new jti each time", async () => {
    const tokens = await Promise.all(
      [1, 2].map(
        async () =>
          (
            (await (await requestToken("overlay")).json()) as {
              access_token: string;
            }
          ).access_token,
      ),
    );
    expect(decodeJwt(tokens[0]!).jti).not.toBe(decodeJwt(tokens[1]!).jti);
  });
});

describe("a refused token request", () => {
  const credentials = `client_id=overlay&client_secret=${secretOf("overlay")}`;
  const cases: Array<[string, string, Record<string, string>, number, string, string]> = [
    [
      "credentials in both header and body",
      `grant_type=client_credentials&${credentials}`,
      { ...FORM, authorization: basic("overlay", secretOf("overlay")) },
      400,
      "invalid_request",
      "API_TOKEN_REQUEST_INVALID",
    ],
    [
      "a JSON body",
      JSON.stringify({ grant_type: "client_credentials" }),
      { "content-type": "application/json" },
      400,
      "invalid_request",
      "API_TOKEN_REQUEST_INVALID",
    ],
    ["no content type", `grant_type=client_credentials&${credentials}`, {}, 400, "invalid_request", "API_TOKEN_REQUEST_INVALID"],
    [
      "a repeated parameter",
      `grant_type=client_credentials&grant_type=client_credentials&${credentials}`,
      FORM,
      400,
      "invalid_request",
      "API_TOKEN_REQUEST_INVALID",
    ],
    [
      "a malformed Basic header",
      "grant_type=client_credentials",
      { ...FORM, authorization: "Basic not-base64!" },
      400,
      "invalid_request",
      "API_TOKEN_REQUEST_INVALID",
    ],
    ["no grant_type", credentials, FORM, 400, "unsupported_grant_type", "API_GRANT_TYPE_UNSUPPORTED"],
    ["another grant", `grant_type=password&${credentials}`, FORM, 400, "unsupported_grant_type", "API_GRANT_TYPE_UNSUPPORTED"],
    ["no credentials", "grant_type=client_credentials", FORM, 401, "invalid_client", "API_CLIENT_CREDENTIALS_INVALID"],
    [
      "a disabled client",
      `grant_type=client_credentials&client_id=disabled&client_secret=${secretOf("disabled")}`,
      FORM,
      400,
      "unauthorized_client",
      "API_CLIENT_DISABLED",
    ],
    [
      "an expired client",
      `grant_type=client_credentials&client_id=expired&client_secret=${secretOf("expired")}`,
      FORM,
      400,
      "unauthorized_client",
      "API_CLIENT_EXPIRED",
    ],
    [
      "a caller outside the allowlist",
      `grant_type=client_credentials&client_id=allowlisted&client_secret=${secretOf("allowlisted")}`,
      FORM,
      400,
      "unauthorized_client",
      "API_IP_NOT_ALLOWED",
    ],
  ];

  it.each(cases)("for %s", async (_what, body, headers, status, error, code) => {
    const answer = await post(body, headers);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ error, code });
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  it("answers an unknown client and a wrong secret identically", async () => {
    const unknown = await post("grant_type=client_credentials&client_id=nobody&client_secret=whatever");
    const wrong = await post("grant_type=client_credentials&client_id=overlay&client_secret=wrong-secret");
    for (const answer of [unknown, wrong]) {
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ error: "invalid_client", code: "API_CLIENT_CREDENTIALS_INVALID" });
      expect(answer.headers.get("www-authenticate")).toBeNull();
    }
    const viaBasic = await post("grant_type=client_credentials", { ...FORM, authorization: basic("nobody", "whatever") });
    expect(viaBasic.status).toBe(401);
    expect(viaBasic.headers.get("www-authenticate")).toBe('Basic realm="race-api"');
  });

  it("refuses a scope that does not exist or that the client does not hold, naming it", async () => {
    const unknown = await post(`grant_type=client_credentials&${credentials}&scope=events:read%20admin:all`);
    expect(unknown).toMatchObject({
      status: 400,
      body: { error: "invalid_scope", code: "API_SCOPE_INVALID", params: { scope: "admin:all" } },
    });
    const notHeld = await post(
      `grant_type=client_credentials&client_id=trackingOnly&client_secret=${secretOf("trackingOnly")}&scope=events:read`,
    );
    expect(notHeld).toMatchObject({
      status: 400,
      body: { error: "invalid_scope", code: "API_SCOPE_INVALID", params: { scope: "events:read" } },
    });
  });
});

describe("the token endpoint's rate limits", () => {
  it("allows 20 requests a minute per caller IP, whatever the client", async () => {
    const address = freshAddress();
    for (let i = 0; i < 20; i++)
      expect((await post(`grant_type=client_credentials&client_id=nobody-${i}&client_secret=x`, FORM, address)).status).toBe(401);
    const refused = await post("grant_type=client_credentials&client_id=someone-else&client_secret=x", FORM, address);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: "slow_down", code: "RATE_LIMIT_EXCEEDED" });
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(refused.headers.get("ratelimit")).toMatch(/^"token-ip";r=0;t=\d+$/);
  });

  it("allows 20 requests a minute per client_id, whatever the address", async () => {
    const request = () => post("grant_type=client_credentials&client_id=coHost&client_secret=wrong", FORM, freshAddress());
    for (let i = 0; i < 20; i++) expect((await request()).status).toBe(401);
    const refused = await request();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: "slow_down", code: "RATE_LIMIT_EXCEEDED" });
    expect(refused.headers.get("ratelimit")).toMatch(/^"token-client";r=0;t=\d+$/);
  });
});
