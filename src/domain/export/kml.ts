// KML 2.2: the course's marks as point placemarks in a folder, then a placemark per boat
// holding a gx:Track (all its whens, then all its coordinates, as the schema orders
// them), which Google Earth animates along its time slider. Speed and course are left
// to the other formats: Google Earth shows neither from a track. Pure.

import { boatTitle, fileTitle, isoTime, type TrackFileWriter } from "./track-file.js";
import { xmlText } from "./xml-text.js";

const data = (name: string, value: string) => `<Data name="${name}"><value>${xmlText(value)}</value></Data>`;

export const kmlWriter: TrackFileWriter = {
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
