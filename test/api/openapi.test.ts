// GET /api/v1/openapi.json against the API it describes: every operation's live
// answers (successes, 304s and each error a test can provoke) are checked against the
// document the server serves, status, media type, body and headers, and the test fails
// when an operation of the document was never checked.

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsPlugin from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importScenario } from "../../src/scenario/import.js";
import { simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { bearer, CLUB, requestToken, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { EVENT, eventScenario, RACE_1 } from "../support/event-scenarios.js";
import { MINUTE, uuid } from "../support/race-scenarios.js";
import { openSse } from "../support/sse.js";

const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

interface Header {
  required?: boolean;
  schema: object;
}
interface DocumentedResponse {
  headers?: Record<string, Header>;
  content?: Record<string, { schema: object; "x-sse-data"?: object }>;
}
interface Operation {
  operationId: string;
  responses: Record<string, DocumentedResponse>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: object;
}

const TIGHT_CLUB = uuid("c4000000", 1);
const UNKNOWN = uuid("f0000000", 1);

const db = useFreshDatabase();
let api: Api;
let token: string;
let document: Document;
let liveRace: string;
let liveGroup: string;
let liveGun: number;
/** "GET /api/v1/races/{raceId}/live 200": each answer checked against the document. */
const checked = new Set<string>();

// OpenAPI 3.1 schemas are JSON Schema 2020-12; the formats OpenAPI adds are checked too.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
const validators = new Map<object, ValidateFunction>();

beforeAll(async () => {
  const scenario = eventScenario();
  // A race live now, for live, insights and track answers full of values.
  const now = Date.now();
  const simulated = sliceScenario(
    simulateScenario({ seed: "openapi", gunMs: now - 22 * MINUTE, startGroups: 1, boatsPerGroup: 6, laps: 1, legLengthM: 700 }),
    null,
    now,
  );
  const live = simulated.events[0]!;
  scenario.events.push({ ...live, clubId: CLUB });
  liveRace = live.races[0]!.id;
  liveGroup = live.races[0]!.startGroups[0]!.id;
  liveGun = Date.parse(live.races[0]!.startGroups[0]!.startTimeUtc!);
  // One call a minute: the second is a 429.
  scenario.clubs.push({ id: TIGHT_CLUB, name: "Tight Club", rateLimitPerMinute: 1 });
  scenario.clients.push({ clientId: "tight", clientSecret: "tight-secret", clubId: TIGHT_CLUB, scopes: ["events:read"] });
  await importScenario(db.pool, scenario);

  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
  const response = await fetch(`${api.url}/api/v1/openapi.json`);
  document = (await response.clone().json()) as Document;
  await expectConforms(response, "get", "/api/v1/openapi.json");
});
afterAll(() => api?.close());

/** The document's answer of `method path` for the response's status, its headers checked. */
function documentedAnswer(response: Response, method: string, path: string): DocumentedResponse {
  const operation = document.paths[path]?.[method];
  expect(operation, `${method} ${path} is documented`).toBeDefined();
  const status = String(response.status);
  const documented = operation!.responses[status] ?? operation!.responses[`${status[0]}XX`];
  expect(documented, `${method} ${path} documents ${status}`).toBeDefined();
  for (const [name, header] of Object.entries(documented!.headers ?? {})) {
    const value = response.headers.get(name);
    if (header.required) expect(value, `${status} carries ${name}`).not.toBeNull();
    if (value !== null) expect(validatorOf(header.schema)(value), `${name}: ${value} matches ${JSON.stringify(header.schema)}`).toBe(true);
  }
  return documented!;
}

/** Checks `response` against the document's answer for its status, and records it as checked. */
async function expectConforms(response: Response, method: string, path: string): Promise<void> {
  const documented = documentedAnswer(response, method, path);
  const status = String(response.status);
  const body = await response.text();
  if (!documented!.content) {
    expect(body).toBe("");
  } else {
    const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
    const content = documented!.content[mediaType];
    expect(content, `${status} is documented as ${mediaType}`).toBeDefined();
    const validate = validatorOf(content!.schema);
    const valid = validate(JSON.parse(body));
    expect(valid, `${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  }
  checked.add(`${method.toUpperCase()} ${path} ${status}`);
}

/** Checks a downloaded file's answer (headers, documented media type) against the document, and records it as checked. */
async function expectFileConforms(response: Response, path: string): Promise<void> {
  const documented = documentedAnswer(response, "get", path);
  const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
  expect(documented.content?.[mediaType], `${path} 200 is documented as ${mediaType}`).toBeDefined();
  expect((await response.text()).length).toBeGreaterThan(0);
  checked.add(`GET ${path} ${response.status}`);
}

/** Opens a stream, checks its answer and first event's data against the document, and closes it. */
async function expectStreamConforms(url: string, path: string): Promise<void> {
  const stream = await openSse(url, bearer(token));
  try {
    const documented = documentedAnswer(stream.response, "get", path);
    const content = documented.content?.["text/event-stream"];
    expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(content?.["x-sse-data"], `${path} says what its events hold`).toBeDefined();
    const event = await stream.nextEvent();
    const validate = validatorOf(content!["x-sse-data"]!);
    expect(validate(JSON.parse(event.data!)), `${path} event: ${ajv.errorsText(validate.errors)}`).toBe(true);
    checked.add(`GET ${path} ${stream.response.status}`);
  } finally {
    stream.close();
  }
}

/** A schema of the document, its #/components references resolved against the document. */
function validatorOf(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile({ ...schema, components: document.components });
    validators.set(schema, validate);
  }
  return validate;
}

function get(path: string, headers: Record<string, string> = bearer(token)): Promise<Response> {
  return fetch(`${api.url}${path}`, { headers });
}

describe("the document", () => {
  it("is OpenAPI 3.1 with every v1 path and the OAuth2 client-credentials scheme", () => {
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths).sort()).toEqual([
      "/api/v1/events",
      "/api/v1/events/{eventId}/live",
      "/api/v1/events/{eventId}/results",
      "/api/v1/oauth/token",
      "/api/v1/openapi.json",
      "/api/v1/races/{raceId}/analytics",
      "/api/v1/races/{raceId}/analytics/legs",
      "/api/v1/races/{raceId}/analytics/manoeuvres",
      "/api/v1/races/{raceId}/analytics/stream",
      "/api/v1/races/{raceId}/live",
      "/api/v1/races/{raceId}/live/insights",
      "/api/v1/races/{raceId}/live/insights/stream",
      "/api/v1/races/{raceId}/live/stream",
      "/api/v1/races/{raceId}/results",
      "/api/v1/races/{raceId}/track",
      "/api/v1/races/{raceId}/track/export",
      "/api/v1/scopes",
    ]);
    expect(document).toMatchObject({
      components: {
        securitySchemes: {
          oauth2: { type: "oauth2", flows: { clientCredentials: { tokenUrl: `${api.runtime.publicBaseUrl}/api/v1/oauth/token` } } },
        },
      },
    });
  });

  it("names the scope each operation needs, as the guard enforces it", () => {
    const security = (path: string) => (Object.values(document.paths[path]!)[0] as unknown as { security: unknown }).security;
    expect(security("/api/v1/races/{raceId}/live")).toEqual([{ oauth2: ["tracking:read"] }]);
    expect(security("/api/v1/races/{raceId}/track")).toEqual([{ oauth2: ["tracking:read"] }]);
    expect(security("/api/v1/races/{raceId}/analytics")).toEqual([{ oauth2: ["tracking:read"] }]);
    expect(security("/api/v1/races/{raceId}/analytics/manoeuvres")).toEqual([{ oauth2: ["tracking:read"] }]);
    expect(security("/api/v1/events")).toEqual([{ oauth2: ["events:read"] }]);
    expect(security("/api/v1/events/{eventId}/results")).toEqual([{ oauth2: ["results:read"] }]);
    expect(security("/api/v1/scopes")).toEqual([{ oauth2: [] }]);
    expect(security("/api/v1/oauth/token")).toEqual([]);
  });

  it("says that every track window of a start group with no gun time yet is max-age=2", () => {
    const track = document.paths["/api/v1/races/{raceId}/track"]!.get as unknown as {
      description: string;
      responses: Record<string, { headers: Record<string, { description: string }> }>;
    };
    expect(track.description).toMatch(/no gun time yet .*max-age=2, however old/);
    expect(track.responses["200"]!.headers["Cache-Control"]!.description).toMatch(
      /private, max-age=2, also for every window of a group with no gun time yet/,
    );
  });

  it("describes TrackPage.since as the service writes it: 24 characters, UTC, milliseconds rounded up", () => {
    const since = (
      document.components as unknown as {
        schemas: Record<string, { properties: Record<string, { maxLength: number; description: string }> }>;
      }
    ).schemas.TrackPage!.properties.since!;
    expect(since.maxLength).toBe(24);
    expect(since.description).toMatch(/rounded up to the millisecond/);
  });

  it("is served with a strong ETag, public caching and 304 on If-None-Match", async () => {
    const first = await get("/api/v1/openapi.json", {});
    expect(first.headers.get("cache-control")).toBe("public, max-age=300");
    const again = await get("/api/v1/openapi.json", { "if-none-match": first.headers.get("etag")! });
    expect(again.status).toBe(304);
    await expectConforms(again, "get", "/api/v1/openapi.json");
  });
});

describe("live answers match the document", () => {
  it("GET /events: 200, 304, 400, 401, 403 and 429", async () => {
    const ok = await get("/api/v1/events?pageSize=2");
    const etag = ok.headers.get("etag")!;
    await expectConforms(ok, "get", "/api/v1/events");
    await expectConforms(await get("/api/v1/events?pageSize=2", { ...bearer(token), "if-none-match": etag }), "get", "/api/v1/events");
    await expectConforms(await get("/api/v1/events?pageSize=0"), "get", "/api/v1/events");
    await expectConforms(await get("/api/v1/events", {}), "get", "/api/v1/events");
    await expectConforms(await get("/api/v1/events", bearer(await tokenFor(api.url, "trackingOnly"))), "get", "/api/v1/events");
    const tight = await tokenFor(api.url, "tight");
    await get("/api/v1/events", bearer(tight));
    const limited = await get("/api/v1/events", bearer(tight));
    expect(limited.status).toBe(429);
    await expectConforms(limited, "get", "/api/v1/events");
  });

  it("GET /events/{eventId}/live and /results: 200 and 404", async () => {
    for (const path of [`/api/v1/events/${EVENT}/live`, `/api/v1/events/${EVENT}/results`]) {
      const template = path.replace(EVENT, "{eventId}");
      await expectConforms(await get(path), "get", template);
      await expectConforms(await get(path.replace(EVENT, UNKNOWN)), "get", template);
    }
  });

  it("GET /races/{raceId}/live and /live/insights: 200 of a race in progress, 304, 401, 404", async () => {
    for (const path of [`/api/v1/races/${liveRace}/live`, `/api/v1/races/${liveRace}/live/insights?lang=de`]) {
      const template = path.replace(liveRace, "{raceId}").replace("?lang=de", "");
      const ok = await get(path);
      const body = (await ok.clone().json()) as object;
      await expectConforms(ok, "get", template);
      expect(JSON.stringify(body).length).toBeGreaterThan(1000);
      await expectConforms(await get(path, { ...bearer(token), "if-none-match": ok.headers.get("etag")! }), "get", template);
      await expectConforms(await get(path, { authorization: "Bearer not-a-token" }), "get", template);
      await expectConforms(await get(path.replace(liveRace, "not-a-uuid")), "get", template);
    }
  });

  it("GET /races/{raceId}/live/stream and /live/insights/stream: 200 with events holding the documented data, 404", async () => {
    await expectStreamConforms(`${api.url}/api/v1/races/${liveRace}/live/stream`, "/api/v1/races/{raceId}/live/stream");
    await expectStreamConforms(
      `${api.url}/api/v1/races/${liveRace}/live/insights/stream?lang=fr`,
      "/api/v1/races/{raceId}/live/insights/stream",
    );
    await expectConforms(await get(`/api/v1/races/${UNKNOWN}/live/stream`), "get", "/api/v1/races/{raceId}/live/stream");
  });

  it("GET /races/{raceId}/track: 200, 400 naming the parameter, 404 for a group not in the race", async () => {
    const since = new Date(liveGun).toISOString();
    const path = `/api/v1/races/${liveRace}/track?startGroupId=${liveGroup}&since=${since}`;
    const ok = await get(path);
    const body = (await ok.clone().json()) as { boats: unknown[] };
    expect(body.boats.length).toBeGreaterThan(0);
    await expectConforms(ok, "get", "/api/v1/races/{raceId}/track");
    await expectConforms(await get(path.replace(since, "yesterday")), "get", "/api/v1/races/{raceId}/track");
    await expectConforms(await get(path.replace(liveGroup, UNKNOWN)), "get", "/api/v1/races/{raceId}/track");
  });

  it("GET /races/{raceId}/track/export: 200 in each format, 400 naming the parameter, 404 for an entry not in the group", async () => {
    const path = "/api/v1/races/{raceId}/track/export";
    for (const format of ["gpx", "kml", "geojson", "csv"]) {
      const ok = await get(`/api/v1/races/${liveRace}/track/export?startGroupId=${liveGroup}&format=${format}`);
      expect(ok.status).toBe(200);
      await expectFileConforms(ok, path);
    }
    await expectConforms(await get(`/api/v1/races/${liveRace}/track/export?startGroupId=${liveGroup}&format=pdf`), "get", path);
    await expectConforms(
      await get(`/api/v1/races/${liveRace}/track/export?startGroupId=${liveGroup}&format=gpx&entryId=${UNKNOWN}`),
      "get",
      path,
    );
  });

  it("GET /races/{raceId}/analytics and /analytics/legs: 200 of a race in progress, 304, 400, 401, 403, 404", async () => {
    for (const endpoint of ["analytics", "analytics/legs"]) {
      const template = `/api/v1/races/{raceId}/${endpoint}`;
      const path = `/api/v1/races/${liveRace}/${endpoint}`;
      const ok = await get(path);
      const body = (await ok.clone().json()) as { boats: unknown[] };
      expect(body.boats.length).toBeGreaterThan(0);
      await expectConforms(ok, "get", template);
      await expectConforms(await get(path, { ...bearer(token), "if-none-match": ok.headers.get("etag")! }), "get", template);
      await expectConforms(await get(`${path}?startGroupId=nope`), "get", template);
      await expectConforms(await get(path, { authorization: "Bearer not-a-token" }), "get", template);
      await expectConforms(await get(path, bearer(await tokenFor(api.url, "eventsOnly"))), "get", template);
      await expectConforms(await get(path.replace(liveRace, UNKNOWN)), "get", template);
    }
  });

  it("GET /races/{raceId}/analytics/manoeuvres: 200 settled and near now, 400 naming the parameter, 404 for a group not in the race", async () => {
    const template = "/api/v1/races/{raceId}/analytics/manoeuvres";
    const path = (since: number) =>
      `/api/v1/races/${liveRace}/analytics/manoeuvres?startGroupId=${liveGroup}&since=${new Date(since).toISOString()}`;
    const settled = await get(path(liveGun));
    const body = (await settled.clone().json()) as { manoeuvres: unknown[]; passings: unknown[] };
    expect(body.manoeuvres.length + body.passings.length).toBeGreaterThan(0);
    await expectConforms(settled, "get", template);
    await expectConforms(await get(path(Date.now() - 3 * MINUTE)), "get", template);
    await expectConforms(await get(path(liveGun).replace("since=", "since=x")), "get", template);
    await expectConforms(await get(path(liveGun).replace(liveGroup, UNKNOWN)), "get", template);
  });

  it("GET /races/{raceId}/analytics/stream: 200 with events holding the documented data, 404", async () => {
    await expectStreamConforms(`${api.url}/api/v1/races/${liveRace}/analytics/stream`, "/api/v1/races/{raceId}/analytics/stream");
    await expectConforms(await get(`/api/v1/races/${UNKNOWN}/analytics/stream`), "get", "/api/v1/races/{raceId}/analytics/stream");
  });

  it("GET /races/{raceId}/results: 200 and 403 without results:read", async () => {
    await expectConforms(await get(`/api/v1/races/${RACE_1}/results`), "get", "/api/v1/races/{raceId}/results");
    await expectConforms(
      await get(`/api/v1/races/${RACE_1}/results`, bearer(await tokenFor(api.url, "trackingOnly"))),
      "get",
      "/api/v1/races/{raceId}/results",
    );
  });

  it("GET /scopes: 200", async () => {
    await expectConforms(await get("/api/v1/scopes"), "get", "/api/v1/scopes");
  });

  it("POST /oauth/token: 200, 400 and 401", async () => {
    await expectConforms(await requestToken(api.url, "overlay"), "post", "/api/v1/oauth/token");
    await expectConforms(await requestToken(api.url, "overlay", { scope: "admin:all" }), "post", "/api/v1/oauth/token");
    const wrongSecret = await fetch(`${api.url}/api/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=overlay&client_secret=wrong",
    });
    await expectConforms(wrongSecret, "post", "/api/v1/oauth/token");
  });
});

describe("coverage", () => {
  it("checked a success of every operation of the document, and the errors above", () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const withoutSuccess = operations.filter((operation) => !checked.has(`${operation} 200`));
    expect(withoutSuccess).toEqual([]);
    const statuses = new Set([...checked].map((entry) => entry.split(" ").at(-1)));
    expect([...statuses].sort()).toEqual(["200", "304", "400", "401", "403", "404", "429"]);
  });
});
