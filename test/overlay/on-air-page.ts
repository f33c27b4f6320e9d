// What the on-air tests read back from the overlay page, in one step inside the page (so
// nothing is redrawn halfway through a reading): the two orders, the labels' and marks'
// boxes on screen, the boats, the arrows, the replay clock. Kept as a string of plain
// JavaScript: the page runs it as it is written, with nothing a bundler added.

import type { Page } from "playwright-core";

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface ShownRow {
  entryId: string;
  cells: Record<string, string>;
  stale: boolean;
  tag: string;
}

export interface ShownLabel {
  entryId: string | null;
  text: string;
  box: Box;
  /** What the browser finds at the label's middle: the label itself unless something covers it. */
  onTop: boolean;
}

export interface Shown {
  progressAsOf: string;
  progress: ShownRow[];
  orderAsOf: string;
  order: ShownRow[];
  headings: string[];
  labels: ShownLabel[];
  dots: Box[];
  chart: Box;
  boats: Array<{ entryId: string; stale: boolean; manoeuvring: boolean; opacity: number; centre: [number, number] }>;
  marks: Array<{ kind: string; centre: [number, number] }>;
  windArrow: string;
  northArrow: string;
  orientation: string;
  badge: string;
  replayAt: string | null;
  behindLive: string;
  ticker: { text: string; startGroupId: string | null };
}

const READ = `(() => {
  const rect = (element) => {
    const r = element.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height };
  };
  const centre = (element) => {
    const r = element.getBoundingClientRect();
    return [r.x + r.width / 2, r.y + r.height / 2];
  };
  const rows = (id) =>
    [...document.querySelectorAll("#" + id + " li")].map((li) => ({
      entryId: li.dataset.entryId,
      cells: Object.fromEntries([...li.children].map((span) => [span.classList[0] || "", span.firstChild ? span.firstChild.textContent : ""])),
      stale: li.classList.contains("stale"),
      tag: li.querySelector(".manoeuvre-tag") ? li.querySelector(".manoeuvre-tag").textContent : "",
    }));
  const labels = [...document.querySelectorAll("#labels text")].map((text) => {
    const [cx, cy] = centre(text);
    const hit = document.elementFromPoint(cx, cy);
    return { entryId: text.dataset.entryId || null, text: text.textContent, box: rect(text), onTop: hit === text || text.contains(hit) };
  });
  const ticker = document.getElementById("ticker-text");
  return {
    progressAsOf: document.getElementById("progress").dataset.asOf,
    progress: rows("progress"),
    orderAsOf: document.getElementById("order").dataset.asOf,
    order: rows("order"),
    headings: [...document.querySelectorAll(".table h2")].map((h) => h.textContent.replace(/\\s+/g, " ").trim()),
    labels,
    dots: [...document.querySelectorAll("#course circle.mark")].map(rect),
    chart: rect(document.getElementById("chart")),
    boats: [...document.querySelectorAll("#boats .boat")].map((boat) => ({
      entryId: boat.dataset.entryId,
      stale: boat.classList.contains("stale"),
      manoeuvring: boat.classList.contains("manoeuvring"),
      opacity: Number(getComputedStyle(boat).opacity),
      centre: centre(boat.querySelector("path")),
    })),
    marks: [...document.querySelectorAll("#course circle.mark")].map((dot) => ({ kind: dot.getAttribute("class"), centre: centre(dot) })),
    windArrow: document.getElementById("wind-arrow").getAttribute("transform"),
    northArrow: document.getElementById("north-arrow").getAttribute("transform"),
    orientation: document.getElementById("orientation").textContent,
    badge: document.getElementById("mode-badge").hidden ? "" : document.getElementById("mode-badge").textContent,
    replayAt: document.getElementById("replay-clock").dataset.at || null,
    behindLive: document.getElementById("behind-live").textContent,
    ticker: { text: ticker.textContent, startGroupId: ticker.dataset.startGroupId || null },
  };
})()`;

export async function readShown(page: Page): Promise<Shown> {
  return (await page.evaluate(READ)) as Shown;
}

export function intersects(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}
