// GET /api/v1/races/{raceId}/track/export and TrackService.ExportTrack: each format read
// back by tools nobody here wrote (gpsbabel, togeojson, a GeoJSON validator, a CSV
// parser) gives exactly the fixes the track pages serve, per boat; the file's head
// (type, name, validators, freshness); and the same rules over Connect and real gRPC.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { ExportTrackRequestSchema, ExportTrackResponseSchema } from "../../gen/racing/v1/track_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { check as checkGeoJson } from "@placemarkio/check-geojson";
import { gpx as gpxToGeoJson, kml as kmlToGeoJson } from "@tmcw/togeojson";
import { DOMParser } from "@xmldom/xmldom";
import { parse as parseCsv } from "csv-parse/sync";
import type { FeatureCollection } from "geojson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDebianBinary } from "../../src/setup/debian-packages.js";
import { EXPORT_FORMAT_NAMES } from "../../src/domain/export/formats.js";
import { courseMarks, type ExportHead, type FileBoat, metresPerSecond } from "../../src/domain/export/track-file.js";
import { compareSailNumbers } from "../../src/domain/sail-number.js";
import { bearer, useApi } from "../support/api.js";
import { grpcClient } from "../support/grpc.js";
import { DELAY_SECONDS, GUN, MINUTE } from "../support/track-scenarios.js";
import {
  COURSE_STEPS,
  EXPORT_IDS as IDS,
  exportScenario,
  SETTLED_GUN,
  servedByPages,
  type ServedBoat,
  type ServedFix,
} from "../support/export-scenarios.js";
import { REFERENCE_WRITERS } from "../support/export-reference-writers.js";

const run = promisify(execFile);
const api = useApi({ scenario: exportScenario, client: "overlay" });
let gpsbabel: string;
let workDir: string;
/** What the track pages serve of the settled group and of the group still reaching the cut-off. */
let settled: ServedBoat[];
let open: ServedBoat[];

beforeAll(async () => {
  gpsbabel = await ensureDebianBinary({ package: "gpsbabel", binary: "/usr/bin/gpsbabel" });
  workDir = await mkdtemp(join(tmpdir(), "export-"));
  settled = await servedByPages(api.url, api.token, IDS.settledRace, IDS.settledGroup, SETTLED_GUN - 5 * MINUTE);
  open = await servedByPages(api.url, api.token, IDS.race, IDS.group, GUN - 5 * MINUTE);
}, 300_000);
afterAll(() => rm(workDir, { recursive: true, force: true }));

type Params = Record<string, string | undefined>;

function exportUrl(params: Params, raceId: string = IDS.settledRace): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  return `${api.url}/api/v1/races/${raceId}/track/export?${query}`;
}

async function download(
  params: Params,
  raceId?: string,
  headers: Record<string, string> = {},
): Promise<{ response: Response; text: string }> {
  const response = await fetch(exportUrl(params, raceId), { headers: { ...bearer(api.token), ...headers } });
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBe(200);
  return { response, text };
}

const settledExport = (format: string, extra: Params = {}) => download({ startGroupId: IDS.settledGroup, format, ...extra });

/** A boat as a tool read it back: its name and its fixes' values. */
interface ReadBack {
  name: string;
  t: number[];
  lat: number[];
  lon: number[];
  sogKn?: (number | null)[];
  cogDeg?: (number | null)[];
}

const title = (boat: { sailNumber: string; boatName: string }) => `${boat.sailNumber} ${boat.boatName}`;
/** What XML can carry of a name: the control character dropped, CR LF read back as LF (XML's line-end handling). */
const xmlTitle = (boat: ServedBoat) => title(boat).replaceAll("\u0001", "").replace(/\r\n/g, "\n");

/** The served boats in the export's order (by sail number), each with at least `minFixes` fixes. */
function inFileOrder(boats: ServedBoat[], minFixes = 1): ServedBoat[] {
  return boats
    .filter((b) => b.fixes.length >= minFixes)
    .sort((a, b) => compareSailNumbers(a.sailNumber, b.sailNumber) || (a.entryId < b.entryId ? -1 : 1));
}

function expectSameFixes(readBack: ReadBack[], served: ServedBoat[], names: (boat: ServedBoat) => string): void {
  expect(readBack.map((b) => b.name)).toEqual(served.map(names));
  for (const [i, boat] of served.entries()) {
    const back = readBack[i]!;
    expect(back.t).toEqual(boat.fixes.map((f) => f.t));
    expect(back.lat).toEqual(boat.fixes.map((f) => f.lat));
    expect(back.lon).toEqual(boat.fixes.map((f) => f.lon));
    if (back.sogKn) expect(back.sogKn).toEqual(boat.fixes.map((f) => f.sogKn));
    if (back.cogDeg) expect(back.cogDeg).toEqual(boat.fixes.map((f) => f.cogDeg));
  }
}

/** The text as RFC 7946 GeoJSON (check-geojson throws on anything invalid), which must be a FeatureCollection. */
function validCollection(text: string): FeatureCollection {
  const geojson = checkGeoJson(text);
  if (geojson.type !== "FeatureCollection") throw new Error(`not a FeatureCollection: ${geojson.type}`);
  return geojson;
}

const parseXml = (text: string) => new DOMParser().parseFromString(text, "text/xml");

describe("the formats, read back by tools nobody here wrote", () => {
  it("checks its own premise: the settled group serves several boats, one over a read page, one with a single fix, missing speeds and courses", () => {
    expect(settled.map((b) => b.entryId).sort()).toEqual([IDS.steady, IDS.fast, IDS.quoted, IDS.once].sort());
    expect(settled.find((b) => b.entryId === IDS.fast)!.fixes.length).toBeGreaterThan(16_384);
    expect(settled.find((b) => b.entryId === IDS.once)!.fixes).toHaveLength(1);
    const steady = settled.find((b) => b.entryId === IDS.steady)!.fixes;
    expect(steady.some((f) => f.sogKn === null && f.cogDeg !== null)).toBe(true);
    expect(steady.some((f) => f.sogKn === null && f.cogDeg === null)).toBe(true);
  });

  it("GPX: togeojson gives back every boat's times, positions, speeds (m/s) and courses; the marks as waypoints", async () => {
    const { text } = await settledExport("gpx");
    const features = gpxToGeoJson(parseXml(text)).features;
    const marks = features.filter((f) => f.geometry?.type === "Point");
    expect(marks.map((m) => m.properties!.name)).toEqual(["pin", "committee", "W"]);
    expect(marks[2]!.properties!.desc).toBe("Windward & <top>");
    const tracks = features.filter((f) => f.geometry?.type === "LineString");
    const readBack = tracks.map((f): ReadBack => {
      const coordinates = (f.geometry as { coordinates: number[][] }).coordinates;
      const properties = f.properties!.coordinateProperties as { times: string[]; speeds?: (number | null)[]; courses?: (number | null)[] };
      return {
        name: f.properties!.name as string,
        t: properties.times.map(Date.parse),
        lat: coordinates.map((c) => c[1]!),
        lon: coordinates.map((c) => c[0]!),
        sogKn: properties.speeds!,
        cogDeg: properties.courses!,
      };
    });
    // togeojson drops a track of one point (a LineString needs two): the boat with one fix is checked by gpsbabel.
    const served = inFileOrder(settled, 2).map((boat) => ({
      ...boat,
      fixes: boat.fixes.map((f) => ({ ...f, sogKn: f.sogKn === null ? null : metresPerSecond(f.sogKn) })),
    }));
    expectSameFixes(readBack, served, xmlTitle);
  });

  it("GPX and KML: gpsbabel reads every boat's points, in order, with their times and positions", async () => {
    for (const format of ["gpx", "kml"]) {
      const { text } = await settledExport(format);
      const file = join(workDir, `settled.${format}`);
      await writeFile(file, text);
      // Read by gpsbabel, written again as GPX 1.1 (its own writer: 9 decimals), parsed here.
      const { stdout } = await run(gpsbabel, ["-t", "-i", format, "-f", file, "-o", "gpx,gpxver=1.1", "-F", "-"], {
        maxBuffer: 512 * 1024 * 1024,
      });
      const tracks = Array.from(parseXml(stdout).getElementsByTagName("trk"));
      const served = inFileOrder(settled);
      expect(tracks.map((trk) => trk.getElementsByTagName("name")[0]!.textContent)).toEqual(served.map(xmlTitle));
      for (const [i, boat] of served.entries()) {
        const points = Array.from(tracks[i]!.getElementsByTagName("trkpt"));
        expect(points.map((p) => Date.parse(p.getElementsByTagName("time")[0]!.textContent!))).toEqual(boat.fixes.map((f) => f.t));
        const lat = points.map((p) => Number(p.getAttribute("lat")));
        const lon = points.map((p) => Number(p.getAttribute("lon")));
        for (const [k, fix] of boat.fixes.entries()) {
          expect(Math.abs(lat[k]! - fix.lat)).toBeLessThan(1e-9);
          expect(Math.abs(lon[k]! - fix.lon)).toBeLessThan(1e-9);
        }
      }
    }
  }, 120_000);

  it("KML: togeojson gives back a gx:Track per boat (its entryId in ExtendedData) with every time and position, and the marks as placemarks", async () => {
    const { text } = await settledExport("kml");
    const features = kmlToGeoJson(parseXml(text)).features;
    const marks = features.filter((f) => f.properties?.entryId === undefined);
    expect(marks.map((m) => m.properties!.name)).toEqual(["pin", "committee", "W"]);
    const boats = features.filter((f) => f.properties?.entryId !== undefined);
    const readBack = boats.map((f): ReadBack => {
      // togeojson reads a track of one point as a Point.
      const geometry = f.geometry as { type: string; coordinates: number[] | number[][] };
      const coordinates = geometry.type === "Point" ? [geometry.coordinates as number[]] : (geometry.coordinates as number[][]);
      const times = (f.properties!.coordinateProperties as { times: string | string[] }).times;
      return {
        name: f.properties!.name as string,
        t: (Array.isArray(times) ? times : [times]).map(Date.parse),
        lat: coordinates.map((c) => c[1]!),
        lon: coordinates.map((c) => c[0]!),
      };
    });
    expectSameFixes(readBack, inFileOrder(settled), xmlTitle);
    expect(boats.map((f) => f.properties!.entryId)).toEqual(inFileOrder(settled).map((b) => b.entryId));
  });

  it("GeoJSON: valid RFC 7946 by check-geojson, a feature per boat with coordTimes, sogKn and cogDeg; a single fix is a Point", async () => {
    const { text } = await settledExport("geojson");
    const collection = validCollection(text);
    const boats = collection.features.filter((f) => f.properties?.kind === "boat");
    const readBack = boats.map((f): ReadBack => {
      const geometry = f.geometry as { type: string; coordinates: number[] | number[][] };
      const coordinates = geometry.type === "Point" ? [geometry.coordinates as number[]] : (geometry.coordinates as number[][]);
      const properties = f.properties as { name: string; coordTimes: string[]; sogKn: (number | null)[]; cogDeg: (number | null)[] };
      return {
        name: properties.name,
        t: properties.coordTimes.map(Date.parse),
        lat: coordinates.map((c) => c[1]!),
        lon: coordinates.map((c) => c[0]!),
        sogKn: properties.sogKn,
        cogDeg: properties.cogDeg,
      };
    });
    expectSameFixes(readBack, inFileOrder(settled), title);
    expect(boats.find((f) => f.properties!.entryId === IDS.once)!.geometry!.type).toBe("Point");
    const marks = collection.features.filter((f) => f.properties?.kind === "mark");
    expect(marks.map((m) => [m.properties!.name, m.geometry])).toEqual([
      ["pin", { type: "Point", coordinates: [-1.31, 50.79] }],
      ["committee", { type: "Point", coordinates: [-1.29, 50.79] }],
      ["W", { type: "Point", coordinates: [-1.3, 50.81] }],
    ]);
  });

  it("CSV: csv-parse reads a header and a row per fix; a speed or course not reported is an empty cell", async () => {
    const { text } = await settledExport("csv");
    const rows = parseCsv(text, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0]!)).toEqual(["entryId", "sailNumber", "boatName", "timeUtc", "lat", "lon", "sogKn", "cogDeg"]);
    const served = inFileOrder(settled);
    const readBack = served.map((boat): ReadBack => {
      const mine = rows.filter((row) => row.entryId === boat.entryId);
      const cell = (value: string) => (value === "" ? null : Number(value));
      return {
        name: `${mine[0]!.sailNumber} ${mine[0]!.boatName}`,
        t: mine.map((row) => Date.parse(row.timeUtc!)),
        lat: mine.map((row) => Number(row.lat)),
        lon: mine.map((row) => Number(row.lon)),
        sogKn: mine.map((row) => cell(row.sogKn!)),
        cogDeg: mine.map((row) => cell(row.cogDeg!)),
      };
    });
    expectSameFixes(readBack, served, title);
    expect(rows).toHaveLength(served.reduce((n, b) => n + b.fixes.length, 0));
    // Every record ends in CRLF; a bare LF or CR lies only inside a quoted field.
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.replace(/"(?:[^"]|"")*"/g, '""')).not.toMatch(/[^\r]\n|\r[^\n]/);
  });

  it("every format: byte for byte the file the writers as first written (one string per value) make of what the pages serve", async () => {
    const event = exportScenario().events.find((e) => e.id === IDS.event)!;
    const race = event.races.find((r) => r.id === IDS.settledRace)!;
    const file: ExportHead = {
      eventName: event.name,
      raceName: race.name,
      startGroupName: race.startGroups[0]!.name,
      marks: courseMarks(COURSE_STEPS.map((step) => ({ label: step.label ?? null, marks: step.marks }))),
    };
    const boats = inFileOrder(settled).map((boat, index): [FileBoat, ServedFix[]] => [
      { entryId: boat.entryId, sailNumber: boat.sailNumber, boatName: boat.boatName, index, onlyFix: boat.fixes.length === 1 },
      boat.fixes,
    ]);
    for (const format of EXPORT_FORMAT_NAMES) {
      const writer = REFERENCE_WRITERS[format];
      let expected = writer.head(file);
      for (const [boat, fixes] of boats) {
        expected += writer.boatHead(file, boat);
        for (let pass = 0; pass < writer.passes; pass++)
          expected += (pass > 0 ? writer.passBreak(boat, pass) : "") + writer.fixes(boat, fixes, pass, false);
        expected += writer.boatTail(boat);
      }
      expected += writer.tail();
      const { text } = await settledExport(format);
      expect(text.length, format).toBe(expected.length);
      expect(text === expected, format).toBe(true);
    }
  });

  it("one entry: only that boat, the file named by its sail number too", async () => {
    const { response, text } = await settledExport("csv", { entryId: IDS.steady.toUpperCase() });
    const rows = parseCsv(text, { columns: true }) as Array<Record<string, string>>;
    expect(new Set(rows.map((row) => row.entryId))).toEqual(new Set([IDS.steady]));
    expect(rows).toHaveLength(settled.find((b) => b.entryId === IDS.steady)!.fixes.length);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="track-week_race-3-sunday_fleet-s_gbr-10.csv"');
  });

  it("the group still reaching the cut-off: exactly what its pages serve up to now, no fix after the delayed cut-off", async () => {
    const { text } = await download({ startGroupId: IDS.group, format: "geojson" }, IDS.race);
    const boats = validCollection(text).features.filter((f) => f.properties?.kind === "boat");
    // Read seconds apart: a boat reporting every second may have one or two more fixes in the export.
    for (const served of inFileOrder(open)) {
      const boat = boats.find((f) => f.properties!.entryId === served.entryId)!;
      const times = (boat.properties!.coordTimes as string[]).map(Date.parse);
      expect(times.slice(0, served.fixes.length)).toEqual(served.fixes.map((f) => f.t));
      expect(Math.max(...times)).toBeLessThan(Date.now() - DELAY_SECONDS * 1000);
    }
    expect(boats.map((f) => f.properties!.entryId)).toEqual(inFileOrder(open).map((b) => b.entryId));
  });
});

describe("the file's head", () => {
  it("names the file and its type, and a settled export is immutable with a weak ETag", async () => {
    const expected = {
      gpx: "application/gpx+xml",
      kml: "application/vnd.google-earth.kml+xml",
      geojson: "application/geo+json",
      csv: "text/csv; charset=utf-8; header=present",
    };
    const etags = new Set<string>();
    for (const [format, type] of Object.entries(expected)) {
      const { response } = await settledExport(format);
      expect(response.headers.get("content-type")).toBe(type);
      expect(response.headers.get("content-disposition")).toBe(`attachment; filename="track-week_race-3-sunday_fleet-s.${format}"`);
      expect(response.headers.get("cache-control")).toBe("private, max-age=86400, immutable");
      expect(response.headers.get("etag")).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
      expect(Date.parse(response.headers.get("x-data-as-of")!)).toBeLessThanOrEqual(Date.now() - DELAY_SECONDS * 1000);
      expect(response.headers.get("ratelimit-policy")).toMatch(/^"tracking";/);
      etags.add(response.headers.get("etag")!);
    }
    expect(etags.size).toBe(4);
  });

  it("a settled export is the same bytes each time, and If-None-Match gets 304 with the same validators", async () => {
    const first = await settledExport("gpx");
    const second = await settledExport("gpx");
    expect(second.text).toBe(first.text);
    expect(second.response.headers.get("etag")).toBe(first.response.headers.get("etag"));
    const etag = first.response.headers.get("etag")!;
    for (const ifNoneMatch of [etag, etag.slice(2), `"other", ${etag}`, "*"]) {
      const response = await fetch(exportUrl({ startGroupId: IDS.settledGroup, format: "gpx" }), {
        headers: { ...bearer(api.token), "if-none-match": ifNoneMatch },
      });
      expect(response.status).toBe(304);
      expect(await response.text()).toBe("");
      expect(response.headers.get("etag")).toBe(etag);
      expect(response.headers.get("cache-control")).toBe("private, max-age=86400, immutable");
    }
    // Another entry's, another format's: not this file.
    const other = await fetch(exportUrl({ startGroupId: IDS.settledGroup, format: "kml" }), {
      headers: { ...bearer(api.token), "if-none-match": etag },
    });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
  });

  it("an export still reaching the cut-off has no ETag and is kept 2 seconds; If-None-Match changes nothing", async () => {
    const { response } = await download({ startGroupId: IDS.group, format: "csv" }, IDS.race, { "if-none-match": "*" });
    expect(response.headers.get("etag")).toBeNull();
    expect(response.headers.get("cache-control")).toBe("private, max-age=2");
  });

  it("compresses with br or gzip as Accept-Encoding asks, and sends it whole otherwise", async () => {
    const plain = await settledExport("csv");
    for (const encoding of ["br", "gzip"]) {
      // undici decodes what it asked for: the text must be the same file.
      const response = await fetch(exportUrl({ startGroupId: IDS.settledGroup, format: "csv" }), {
        headers: { ...bearer(api.token), "accept-encoding": encoding },
      });
      expect(response.headers.get("content-encoding")).toBe(encoding);
      expect(response.headers.get("vary")).toBe("Accept-Encoding, Origin");
      expect(await response.text()).toBe(plain.text);
    }
    const identity = await fetch(exportUrl({ startGroupId: IDS.settledGroup, format: "csv" }), {
      headers: { ...bearer(api.token), "accept-encoding": "identity" },
    });
    expect(identity.headers.get("content-encoding")).toBeNull();
    expect(await identity.text()).toBe(plain.text);
  });

  it("a group without a gun, or whose window has not opened: a file with no boats", async () => {
    const { text } = await download({ startGroupId: IDS.noGunGroup, format: "geojson" }, IDS.race);
    expect(validCollection(text).features).toEqual([]);
    const csv = await download({ startGroupId: IDS.noGunGroup, format: "csv" }, IDS.race);
    expect(csv.text).toBe("entryId,sailNumber,boatName,timeUtc,lat,lon,sogKn,cogDeg\r\n");
  });
});

describe("over Connect and real gRPC", () => {
  it("Connect streams the same file: a head naming it, then its bytes", async () => {
    const { text } = await settledExport("kml");
    const response = await fetch(`${api.url}/racing.v1.TrackService/ExportTrack`, {
      method: "POST",
      headers: { ...bearer(api.token), "content-type": "application/connect+json" },
      body: envelope(JSON.stringify({ raceId: IDS.settledRace, startGroupId: IDS.settledGroup, format: "EXPORT_FORMAT_KML" })),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toMatch(/^W\//);
    const messages = unenvelope(Buffer.from(await response.arrayBuffer()));
    const end = messages.pop()!;
    expect(JSON.parse(end)).toEqual({});
    const [head, ...chunks] = messages.map((m) => JSON.parse(m) as { fileName?: string; mediaType?: string; data?: string });
    expect(head).toEqual({ fileName: "track-week_race-3-sunday_fleet-s.kml", mediaType: "application/vnd.google-earth.kml+xml" });
    expect(chunks.map((c) => Buffer.from(c.data!, "base64").toString()).join("")).toBe(text);
  });

  it("gRPC refuses what REST refuses, with the same codes", async () => {
    const client = grpcClient(api.grpcUrl);
    try {
      const unknownEntry = await grpcExport(client, {
        raceId: IDS.settledRace,
        startGroupId: IDS.settledGroup,
        format: 1,
        entryId: IDS.unapproved,
      });
      expect(unknownEntry).toMatchObject({ code: 5, reason: "ENTRY_NOT_FOUND" });
      const noFormat = await grpcExport(client, { raceId: IDS.settledRace, startGroupId: IDS.settledGroup });
      expect(noFormat).toMatchObject({ code: 3, reason: "API_PARAM_INVALID", metadata: { name: "format" } });
      const unshared = await grpcExport(client, { raceId: IDS.unsharedRace, format: 1 });
      expect(unshared).toMatchObject({ code: 5, reason: "TRACKING_NOT_SHARED" });
      const ok = await grpcExport(client, { raceId: IDS.settledRace, startGroupId: IDS.settledGroup, format: 4 });
      expect(ok).toMatchObject({ code: 0 });
      const { text } = await settledExport("csv");
      expect((ok as { file: string }).file).toBe(text);
    } finally {
      client.close();
    }
  });
});

// --- Connect streaming envelopes and a raw gRPC call ---

function envelope(json: string): Buffer {
  const payload = Buffer.from(json);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

function unenvelope(bytes: Buffer): string[] {
  const messages: string[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at + 1);
    messages.push(bytes.subarray(at + 5, at + 5 + length).toString());
    at += 5 + length;
  }
  return messages;
}

type GrpcOutcome =
  | { code: 0; file: string; head: { fileName: string; mediaType: string } }
  | { code: number; reason: string; metadata: Record<string, string> };

function grpcExport(client: grpc.Client, request: Record<string, unknown>): Promise<GrpcOutcome> {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${api.token}`);
  const call = client.makeServerStreamRequest(
    "/racing.v1.TrackService/ExportTrack",
    (value: Buffer) => Buffer.from(value),
    (bytes: Buffer) => bytes,
    Buffer.from(toBinary(ExportTrackRequestSchema, create(ExportTrackRequestSchema, request))),
    metadata,
  );
  const parts: string[] = [];
  let head = { fileName: "", mediaType: "" };
  return new Promise((resolve) => {
    call.on("data", (bytes: Buffer) => {
      const message = fromBinary(ExportTrackResponseSchema, bytes);
      if (message.fileName) head = { fileName: message.fileName, mediaType: message.mediaType };
      parts.push(Buffer.from(message.data).toString());
    });
    call.on("error", (error: grpc.ServiceError) => {
      const details = error.metadata.get("grpc-status-details-bin")[0] as Buffer;
      const status = fromBinary(StatusSchema, details);
      const info = anyUnpack(status.details[0]!, ErrorInfoSchema)!;
      resolve({ code: error.code, reason: info.reason, metadata: info.metadata });
    });
    call.on("end", () => resolve({ code: 0, file: parts.join(""), head }));
  });
}
