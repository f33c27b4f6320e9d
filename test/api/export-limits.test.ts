// The track export attacked: every refused parameter answers the spec's clear error
// (never a 500), the visibility rules of every race endpoint, odd methods and HEAD,
// at most 2 exports per client at once, one database connection at a time per export, a
// client that leaves mid-download releases its slot and every database connection, and a
// 304 reads nothing.

import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { create } from "@bufbuild/protobuf";
import { createHandlerContext } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ExportFormat, ExportTrackRequestSchema, type ExportTrackResponse, TrackService } from "../../gen/racing/v1/track_pb.js";
import { callContext } from "../../src/calls/context.js";
import { bearer, tokenFor, useApi } from "../support/api.js";
import { EXPORT_IDS as IDS, exportScenario } from "../support/export-scenarios.js";

// Long-lived caches: a 304 must find the guard's state and the race in memory, so any read is the export's.
const api = useApi({
  scenario: exportScenario,
  client: "overlay",
  config: { signingKeysRefreshMs: 300_000, clientStateMaxAgeMs: 300_000 },
});

type Params = Record<string, string | string[] | undefined>;

function exportPath(params: Params, raceId: string = IDS.settledRace): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) for (const one of [value ?? []].flat()) query.append(name, one);
  return `/api/v1/races/${raceId}/track/export?${query}`;
}

async function refusal(params: Params, raceId?: string, init: RequestInit = {}): Promise<{ status: number; code: string; name?: string }> {
  const response = await fetch(`${api.url}${exportPath(params, raceId)}`, {
    ...init,
    headers: { ...bearer(api.token), ...(init.headers as object) },
  });
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const body = (await response.json()) as { status: number; code: string; params?: { name?: string } };
  expect(body.status).toBe(response.status);
  return { status: response.status, code: body.code, ...(body.params?.name ? { name: body.params.name } : {}) };
}

const settledGroup = { startGroupId: IDS.settledGroup };
const invalid = (name: string) => ({ status: 400, code: "API_PARAM_INVALID", name });

describe("refused parameters", () => {
  it("a missing, unknown, repeated or huge format", async () => {
    expect(await refusal({ ...settledGroup })).toEqual(invalid("format"));
    expect(await refusal({ ...settledGroup, format: "pdf" })).toEqual(invalid("format"));
    expect(await refusal({ ...settledGroup, format: "GPX" })).toEqual(invalid("format"));
    expect(await refusal({ ...settledGroup, format: ["gpx", "kml"] })).toEqual(invalid("format"));
    expect(await refusal({ ...settledGroup, format: "g".repeat(1000) })).toEqual(invalid("format"));
    // Past the server's limit for a request head: refused before any route.
    expect(await refusal({ ...settledGroup, format: "g".repeat(100_000) })).toEqual({ status: 431, code: "API_REQUEST_HEADERS_TOO_LARGE" });
  });

  it("a malformed, repeated or missing start group, and one of another race", async () => {
    expect(await refusal({ startGroupId: "not-a-uuid", format: "gpx" })).toEqual(invalid("startGroupId"));
    expect(await refusal({ startGroupId: [IDS.settledGroup, IDS.settledGroup], format: "gpx" })).toEqual(invalid("startGroupId"));
    expect(await refusal({ format: "gpx" }, IDS.race)).toEqual(invalid("startGroupId"));
    expect(await refusal({ startGroupId: IDS.group, format: "gpx" })).toEqual({ status: 404, code: "START_GROUP_NOT_FOUND" });
  });

  it("a malformed entry; one that is no boat of the group: not in it, not approved, without a phone", async () => {
    expect(await refusal({ ...settledGroup, format: "gpx", entryId: "x".repeat(36) })).toEqual(invalid("entryId"));
    expect(await refusal({ ...settledGroup, format: "gpx", entryId: [IDS.steady, IDS.fast] })).toEqual(invalid("entryId"));
    for (const entryId of [IDS.finisher, IDS.unapproved, IDS.noPhone, "7b000000-0000-4000-8000-0000000000ff"]) {
      expect(await refusal({ ...settledGroup, format: "gpx", entryId })).toEqual({ status: 404, code: "ENTRY_NOT_FOUND" });
    }
    expect(await refusal({ startGroupId: IDS.group, format: "csv", entryId: IDS.noPhone }, IDS.race)).toEqual({
      status: 404,
      code: "ENTRY_NOT_FOUND",
    });
  });

  it("the rules of every race endpoint: another club's race, a malformed race id, an unshared event", async () => {
    expect(await refusal({ format: "gpx" }, IDS.otherClubRace)).toEqual({ status: 404, code: "RACE_NOT_FOUND" });
    expect(await refusal({ format: "gpx" }, "not-a-race")).toEqual({ status: 404, code: "RACE_NOT_FOUND" });
    expect(await refusal({ format: "gpx" }, IDS.unsharedRace)).toEqual({ status: 404, code: "TRACKING_NOT_SHARED" });
  });

  it("authentication first: no token is 401 even with a bad parameter; a token without tracking:read is 403", async () => {
    const response = await fetch(`${api.url}${exportPath({ format: "pdf" })}`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe("API_TOKEN_MISSING");
    const eventsOnly = await tokenFor(api.url, "overlay", "events:read");
    const scoped = await fetch(`${api.url}${exportPath({ ...settledGroup, format: "gpx" })}`, { headers: bearer(eventsOnly) });
    expect(scoped.status).toBe(403);
    expect(await scoped.json()).toMatchObject({ code: "API_SCOPE_MISSING", params: { scope: "tracking:read" } });
  });
});

describe("methods", () => {
  it("HEAD answers the head GET would start with, and no body", async () => {
    const response = await fetch(`${api.url}${exportPath({ ...settledGroup, format: "kml" })}`, {
      method: "HEAD",
      headers: bearer(api.token),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/vnd.google-earth.kml+xml");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="track-week_race-3-sunday_fleet-s.kml"');
    expect(response.headers.get("etag")).toMatch(/^W\//);
    expect(await response.text()).toBe("");
  });

  it("POST, PUT, DELETE and PATCH are no route; OPTIONS names GET and HEAD", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const response = await fetch(`${api.url}${exportPath({ ...settledGroup, format: "gpx" })}`, { method, headers: bearer(api.token) });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("API_ROUTE_NOT_FOUND");
    }
    const options = await fetch(`${api.url}${exportPath({ format: "gpx" })}`, { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD");
  });
});

/** A download started on its own socket, taking no body bytes: its export stays open, held by backpressure. */
function held(params: Params): Promise<{ response: IncomingMessage; request: ClientRequest }> {
  const url = new URL(`${api.url}${exportPath(params)}`);
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { ...bearer(api.token), "accept-encoding": "identity" } }, (response) => {
      response.pause();
      resolve({ response, request });
    });
    request.on("error", reject);
    request.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("how many at once, and a client that leaves", () => {
  it("an export reads a page at a time, the next one while one is sent: never two connections at once once the file streams", async () => {
    /** The export's messages after its head (the file's name). */
    const exportAfterHead = async (format: ExportFormat): Promise<AsyncIterator<ExportTrackResponse>> => {
      const messages = (
        api.runtime.services.track.exportTrack(
          create(ExportTrackRequestSchema, { raceId: IDS.settledRace, startGroupId: IDS.settledGroup, format }),
          createHandlerContext({
            service: TrackService,
            method: TrackService.method.exportTrack,
            protocolName: "test",
            requestMethod: "POST",
            url: "/racing.v1.TrackService/ExportTrack",
            requestHeader: new Headers(bearer(api.token)),
            contextValues: callContext("127.0.0.1", undefined),
          }),
        ) as AsyncIterable<ExportTrackResponse>
      )[Symbol.asyncIterator]();
      const head = await messages.next();
      expect(head.value?.fileName).toMatch(/^track-/);
      return messages;
    };
    const pool = api.runtime.reads.pool();
    let held = 0;
    let most = 0;
    let streaming = false;
    const onAcquire = () => {
      held++;
      if (streaming) most = Math.max(most, held);
    };
    const onRelease = () => held--;
    pool.pool.on("acquire", onAcquire);
    pool.pool.on("release", onRelease);
    try {
      // GeoJSON: four passes, the boat over a read page read again for each; KML: two; CSV: one.
      for (const format of [ExportFormat.GEOJSON, ExportFormat.KML, ExportFormat.CSV]) {
        const messages = await exportAfterHead(format);
        // From the head on: the reads that decide the head (boats, finishes) may run together.
        streaming = true;
        let chunks = 0;
        // Pulled one message at a time, as a socket taking each before the next: nothing runs ahead of the pull.
        for (let next = await messages.next(); !next.done; next = await messages.next()) {
          expect(next.value.data.length).toBeGreaterThan(0);
          chunks++;
          await sleep(1);
        }
        streaming = false;
        expect(chunks).toBeGreaterThan(0);
      }
      expect(most).toBe(1);
    } finally {
      pool.pool.off("acquire", onAcquire);
      pool.pool.off("release", onRelease);
    }
  });

  it("a client runs 2 exports at once; a third is 429; one left midway frees its slot and every connection it read with", async () => {
    const pool = api.runtime.reads.pool();
    let acquired = 0;
    let released = 0;
    const onAcquire = () => acquired++;
    const onRelease = () => released++;
    pool.pool.on("acquire", onAcquire);
    pool.pool.on("release", onRelease);
    try {
      const first = await held({ ...settledGroup, format: "gpx" });
      const second = await held({ ...settledGroup, format: "kml" });
      expect([first.response.statusCode, second.response.statusCode]).toEqual([200, 200]);
      const third = await fetch(`${api.url}${exportPath({ ...settledGroup, format: "csv" })}`, { headers: bearer(api.token) });
      expect(third.status).toBe(429);
      expect(third.headers.get("retry-after")).toBe("60");
      expect(((await third.json()) as { code: string }).code).toBe("RATE_LIMIT_EXCEEDED");

      // The first client reads a little, then goes.
      first.response.resume();
      await new Promise((resolve) => first.response.once("data", resolve));
      first.request.destroy();
      // Its slot comes back once the server saw it go.
      let status = 429;
      for (let attempt = 0; attempt < 50 && status === 429; attempt++) {
        const again = await fetch(`${api.url}${exportPath({ ...settledGroup, format: "csv" })}`, { headers: bearer(api.token) });
        status = again.status;
        await again.arrayBuffer();
        if (status === 429) await sleep(100);
      }
      expect(status).toBe(200);
      second.request.destroy();
      // Every connection taken is given back.
      for (let attempt = 0; attempt < 50 && acquired !== released; attempt++) await sleep(100);
      expect(acquired).toBeGreaterThan(0);
      expect(released).toBe(acquired);
      // And the client has both slots again.
      const [a, b] = await Promise.all([held({ ...settledGroup, format: "gpx" }), held({ ...settledGroup, format: "geojson" })]);
      expect([a.response.statusCode, b.response.statusCode]).toEqual([200, 200]);
      a.request.destroy();
      b.request.destroy();
    } finally {
      pool.pool.off("acquire", onAcquire);
      pool.pool.off("release", onRelease);
    }
  }, 60_000);

  it("If-None-Match with a settled export's ETag is 304 and reads nothing; without it the export reads", async () => {
    const pool = api.runtime.reads.pool();
    const url = `${api.url}${exportPath({ ...settledGroup, format: "geojson" })}`;
    // The test before left two downloads: their slots come back once the server saw them go.
    let first = await fetch(url, { headers: bearer(api.token) });
    for (let attempt = 0; attempt < 50 && first.status === 429; attempt++) {
      await first.arrayBuffer();
      await sleep(100);
      first = await fetch(url, { headers: bearer(api.token) });
    }
    await first.arrayBuffer();
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    let acquired = 0;
    const onAcquire = () => acquired++;
    pool.pool.on("acquire", onAcquire);
    try {
      const readsOf = async (headers: Record<string, string>): Promise<{ status: number; reads: number }> => {
        // The call before warms the race's 2-second visibility cache: only the export's own reads are counted.
        await (await fetch(url, { method: "HEAD", headers: { ...bearer(api.token), "if-none-match": etag } })).arrayBuffer();
        const before = acquired;
        const response = await fetch(url, { headers: { ...bearer(api.token), ...headers } });
        await response.arrayBuffer();
        return { status: response.status, reads: acquired - before };
      };
      let notModified = { status: 0, reads: -1 };
      // A machine too busy to make both calls within the race's 2 s: try again.
      for (let attempt = 0; attempt < 5 && notModified.reads !== 0; attempt++) notModified = await readsOf({ "if-none-match": etag });
      expect(notModified).toEqual({ status: 304, reads: 0 });
      const whole = await readsOf({});
      expect(whole.status).toBe(200);
      expect(whole.reads).toBeGreaterThan(0);
    } finally {
      pool.pool.off("acquire", onAcquire);
    }
  });
});
