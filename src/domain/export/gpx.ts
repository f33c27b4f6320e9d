// GPX 1.1: the course's marks as wpt, then one trk per boat named by sail number and
// boat name, each fix a trkpt with its time and, when the phone reported them, speed
// (m/s) and course (degrees) in Garmin's TrackPointExtension v2, which Garmin's tools,
// gpsbabel and togeojson read. Pure.

import { asciiBytes } from "./output-bytes.js";
import { boatTitle, fileTitle, metresPerSecond, type TrackFileWriter } from "./track-file.js";
import { xmlText } from "./xml-text.js";

const GPX_OPEN = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="race-api" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd http://www.garmin.com/xmlschemas/TrackPointExtension/v2 http://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd">
`;

const POINT_LAT = asciiBytes('<trkpt lat="');
const POINT_LON = asciiBytes('" lon="');
const POINT_TIME = asciiBytes('"><time>');
const TIME_END = asciiBytes("</time>");
const EXTENSIONS = asciiBytes("<extensions><gpxtpx:TrackPointExtension>");
const SPEED = asciiBytes("<gpxtpx:speed>");
const SPEED_END = asciiBytes("</gpxtpx:speed>");
const COURSE = asciiBytes("<gpxtpx:course>");
const COURSE_END = asciiBytes("</gpxtpx:course>");
const EXTENSIONS_END = asciiBytes("</gpxtpx:TrackPointExtension></extensions>");
const POINT_END = asciiBytes("</trkpt>\n");

export const gpxWriter: TrackFileWriter = {
  passes: 1,
  head(out, file) {
    const marks = file.marks.map(
      (mark) =>
        `<wpt lat="${mark.lat}" lon="${mark.lon}"><name>${xmlText(mark.key)}</name>${mark.label === null ? "" : `<desc>${xmlText(mark.label)}</desc>`}<type>mark</type></wpt>\n`,
    );
    out.text(`${GPX_OPEN}<metadata><name>${xmlText(fileTitle(file))}</name></metadata>\n${marks.join("")}`);
  },
  boatHead: (out, _file, boat) => out.text(`<trk><name>${xmlText(boatTitle(boat))}</name><trkseg>\n`),
  fixes(out, _boat, fixes) {
    for (const fix of fixes) {
      out.bytes(POINT_LAT);
      out.number(fix.lat);
      out.bytes(POINT_LON);
      out.number(fix.lon);
      out.bytes(POINT_TIME);
      out.isoTime(fix.t);
      out.bytes(TIME_END);
      if (fix.sogKn !== null || fix.cogDeg !== null) {
        // TrackPointExtension v2's sequence: speed before course.
        out.bytes(EXTENSIONS);
        if (fix.sogKn !== null) {
          out.bytes(SPEED);
          out.number(metresPerSecond(fix.sogKn));
          out.bytes(SPEED_END);
        }
        if (fix.cogDeg !== null) {
          out.bytes(COURSE);
          out.number(fix.cogDeg);
          out.bytes(COURSE_END);
        }
        out.bytes(EXTENSIONS_END);
      }
      out.bytes(POINT_END);
    }
  },
  passBreak: () => {},
  boatTail: (out) => out.text("</trkseg></trk>\n"),
  tail: (out) => out.text("</gpx>\n"),
};
