// The guard in front of every data call, on every surface: REST, Connect (HTTP/1.1)
// and a sample over real gRPC. Proven on ListEvents (scope events:read).

import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { ListEventsRequestSchema, ListEventsResponseSchema } from "../../gen/racing/v1/event_pb.js";
import { rotateSecret, setScopes } from "../../src/auth/clients.js";
import { KeyRing } from "../../src/auth/key-ring.js";
import { setDisabled, setExpiry } from "../../src/store/clients.js";
import { useFreshDatabase } from "../support/database.js";
import { grpcClient, unary } from "../support/grpc.js";
import {
  ALL_SCOPES,
  bearer,
  CLUB,
  connectCall,
  connectError,
  identityScenario,
  seedIdentities,
  startApi,
  tokenFor,
  type Api,
} from "../support/api.js";
import { within } from "../support/load.js";
import { TEST_BASE_URL, TEST_REFRESH_MS } from "../support/runtime.js";

const db = useFreshDatabase();
let api: Api;
let behindProxy: Api;
const LIST_EVENTS = "racing.v1.EventService/ListEvents";
const CHANGING = ["willBeDisabled", "willExpire", "willRotate", "willLoseScope"] as const;

beforeAll(async () => {
  const scenario = identityScenario();
  for (const clientId of CHANGING)
    scenario.clients.push({ clientId, clientSecret: `${clientId}-secret`, clubId: CLUB, scopes: ALL_SCOPES });
  await seedIdentities(db, scenario);
  api = await startApi(db);
  behindProxy = await startApi(db, { trustProxy: ["loopback"] });
});
afterAll(async () => {
  await api?.close();
  await behindProxy?.close();
});

interface Refusal {
  status: number;
  code: string;
  params?: Record<string, string>;
  challenge: string | null;
}

/** The same call over REST and over Connect, both refused the same way. */
async function expectRefused(headers: Record<string, string>, refusal: Refusal, target: Api = api): Promise<void> {
  const rest = await fetch(`${target.url}/api/v1/events`, { headers });
  expect(rest.status).toBe(refusal.status);
  expect(rest.headers.get("content-type")).toBe("application/problem+json");
  expect(rest.headers.get("www-authenticate")).toBe(refusal.challenge);
  const problem = (await rest.json()) as Record<string, unknown>;
  expect(problem).toEqual({
    type: `${TEST_BASE_URL}/docs/errors#${refusal.code}`,
    status: refusal.status,
    code: refusal.code,
    ...(refusal.params ? { params: refusal.params } : {}),
    traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
  });
  expect(rest.headers.get("x-trace-id")).toBe(problem.traceId);

  const rpc = await connectCall(target.url, LIST_EVENTS, {}, headers);
  expect(rpc.headers.get("www-authenticate")).toBe(refusal.challenge);
  const error = await connectError(rpc);
  expect(error.reason).toBe(refusal.code);
  expect(error.metadata).toEqual(refusal.params ?? {});
  expect(error.code).toBe({ 401: "unauthenticated", 403: "permission_denied" }[refusal.status]);
}

const INVALID = { status: 401, code: "API_TOKEN_INVALID", challenge: 'Bearer realm="race-api", error="invalid_token"' };

async function tokenSignedWith(
  key: Parameters<SignJWT["sign"]>[0],
  kid: string,
  changes: { audience?: string; expiresAt?: number } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: "overlay", scope: ALL_SCOPES.join(" "), sv: 1 })
    .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid })
    .setIssuer(TEST_BASE_URL)
    .setAudience(changes.audience ?? `${TEST_BASE_URL}/api/v1`)
    .setSubject("overlay")
    .setIssuedAt(now - 7200)
    .setExpirationTime(changes.expiresAt ?? now + 3600)
    .setJti(crypto.randomUUID())
    .sign(key);
}

describe("a data call", () => {
  it("succeeds with a valid token, carrying its trace id", async () => {
    const response = await fetch(`${api.url}/api/v1/events`, { headers: bearer(await tokenFor(api.url, "overlay")) });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-trace-id")).toMatch(/^[0-9a-f]{32}$/);
  });

  it("without an Authorization header is API_TOKEN_MISSING", async () => {
    await expectRefused({}, { status: 401, code: "API_TOKEN_MISSING", challenge: 'Bearer realm="race-api"' });
  });

  it("with another scheme than Bearer is API_TOKEN_MISSING", async () => {
    await expectRefused(
      { authorization: "Basic b3ZlcmxheTpzZWNyZXQ=" },
      { status: 401, code: "API_TOKEN_MISSING", challenge: 'Bearer realm="race-api"' },
    );
  });

  it("with a token that is not a JWT is API_TOKEN_INVALID", async () => {
    await expectRefused(bearer("not-a-token"), INVALID);
  });

  it("with a token signed by someone else (another identity system) is API_TOKEN_INVALID", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    const keyRing = new KeyRing(db.pool, TEST_REFRESH_MS);
    const ourKid = (await keyRing.signingKey()).kid;
    await expectRefused(bearer(await tokenSignedWith(privateKey, ourKid)), INVALID);
  });

  it("with our key but an expired or foreign-audience token is API_TOKEN_INVALID", async () => {
    const key = await new KeyRing(db.pool, TEST_REFRESH_MS).signingKey();
    await expectRefused(bearer(await tokenSignedWith(key.privateKey, key.kid, { expiresAt: Math.floor(Date.now() / 1000) - 10 })), INVALID);
    await expectRefused(bearer(await tokenSignedWith(key.privateKey, key.kid, { audience: "https://elsewhere.example/api" })), INVALID);
    // The same claims with a valid lifetime and audience are accepted: the refusals above are about those claims.
    const good = await fetch(`${api.url}/api/v1/events`, { headers: bearer(await tokenSignedWith(key.privateKey, key.kid)) });
    expect(good.status).toBe(200);
  });

  it("with an unsigned token (alg none) is API_TOKEN_INVALID", async () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${part({ alg: "none", typ: "at+jwt" })}.${part({ iss: TEST_BASE_URL, aud: `${TEST_BASE_URL}/api/v1`, sub: "overlay", client_id: "overlay", scope: "events:read", sv: 1, iat: now, exp: now + 600, jti: "x" })}.`;
    await expectRefused(bearer(unsigned), INVALID);
  });

  it("lacking the call's scope is API_SCOPE_MISSING naming it", async () => {
    await expectRefused(bearer(await tokenFor(api.url, "trackingOnly")), {
      status: 403,
      code: "API_SCOPE_MISSING",
      params: { scope: "events:read" },
      challenge: 'Bearer realm="race-api", error="insufficient_scope", scope="events:read"',
    });
    await expectRefused(bearer(await tokenFor(api.url, "overlay", "tracking:read")), {
      status: 403,
      code: "API_SCOPE_MISSING",
      params: { scope: "events:read" },
      challenge: 'Bearer realm="race-api", error="insufficient_scope", scope="events:read"',
    });
  });
});

describe("client changes bite within 5 s for tokens already issued", () => {
  it("a disabled client is API_CLIENT_DISABLED", async () => {
    const token = await tokenFor(api.url, "willBeDisabled");
    expect((await fetch(`${api.url}/api/v1/events`, { headers: bearer(token) })).status).toBe(200);
    await setDisabled(db.pool, "willBeDisabled", true);
    await within(5500, () =>
      expectRefused(bearer(token), {
        status: 401,
        code: "API_CLIENT_DISABLED",
        challenge: 'Bearer realm="race-api", error="invalid_token"',
      }),
    );
  });

  it("a client past its expiry is API_CLIENT_EXPIRED", async () => {
    const token = await tokenFor(api.url, "willExpire");
    await setExpiry(db.pool, "willExpire", new Date(Date.now() - 1000));
    await within(5500, () =>
      expectRefused(bearer(token), {
        status: 401,
        code: "API_CLIENT_EXPIRED",
        challenge: 'Bearer realm="race-api", error="invalid_token"',
      }),
    );
  });

  it("a rotated secret kills the tokens issued before it", async () => {
    const token = await tokenFor(api.url, "willRotate");
    await rotateSecret(db.pool, "willRotate");
    await within(5500, () => expectRefused(bearer(token), INVALID));
  });

  it("a scope taken away is API_SCOPE_MISSING", async () => {
    const token = await tokenFor(api.url, "willLoseScope");
    await setScopes(db.pool, "willLoseScope", ["tracking:read"]);
    await within(5500, () =>
      expectRefused(bearer(token), {
        status: 403,
        code: "API_SCOPE_MISSING",
        params: { scope: "events:read" },
        challenge: 'Bearer realm="race-api", error="insufficient_scope", scope="events:read"',
      }),
    );
  });
});

describe("the IP allowlist", () => {
  let token: string;
  beforeAll(async () => {
    const response = await fetch(`${behindProxy.url}/api/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": "10.1.2.3" },
      body: "grant_type=client_credentials&client_id=allowlisted&client_secret=allowlisted-secret",
    });
    expect(response.status).toBe(200);
    token = ((await response.json()) as { access_token: string }).access_token;
  });
  const call = (target: Api, forwardedFor: string) =>
    fetch(`${target.url}/api/v1/events`, { headers: { ...bearer(token), "x-forwarded-for": forwardedFor } });
  const NOT_ALLOWED = { status: 403, code: "API_IP_NOT_ALLOWED", challenge: null };

  it("admits callers inside it, IPv4 and IPv6, reached through a trusted proxy", async () => {
    expect((await call(behindProxy, "10.1.2.3")).status).toBe(200);
    expect((await call(behindProxy, "2001:db8::5")).status).toBe(200);
    // The entry the trusted proxy added is the one that counts, not what the client claimed before it.
    expect((await call(behindProxy, "10.1.2.3, 10.1.9.9")).status).toBe(200);
  });

  it("refuses callers outside it with API_IP_NOT_ALLOWED", async () => {
    await expectRefused({ ...bearer(token), "x-forwarded-for": "192.0.2.7" }, NOT_ALLOWED, behindProxy);
    await expectRefused({ ...bearer(token), "x-forwarded-for": "10.1.2.3, 192.0.2.7" }, NOT_ALLOWED, behindProxy);
  });

  it("ignores X-Forwarded-For when the proxy is not trusted", async () => {
    await expectRefused({ ...bearer(token), "x-forwarded-for": "10.1.2.3" }, NOT_ALLOWED, api);
  });
});

describe("over real gRPC (@grpc/grpc-js)", () => {
  let client: grpc.Client;
  beforeAll(() => {
    client = grpcClient(api.grpcUrl);
  });
  afterAll(() => client.close());

  const listEvents = (metadata: grpc.Metadata) =>
    unary(client, `/${LIST_EVENTS}`, ListEventsRequestSchema, ListEventsResponseSchema, {}, metadata);

  async function refusal(
    metadata: grpc.Metadata,
  ): Promise<{ code: grpc.status; reason: string | undefined; params: Record<string, string> }> {
    const error = await listEvents(metadata).then(
      () => Promise.reject(new Error("call succeeded")),
      (e: grpc.ServiceError) => e,
    );
    const [details] = error.metadata.get("grpc-status-details-bin") as Buffer[];
    const status = fromBinary(StatusSchema, details!);
    const info = status.details.map((any) => anyUnpack(any, ErrorInfoSchema)).find((x) => x !== undefined);
    return { code: error.code, reason: info?.reason, params: { ...info?.metadata } };
  }

  it("answers a missing token with UNAUTHENTICATED and ErrorInfo API_TOKEN_MISSING", async () => {
    expect(await refusal(new grpc.Metadata())).toEqual({ code: grpc.status.UNAUTHENTICATED, reason: "API_TOKEN_MISSING", params: {} });
  });

  it("answers a missing scope with PERMISSION_DENIED and ErrorInfo API_SCOPE_MISSING", async () => {
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${await tokenFor(api.url, "trackingOnly")}`);
    expect(await refusal(metadata)).toEqual({
      code: grpc.status.PERMISSION_DENIED,
      reason: "API_SCOPE_MISSING",
      params: { scope: "events:read" },
    });
  });

  it("serves the call with a valid token", async () => {
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${await tokenFor(api.url, "overlay")}`);
    const response = await listEvents(metadata);
    expect(response).toMatchObject({ totalItems: 0, items: [] });
  });
});
