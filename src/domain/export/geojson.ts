// GeoJSON (RFC 7946): a FeatureCollection of the course's marks as Point features, then
// a feature per boat: its positions as a LineString, and in its properties the parallel
// arrays coordTimes (ISO 8601, as togeojson writes them), sogKn and cogDeg (null where
// not reported). A boat with a single fix is a Point: a LineString needs two. Pure.

import { boatTitle, isoTime, type FileBoat, type TrackFileWriter } from "./track-file.js";

/** The property each pass after the coordinates fills. */
const PASS_PROPERTIES = ["", "coordTimes", "sogKn", "cogDeg"];

const position = (lon: number, lat: number) => `[${lon},${lat}]`;

export const geoJsonWriter: TrackFileWriter = {
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
