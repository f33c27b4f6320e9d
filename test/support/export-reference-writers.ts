// The export writers as first written, string by string (toISOString and String() per
// value, each part a string): kept as the oracle the byte writers of src/domain/export/
// must match byte for byte (test/domain/export/writers.test.ts, test/api/export.test.ts).

import { csvField, CSV_COLUMNS } from "../../src/domain/export/csv.js";
import {
  boatTitle,
  fileTitle,
  metresPerSecond,
  type ExportFix,
  type ExportHead,
  type FileBoat,
} from "../../src/domain/export/track-file.js";
import { xmlText } from "../../src/domain/export/xml-text.js";

/** The first writers' shape: each part returned as a string. */
export interface StringWriter {
  passes: number;
  head(file: ExportHead): string;
  boatHead(file: ExportHead, boat: FileBoat): string;
  fixes(boat: FileBoat, fixes: readonly ExportFix[], pass: number, continued: boolean): string;
  passBreak(boat: FileBoat, pass: number): string;
  boatTail(boat: FileBoat): string;
  tail(): string;
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

const cell = (value: number | null) => (value === null ? "" : String(value));

const csvWriter: StringWriter = {
  passes: 1,
  head: () => `${CSV_COLUMNS.join(",")}\r\n`,
  boatHead: () => "",
  fixes(boat, fixes) {
    // The boat's three cells are the same on each of its rows.
    const names = `${csvField(boat.entryId)},${csvField(boat.sailNumber)},${csvField(boat.boatName)},`;
    let text = "";
    for (const fix of fixes) text += `${names}${isoTime(fix.t)},${fix.lat},${fix.lon},${cell(fix.sogKn)},${cell(fix.cogDeg)}\r\n`;
    return text;
  },
  passBreak: () => "",
  boatTail: () => "",
  tail: () => "",
};

const GPX_OPEN = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="race-api" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd http://www.garmin.com/xmlschemas/TrackPointExtension/v2 http://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd">
`;

const gpxWriter: StringWriter = {
  passes: 1,
  head(file) {
    const marks = file.marks.map(
      (mark) =>
        `<wpt lat="${mark.lat}" lon="${mark.lon}"><name>${xmlText(mark.key)}</name>${mark.label === null ? "" : `<desc>${xmlText(mark.label)}</desc>`}<type>mark</type></wpt>\n`,
    );
    return `${GPX_OPEN}<metadata><name>${xmlText(fileTitle(file))}</name></metadata>\n${marks.join("")}`;
  },
  boatHead: (_file, boat) => `<trk><name>${xmlText(boatTitle(boat))}</name><trkseg>\n`,
  fixes(_boat, fixes) {
    let text = "";
    for (const fix of fixes) {
      text += `<trkpt lat="${fix.lat}" lon="${fix.lon}"><time>${isoTime(fix.t)}</time>`;
      if (fix.sogKn !== null || fix.cogDeg !== null) {
        // TrackPointExtension v2's sequence: speed before course.
        text += "<extensions><gpxtpx:TrackPointExtension>";
        if (fix.sogKn !== null) text += `<gpxtpx:speed>${metresPerSecond(fix.sogKn)}</gpxtpx:speed>`;
        if (fix.cogDeg !== null) text += `<gpxtpx:course>${fix.cogDeg}</gpxtpx:course>`;
        text += "</gpxtpx:TrackPointExtension></extensions>";
      }
      text += "</trkpt>\n";
    }
    return text;
  },
  passBreak: () => "",
  boatTail: () => "</trkseg></trk>\n",
  tail: () => "</gpx>\n",
};

const data = (name: string, value: string) => `<Data name="${name}"><value>${xmlText(value)}</value></Data>`;

const kmlWriter: StringWriter = {
  passes: 2,
  head(file) {
    const marks = file.marks.map(
      (mark) =>
        `<Placemark><name>${xmlText(mark.key)}</name>${mark.label === null ? "" : `<description>${xmlText(mark.label)}</description>`}<Point><coordinates>${mark.lon},${mark.lat}</coordinates></Point></Placemark>\n`,
    );
    return `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
<Document><name>${xmlText(fileTitle(file))}</name>
<Folder><name>Course</name>
${marks.join("")}</Folder>
`;
  },
  boatHead: (_file, boat) =>
    `<Placemark><name>${xmlText(boatTitle(boat))}</name><ExtendedData>${data("entryId", boat.entryId)}${data("sailNumber", boat.sailNumber)}${data("boatName", boat.boatName)}</ExtendedData>
<gx:Track>
`,
  fixes(_boat, fixes, pass) {
    let text = "";
    if (pass === 0) for (const fix of fixes) text += `<when>${isoTime(fix.t)}</when>\n`;
    else for (const fix of fixes) text += `<gx:coord>${fix.lon} ${fix.lat} 0</gx:coord>\n`;
    return text;
  },
  passBreak: () => "",
  boatTail: () => "</gx:Track></Placemark>\n",
  tail: () => "</Document>\n</kml>\n",
};

/** The property each pass after the coordinates fills. */
const PASS_PROPERTIES = ["", "coordTimes", "sogKn", "cogDeg"];

const position = (lon: number, lat: number) => `[${lon},${lat}]`;

const geoJsonWriter: StringWriter = {
  passes: 4,
  head(file) {
    const marks = file.marks.map((mark) =>
      JSON.stringify({
        type: "Feature",
        geometry: { type: "Point", coordinates: [mark.lon, mark.lat] },
        properties: { kind: "mark", name: mark.key, label: mark.label },
      }),
    );
    return `{"type":"FeatureCollection","features":[\n${marks.join(",\n")}`;
  },
  boatHead(file, boat) {
    const lead = boat.index === 0 && file.marks.length === 0 ? "" : ",\n";
    return `${lead}{"type":"Feature","geometry":{"type":"${boat.onlyFix ? "Point" : "LineString"}","coordinates":${boat.onlyFix ? "" : "["}`;
  },
  fixes(_boat, fixes, pass, continued) {
    const parts: string[] = new Array(fixes.length);
    for (let i = 0; i < fixes.length; i++) {
      const fix = fixes[i]!;
      if (pass === 0) parts[i] = position(fix.lon, fix.lat);
      else if (pass === 1) parts[i] = `"${isoTime(fix.t)}"`;
      else parts[i] = String((pass === 2 ? fix.sogKn : fix.cogDeg) ?? "null");
    }
    return (continued ? "," : "") + parts.join(",");
  },
  passBreak(boat, pass) {
    if (pass > 1) return `],"${PASS_PROPERTIES[pass]}":[`;
    const names = JSON.stringify({
      kind: "boat",
      name: boatTitle(boat),
      entryId: boat.entryId,
      sailNumber: boat.sailNumber,
      boatName: boat.boatName,
    });
    return `${boat.onlyFix ? "" : "]"}},"properties":${names.slice(0, -1)},"coordTimes":[`;
  },
  boatTail: (_boat: FileBoat) => "]}}",
  tail: () => "\n]}\n",
};

export const REFERENCE_WRITERS = { csv: csvWriter, gpx: gpxWriter, kml: kmlWriter, geojson: geoJsonWriter } as const;
