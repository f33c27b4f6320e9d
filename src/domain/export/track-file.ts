// What an exported track file holds and how a format writes it: the file's names, the
// course's marks, each boat's head and its fixes, in the order a file is streamed. A
// writer writes each part's bytes into an OutputBytes and holds nothing between calls,
// so a whole race is written a page of fixes at a time. Pure.

import type { OutputBytes } from "./output-bytes.js";

/** One served fix, as the track pages serve it (the privacy floor: no accuracy, no device data). */
export interface ExportFix {
  /** Epoch ms. */
  t: number;
  lat: number;
  lon: number;
  sogKn: number | null;
  cogDeg: number | null;
}

/** A boat of the file: the names a track page shows for it. */
export interface ExportBoat {
  entryId: string;
  sailNumber: string;
  boatName: string;
}

/** A mark of the course in force at the end of the export's window. */
export interface ExportMark {
  key: string;
  /** The label of the first step it belongs to, if that step has one. */
  label: string | null;
  lat: number;
  lon: number;
}

/** The file as a whole: its title and the marks written before the boats. */
export interface ExportHead {
  eventName: string;
  raceName: string;
  startGroupName: string;
  marks: readonly ExportMark[];
}

/** A boat as it is written: its place in the file and whether it has a single fix (a GeoJSON LineString needs two). */
export interface FileBoat extends ExportBoat {
  index: number;
  onlyFix: boolean;
}

/**
 * A format's writer. A boat's fixes are written in `passes` passes (GeoJSON's feature
 * holds its coordinates, then its times, speeds and courses), each pass over all of
 * the boat's fixes in time order, in one or more calls of `fixes`.
 */
export interface TrackFileWriter {
  passes: number;
  head(out: OutputBytes, file: ExportHead): void;
  boatHead(out: OutputBytes, file: ExportHead, boat: FileBoat): void;
  /** `continued`: not the first fixes of this pass. */
  fixes(out: OutputBytes, boat: FileBoat, fixes: readonly ExportFix[], pass: number, continued: boolean): void;
  /** Between pass `pass - 1` and `pass`. */
  passBreak(out: OutputBytes, boat: FileBoat, pass: number): void;
  boatTail(out: OutputBytes, boat: FileBoat): void;
  tail(out: OutputBytes): void;
}

/** "GBR 10 Steady": how a boat is named in a file. */
export function boatTitle(boat: ExportBoat): string {
  return `${boat.sailNumber} ${boat.boatName}`;
}

/** "Track Week, Race 1, Fleet A". */
export function fileTitle(file: ExportHead): string {
  return `${file.eventName}, ${file.raceName}, ${file.startGroupName}`;
}

/** Knots to metres per second (1 kn = 1852 m per hour). */
export function metresPerSecond(knots: number): number {
  return (knots * 1852) / 3600;
}

/** Each mark once, in the course's order, named by its first step's label. */
export function courseMarks(
  steps: ReadonlyArray<{ label: string | null; marks: ReadonlyArray<{ key: string; lat: number; lon: number }> }>,
): ExportMark[] {
  const seen = new Map<string, ExportMark>();
  for (const step of steps) {
    for (const mark of step.marks)
      if (!seen.has(mark.key)) seen.set(mark.key, { key: mark.key, label: step.label, lat: mark.lat, lon: mark.lon });
  }
  return [...seen.values()];
}
