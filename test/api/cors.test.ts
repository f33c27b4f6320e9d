// CORS for the web origins a club allows: preflights answered, answers granted to the
// token's client's origins (its own and its club's) and to no other, errors readable by
// pages of known origins, the same on every data route, both streams and the token
// endpoint; and CORS never standing in for the token.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importScenario } from "../../src/scenario/import.js";
import { simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { setClientOrigins } from "../../src/auth/clients.js";
import { bearer, CLUB, identityScenario, OTHER_CLUB, requestToken, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { within } from "../support/load.js";
import { MINUTE } from "../support/race-scenarios.js";
import { openSse, type SseStream } from "../support/sse.js";

const CLUB_SITE = "https://www.club.example";
const OVERLAY_PAGE = "http://127.0.0.1:8090";
const OTHER_CLUBS_SITE = "https://other.example";
const STRANGER = "https://stranger.example";
const EXPOSED = ["ETag", "X-Data-As-Of", "RateLimit", "RateLimit-Policy", "Retry-After", "X-Trace-Id"];
const REQUEST_HEADERS = ["Authorization", "If-None-Match", "Last-Event-ID", "traceparent", "Content-Type"];

const db = useFreshDatabase();
let api: Api;
let token: string;
let raceId: string;
let eventId: string;
let groupId: string;
let since: string;
const streams: SseStream[] = [];

beforeAll(async () => {
  const scenario = identityScenario();
  scenario.clubs.find((club) => club.id === CLUB)!.allowedOrigins = [CLUB_SITE];
  scenario.clients.find((client) => client.clientId === "overlay")!.allowedOrigins = [OVERLAY_PAGE];
  scenario.clients.find((client) => client.clientId === "other")!.allowedOrigins = [OTHER_CLUBS_SITE];
  scenario.clients.push({
    clientId: "changing",
    clientSecret: "changing-secret",
    clubId: OTHER_CLUB,
    scopes: ["tracking:read"],
    allowedOrigins: ["https://changing.example"],
  });
  const now = Date.now();
  const race = sliceScenario(
    simulateScenario({ seed: "cors", gunMs: now - 10 * MINUTE, startGroups: 1, boatsPerGroup: 4, laps: 1, legLengthM: 500 }),
    null,
    now,
  );
  scenario.events = race.events.map((event) => ({ ...event, clubId: CLUB }));
  eventId = scenario.events[0]!.id;
  raceId = scenario.events[0]!.races[0]!.id;
  groupId = scenario.events[0]!.races[0]!.startGroups[0]!.id;
  since = new Date(now - 8 * MINUTE).toISOString();
  await importScenario(db.pool, scenario);
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await api?.close();
});

const dataPaths = () => [
  "/events",
  `/events/${eventId}/live`,
  `/events/${eventId}/results`,
  `/races/${raceId}/live`,
  `/races/${raceId}/live/insights?lang=de`,
  `/races/${raceId}/track?startGroupId=${groupId}&since=${since}`,
  `/races/${raceId}/results`,
  "/scopes",
];
const streamPaths = () => [`/races/${raceId}/live/stream`, `/races/${raceId}/live/insights/stream?lang=fr`];

function get(path: string, origin: string | null, headers: Record<string, string> = bearer(token)): Promise<Response> {
  return fetch(`${api.url}/api/v1${path}`, { headers: { ...headers, ...(origin ? { origin } : {}) } });
}

function preflight(path: string, origin: string, method = "GET", requestHeaders = "authorization"): Promise<Response> {
  return fetch(`${api.url}/api/v1${path}`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": requestHeaders },
  });
}

function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith("access-control-")));
}

function expectGranted(response: Response, origin: string): void {
  expect(response.headers.get("access-control-allow-origin")).toBe(origin);
  const exposed = response.headers
    .get("access-control-expose-headers")!
    .split(/,\s*/)
    .map((name) => name.toLowerCase());
  for (const name of EXPOSED) expect(exposed).toContain(name.toLowerCase());
  // Credentials (cookies) are never involved: bearer tokens only.
  expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  expect(varies(response)).toContain("origin");
}

function expectNoGrant(response: Response): void {
  expect(corsHeaders(response)).toEqual({});
  expect(varies(response)).toContain("origin");
}

function varies(response: Response): string[] {
  return (response.headers.get("vary") ?? "").split(/,\s*/).map((name) => name.toLowerCase());
}

async function openStream(path: string, origin: string | null): Promise<SseStream> {
  const stream = await openSse(`${api.url}/api/v1${path}`, { ...bearer(token), ...(origin ? { origin } : {}) });
  streams.push(stream);
  return stream;
}

describe("preflight (OPTIONS)", () => {
  it("grants a known origin on every data route, both streams and the token endpoint, with the headers a page sends", async () => {
    for (const path of [...dataPaths(), ...streamPaths(), "/openapi.json"]) {
      const response = await preflight(path, OVERLAY_PAGE, "GET", "authorization,if-none-match,last-event-id,traceparent");
      expect({ path, status: response.status }).toEqual({ path, status: 204 });
      expect(response.headers.get("access-control-allow-origin")).toBe(OVERLAY_PAGE);
      expect(response.headers.get("access-control-allow-methods")).toBe("GET, HEAD");
      const allowed = response.headers
        .get("access-control-allow-headers")!
        .split(/,\s*/)
        .map((name) => name.toLowerCase());
      for (const name of REQUEST_HEADERS) expect(allowed).toContain(name.toLowerCase());
      expect(Number(response.headers.get("access-control-max-age"))).toBeGreaterThan(0);
      expect(varies(response)).toContain("origin");
      expect(await response.text()).toBe("");
    }
    const token = await preflight("/oauth/token", CLUB_SITE, "POST", "content-type");
    expect(token.status).toBe(204);
    expect(token.headers.get("access-control-allow-origin")).toBe(CLUB_SITE);
    expect(token.headers.get("access-control-allow-methods")).toBe("POST");
  });

  it("grants nothing to an origin no club or client allows", async () => {
    for (const path of [...dataPaths(), ...streamPaths(), "/oauth/token"]) {
      const response = await preflight(path, STRANGER);
      expect({ path, status: response.status }).toEqual({ path, status: 204 });
      expectNoGrant(response);
    }
    // Near misses of an allowed origin are other origins.
    for (const origin of [
      "http://127.0.0.1:8091",
      "https://127.0.0.1:8090",
      "https://www.club.example.evil.example",
      "https://club.example",
      "null",
      `${CLUB_SITE}/`,
    ]) {
      expectNoGrant(await preflight(`/races/${raceId}/live`, origin));
    }
  });

  it("takes odd and hostile preflights calmly: no grant, no error, nothing the page could use", async () => {
    const hostile = [`https://${"a".repeat(8000)}.example`, "https://www.club.example\u0000", "https://WWW.CLUB.EXAMPLE", "*", "null", ""];
    for (const origin of hostile) {
      const response = await fetch(`${api.url}/api/v1/races/${raceId}/live`, {
        method: "OPTIONS",
        headers: { origin: origin.replace("\u0000", "%00"), "access-control-request-method": "GET" },
      });
      expect({ origin: origin.slice(0, 40), status: response.status }).toEqual({ origin: origin.slice(0, 40), status: 204 });
      expect(corsHeaders(response)).toEqual({});
    }
    // A request method the path does not answer still gets the path's own methods, which the browser compares.
    const deleting = await preflight(`/races/${raceId}/live`, CLUB_SITE, "DELETE");
    expect(deleting.headers.get("access-control-allow-methods")).toBe("GET, HEAD");
    // Without an Origin it is no preflight.
    const noOrigin = await fetch(`${api.url}/api/v1/races/${raceId}/live`, {
      method: "OPTIONS",
      headers: { "access-control-request-method": "GET" },
    });
    expect(noOrigin.status).toBe(204);
    expect(corsHeaders(noOrigin)).toEqual({});
  });

  it("answers an OPTIONS that is not a preflight with the path's methods, and an unknown path with 404", async () => {
    const plain = await fetch(`${api.url}/api/v1/races/${raceId}/live`, { method: "OPTIONS" });
    expect(plain.status).toBe(204);
    expect(plain.headers.get("allow")).toBe("GET, HEAD");
    expect(corsHeaders(plain)).toEqual({});
    const unknown = await preflight("/nothing/here", OVERLAY_PAGE);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "API_ROUTE_NOT_FOUND" });
  });
});

describe("answers of data routes", () => {
  it("are granted to the token's client's own origin and to its club's, on every data route", async () => {
    for (const origin of [OVERLAY_PAGE, CLUB_SITE]) {
      for (const path of dataPaths()) {
        const response = await get(path, origin);
        expect({ path, origin, status: response.status }).toEqual({ path, origin, status: 200 });
        expectGranted(response, origin);
        expect(varies(response)).toContain("accept-encoding");
      }
    }
  });

  it("are granted on a 304 too", async () => {
    const first = await get(`/races/${raceId}/results`, OVERLAY_PAGE);
    const again = await get(`/races/${raceId}/results`, OVERLAY_PAGE, { ...bearer(token), "if-none-match": first.headers.get("etag")! });
    expect(again.status).toBe(304);
    expectGranted(again, OVERLAY_PAGE);
  });

  it("are not granted to another club's origin, nor to a stranger, nor without an Origin", async () => {
    for (const origin of [OTHER_CLUBS_SITE, STRANGER]) {
      for (const path of dataPaths()) {
        const response = await get(path, origin);
        // Served as to any caller with this token: CORS only decides what a browser lets the page read.
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
        expectNoGrant(response);
      }
    }
    const noOrigin = await get(`/races/${raceId}/live`, null);
    expect(noOrigin.status).toBe(200);
    expectNoGrant(noOrigin);
  });

  it("never stand in for the token: without one, or with a disabled client's, the guard answers as ever", async () => {
    const missing = await get(`/races/${raceId}/live`, OVERLAY_PAGE, {});
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: "API_TOKEN_MISSING" });
    // The page may read the error (it holds no data) and learn to fetch a token.
    expectGranted(missing, OVERLAY_PAGE);
    const invalid = await get(`/races/${raceId}/live`, OVERLAY_PAGE, bearer("not-a-token"));
    expect(invalid.status).toBe(401);
    expectGranted(invalid, OVERLAY_PAGE);
    const disabled = await get(`/races/${raceId}/live`, CLUB_SITE, bearer(await tokenFor(api.url, "disabled").catch(() => "none")));
    expect(disabled.status).toBe(401);
    const scope = await get("/events", OVERLAY_PAGE, bearer(await tokenFor(api.url, "trackingOnly")));
    expect(scope.status).toBe(403);
    expect(await scope.json()).toMatchObject({ code: "API_SCOPE_MISSING" });
    expectGranted(scope, OVERLAY_PAGE);
  });

  it("of errors are not granted to a stranger", async () => {
    expectNoGrant(await get(`/races/${raceId}/live`, STRANGER, {}));
    expectNoGrant(await get("/races/not-a-race/live", STRANGER));
    expectNoGrant(await get(`/races/${raceId}/track?since=yesterday`, STRANGER));
    const notFound = await get("/races/not-a-race/live", OVERLAY_PAGE);
    expect(notFound.status).toBe(404);
    expectGranted(notFound, OVERLAY_PAGE);
    const badParam = await get(`/races/${raceId}/track?since=yesterday`, CLUB_SITE);
    expect(badParam.status).toBe(400);
    expectGranted(badParam, CLUB_SITE);
  });

  it("follow a changed origin list within 5 seconds", async () => {
    const changing = await tokenFor(api.url, "changing");
    const path = "/races/not-a-race/live"; // any answer of the client's: its 404 is granted through the token's rule too
    const live = () => fetch(`${api.url}/api/v1/scopes`, { headers: { ...bearer(changing), origin: "https://changing.example" } });
    expectGranted(await live(), "https://changing.example");
    await setClientOrigins(db.pool, "changing", ["https://changed.example"]);
    await within(6000, async () => expectNoGrant(await live()));
    const changed = await fetch(`${api.url}/api/v1/scopes`, { headers: { ...bearer(changing), origin: "https://changed.example" } });
    expectGranted(changed, "https://changed.example");
    // The old origin is no longer known to anyone: not even its errors or preflights are granted.
    await within(6000, async () => expectNoGrant(await get(path, "https://changing.example", {})));
    expectNoGrant(await preflight(path, "https://changing.example"));
  });
});

describe("streams", () => {
  it("are granted to the client's origins, with the events a page reads", async () => {
    for (const path of streamPaths()) {
      const stream = await openStream(path, OVERLAY_PAGE);
      expect(stream.response.status).toBe(200);
      expectGranted(stream.response, OVERLAY_PAGE);
      expect((await stream.nextEvent()).data).toContain(raceId);
      stream.close();
    }
  });

  it("are not granted to a stranger, and their refusals only to known origins", async () => {
    for (const path of streamPaths()) {
      const stream = await openStream(path, STRANGER);
      expect(stream.response.status).toBe(200);
      expectNoGrant(stream.response);
      stream.close();
    }
    const refused = await fetch(`${api.url}/api/v1${streamPaths()[0]!}`, { headers: { origin: CLUB_SITE } });
    expect(refused.status).toBe(401);
    expectGranted(refused, CLUB_SITE);
  });
});

describe("the token endpoint", () => {
  it("grants the client's origins its token, and no other origin", async () => {
    const own = await requestToken(api.url, "overlay", { headers: { origin: OVERLAY_PAGE } });
    expect(own.status).toBe(200);
    expectGranted(own, OVERLAY_PAGE);
    const club = await requestToken(api.url, "overlay", { headers: { origin: CLUB_SITE } });
    expectGranted(club, CLUB_SITE);
    for (const origin of [OTHER_CLUBS_SITE, STRANGER]) {
      const response = await requestToken(api.url, "overlay", { headers: { origin } });
      expect(response.status).toBe(200);
      expectNoGrant(response);
    }
  });

  it("lets a known origin read its errors, and a stranger not", async () => {
    const wrong = await fetch(`${api.url}/api/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: OVERLAY_PAGE },
      body: "grant_type=client_credentials&client_id=overlay&client_secret=wrong",
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: "invalid_client" });
    expectGranted(wrong, OVERLAY_PAGE);
    const stranger = await fetch(`${api.url}/api/v1/oauth/token`, { method: "POST", headers: { origin: STRANGER }, body: "" });
    expect(stranger.status).toBe(400);
    expectNoGrant(stranger);
  });
});
