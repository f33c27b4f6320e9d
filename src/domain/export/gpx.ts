// GPX 1.1: the course's marks as wpt, then one trk per boat named by sail number and
// boat name, each fix a trkpt with its time and, when the phone reported them, speed
// (m/s) and course (degrees) in Garmin's TrackPointExtension v2, which Garmin's tools,
// gpsbabel and togeojson read. Pure.

import { boatTitle, fileTitle, isoTime, metresPerSecond, type TrackFileWriter } from "./track-file.js";
import { xmlText } from "./xml-text.js";

const GPX_OPEN = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="race-api" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd http://www.garmin.com/xmlschemas/TrackPointExtension/v2 http://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd">
`;

export const gpxWriter: TrackFileWriter = {
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
