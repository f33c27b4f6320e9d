// GeoJSON (RFC 7946): a FeatureCollection of the course's marks as Point features, then
// a feature per boat: its positions as a LineString, and in its properties the parallel
// arrays coordTimes (ISO 8601, as togeojson writes them), sogKn and cogDeg (null where
// not reported). A boat with a single fix is a Point: a LineString needs two. Pure.

import { asciiBytes } from "./output-bytes.js";
import { boatTitle, type TrackFileWriter } from "./track-file.js";

/** The property each pass after the coordinates fills. */
const PASS_PROPERTIES = ["", "coordTimes", "sogKn", "cogDeg"];

const COMMA = 44;
const QUOTE = 34;
const OPEN = 91;
const CLOSE = 93;
const NULL = asciiBytes("null");

export const geoJsonWriter: TrackFileWriter = {
  passes: 4,
  head(out, file) {
    const marks = file.marks.map((mark) =>
      JSON.stringify({
        type: "Feature",
        geometry: { type: "Point", coordinates: [mark.lon, mark.lat] },
        properties: { kind: "mark", name: mark.key, label: mark.label },
      }),
    );
    out.text(`{"type":"FeatureCollection","features":[\n${marks.join(",\n")}`);
  },
  boatHead(out, file, boat) {
    const lead = boat.index === 0 && file.marks.length === 0 ? "" : ",\n";
    out.text(
      `${lead}{"type":"Feature","geometry":{"type":"${boat.onlyFix ? "Point" : "LineString"}","coordinates":${boat.onlyFix ? "" : "["}`,
    );
  },
  fixes(out, _boat, fixes, pass, continued) {
    for (let i = 0; i < fixes.length; i++) {
      const fix = fixes[i]!;
      if (continued || i > 0) out.char(COMMA);
      if (pass === 0) {
        out.char(OPEN);
        out.number(fix.lon);
        out.char(COMMA);
        out.number(fix.lat);
        out.char(CLOSE);
      } else if (pass === 1) {
        out.char(QUOTE);
        out.isoTime(fix.t);
        out.char(QUOTE);
      } else {
        const value = pass === 2 ? fix.sogKn : fix.cogDeg;
        if (value === null) out.bytes(NULL);
        else out.number(value);
      }
    }
  },
  passBreak(out, boat, pass) {
    if (pass > 1) {
      out.text(`],"${PASS_PROPERTIES[pass]}":[`);
      return;
    }
    const names = JSON.stringify({
      kind: "boat",
      name: boatTitle(boat),
      entryId: boat.entryId,
      sailNumber: boat.sailNumber,
      boatName: boat.boatName,
    });
    out.text(`${boat.onlyFix ? "" : "]"}},"properties":${names.slice(0, -1)},"coordTimes":[`);
  },
  boatTail: (out) => out.text("]}}"),
  tail: (out) => out.text("\n]}\n"),
};
