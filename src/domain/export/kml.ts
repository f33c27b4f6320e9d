// KML 2.2: the course's marks as point placemarks in a folder, then a placemark per boat
// holding a gx:Track (all its whens, then all its coordinates, as the schema orders
// them), which Google Earth animates along its time slider. Speed and course are left
// to the other formats: Google Earth shows neither from a track. Pure.

import { asciiBytes } from "./output-bytes.js";
import { boatTitle, fileTitle, type TrackFileWriter } from "./track-file.js";
import { xmlText } from "./xml-text.js";

const data = (name: string, value: string) => `<Data name="${name}"><value>${xmlText(value)}</value></Data>`;

const WHEN = asciiBytes("<when>");
const WHEN_END = asciiBytes("</when>\n");
const COORD = asciiBytes("<gx:coord>");
const COORD_END = asciiBytes(" 0</gx:coord>\n");
const SPACE = 32;

export const kmlWriter: TrackFileWriter = {
  passes: 2,
  head(out, file) {
    const marks = file.marks.map(
      (mark) =>
        `<Placemark><name>${xmlText(mark.key)}</name>${mark.label === null ? "" : `<description>${xmlText(mark.label)}</description>`}<Point><coordinates>${mark.lon},${mark.lat}</coordinates></Point></Placemark>\n`,
    );
    out.text(`<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
<Document><name>${xmlText(fileTitle(file))}</name>
<Folder><name>Course</name>
${marks.join("")}</Folder>
`);
  },
  boatHead: (out, _file, boat) =>
    out.text(`<Placemark><name>${xmlText(boatTitle(boat))}</name><ExtendedData>${data("entryId", boat.entryId)}${data("sailNumber", boat.sailNumber)}${data("boatName", boat.boatName)}</ExtendedData>
<gx:Track>
`),
  fixes(out, _boat, fixes, pass) {
    if (pass === 0)
      for (const fix of fixes) {
        out.bytes(WHEN);
        out.isoTime(fix.t);
        out.bytes(WHEN_END);
      }
    else
      for (const fix of fixes) {
        out.bytes(COORD);
        out.number(fix.lon);
        out.char(SPACE);
        out.number(fix.lat);
        out.bytes(COORD_END);
      }
  },
  passBreak: () => {},
  boatTail: (out) => out.text("</gx:Track></Placemark>\n"),
  tail: (out) => out.text("</Document>\n</kml>\n"),
};
