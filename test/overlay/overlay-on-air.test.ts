// The overlay on air: the demo's race (two start groups of 12 boats, eight minutes after
// the gun, one phone gone quiet) in headless Chromium at 1920x1080, read back from the
// page and compared with the API's own answers for the very moments the page shows
// (`?at=`): each boat's leg, gap to the leader, speed and VMG, the TACK/GYBE marker, the
// stale boat greyed, both orders, labels that never overlap one another or a mark's dot
// and one readable label per boat, the chart turned wind-up, the ticker kept to the
// group; then the replay mode: its clock, its timeline dragged, its catch-up into live.
// Screenshots go to test/out/ to be looked at.

import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { launchChromium } from "../support/chromium.js";
import { useFreshDatabase } from "../support/database.js";
import { freePort } from "../support/ports.js";
import { type Box, intersects, readShown, type Shown } from "./on-air-page.js";
import { demoLikeScenario, type Site, staticSite } from "./overlay-site.js";

const OUT_DIR = fileURLToPath(new URL("../out/", import.meta.url));
const DELAY_SECONDS = 30;
const MINUTES_SINCE_GUN = 8;
/** The page's MANOEUVRE_MARKER_SECONDS. */
const MARKER_SECONDS = 75;
const REPLAY_SPEED = 20;

const db = useFreshDatabase();
let api: Api;
let browser: Browser;
let site: Site;
let pageToken: string;
/** The test's own reads go through another client, so they cost the page's bucket nothing. */
let readToken: string;
let raceId: string;
let quietEntryId: string;

interface AnalyticsBoat {
  entryId: string;
  sailNumber: string;
  progressRank: number;
  legIndex: number | null;
  legKind: string | null;
  distanceBehindLeaderM: number | null;
  timeBehindLeaderSeconds: number | null;
  sogKn: number | null;
  vmgKn: number | null;
  stale: boolean;
  finishedAtUtc: string | null;
  lastManoeuvre: { kind: string; atUtc: string } | null;
}
interface Analytics {
  dataAsOf: string;
  startGroupId: string;
  boats: AnalyticsBoat[];
}
interface LiveGroup {
  startGroupId: string;
  name: string;
  state: string;
  startTimeUtc: string | null;
  wind: { twd: number } | null;
  boats: Array<{ entryId: string; sailNumber: string; lat: number; lon: number }>;
  liveOrder: Array<{ entryId: string; rank: number | null; deltaSeconds: number | null; finishTimeUtc: string | null }> | null;
  course: Array<{ kind: string; label: string | null; marks: Array<{ lat: number; lon: number }> }>;
}
interface Live {
  dataAsOf: string;
  startGroups: LiveGroup[];
}

beforeAll(async () => {
  site = await staticSite(await freePort());
  const seeded = demoLikeScenario([site.origin], DELAY_SECONDS, MINUTES_SINCE_GUN);
  raceId = seeded.raceId;
  quietEntryId = seeded.quietEntryId;
  await seedIdentities(db, seeded.scenario);
  browser = await launchChromium((message) => console.log(`[chromium] ${message}`));
  api = await startApi(db);
  pageToken = await tokenFor(api.url, "overlay");
  readToken = await tokenFor(api.url, "trackingOnly");
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  site?.server.close();
});

async function read<T>(path: string): Promise<T> {
  const response = await fetch(`${api.url}/api/v1/races/${raceId}${path}`, { headers: bearer(readToken) });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

const analyticsAt = (groupId: string, at: string) => read<Analytics>(`/analytics?startGroupId=${groupId}&at=${at}`);
const liveAt = (at: string) => read<Live>(`/live?at=${at}`);

interface Visit {
  page: Page;
  errors: string[];
  requests: Request[];
}

async function visit(settings: Record<string, string>): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  const shown: Visit = { page, errors: [], requests: [] };
  page.on("console", (message) => {
    if (message.type() === "error") shown.errors.push(message.text());
  });
  page.on("pageerror", (error) => shown.errors.push(error.message));
  page.on("request", (request) => shown.requests.push(request));
  const fragment = new URLSearchParams({ api: api.url, race: raceId, token: pageToken, lang: "en", ...settings });
  await page.goto(`${site.origin}/#${fragment}`);
  return shown;
}

/** Until the page shows analytics (and so every part of it has drawn once). */
async function untilDrawn(page: Page): Promise<void> {
  await page.locator("#progress li").first().waitFor({ timeout: 30_000 });
  await page.locator("#labels text").first().waitFor();
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  await page.screenshot({ path: `${OUT_DIR}${name}` });
}

// The page's words for the analytics' numbers, written out again from the contract.
const LEG_WORDS: Record<string, string> = { upwind: "UP", downwind: "DOWN", reach: "REACH" };
function expectedRow(boat: AnalyticsBoat, gap: "time" | "distance"): Record<string, string> {
  const leg =
    boat.legIndex === null || boat.finishedAtUtc ? "FIN" : boat.legIndex === 0 ? "PRE" : `${boat.legIndex} ${LEG_WORDS[boat.legKind!]}`;
  const fixed = (value: number | null) => (value === null ? "–" : value.toFixed(1));
  let behind: string;
  if (boat.progressRank === 1) behind = "LEAD";
  else if (gap === "distance") behind = boat.distanceBehindLeaderM === null ? "–" : `+${Math.round(boat.distanceBehindLeaderM)} m`;
  else if (boat.timeBehindLeaderSeconds === null) behind = "–";
  else {
    const seconds = Math.round(boat.timeBehindLeaderSeconds);
    behind = `+${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  }
  return {
    rank: String(boat.progressRank),
    chip: "",
    sail: boat.sailNumber,
    leg,
    gap: behind,
    sog: fixed(boat.sogKn),
    vmg: fixed(boat.vmgKn),
  };
}

function recentManoeuvre(boat: AnalyticsBoat, analytics: Analytics): string {
  const manoeuvre = boat.lastManoeuvre;
  if (!manoeuvre) return "";
  const age = (Date.parse(analytics.dataAsOf) - Date.parse(manoeuvre.atUtc)) / 1000;
  return age >= 0 && age <= MARKER_SECONDS ? ({ tack: "TACK", gybe: "GYBE", penaltyTurn: "PENALTY" }[manoeuvre.kind] ?? "") : "";
}

/** The progress table equals the analytics answer at the moment it shows, row by row; the order table the live answer's. */
async function expectFiguresOfTheirMoments(shown: Shown, group: LiveGroup, gap: "time" | "distance"): Promise<Analytics> {
  expect(shown.progressAsOf).not.toBe("");
  const analytics = await analyticsAt(group.startGroupId, shown.progressAsOf);
  expect(analytics.boats.map((boat) => boat.entryId).sort()).toEqual(group.boats.map((boat) => boat.entryId).sort());
  expect(shown.progress.map((row) => row.entryId)).toEqual(analytics.boats.map((boat) => boat.entryId));
  for (const [i, boat] of analytics.boats.entries()) {
    expect(shown.progress[i]!.cells, boat.sailNumber).toEqual(expectedRow(boat, gap));
    expect(shown.progress[i]!.stale).toBe(boat.stale);
    expect(shown.progress[i]!.tag).toBe(recentManoeuvre(boat, analytics));
  }
  const live = await liveAt(shown.orderAsOf);
  const liveGroup = live.startGroups.find((g) => g.startGroupId === group.startGroupId)!;
  const sail = new Map(liveGroup.boats.map((boat) => [boat.entryId, boat.sailNumber]));
  // Every row of the leaderboard; one for a boat racing without a phone, which the live answer cannot name.
  expect(shown.order.map((row) => [row.cells.rank, row.cells.sail])).toEqual(
    liveGroup.liveOrder!.map((row) => [String(row.rank ?? "–"), sail.get(row.entryId) ?? "no tracker"]),
  );
  return analytics;
}

/** No label on another or on a mark's dot; each boat of the group one label, inside the chart, big enough, nothing drawn over it. */
function expectReadableLabels(shown: Shown, group: LiveGroup): void {
  const boxes = shown.labels.map((label) => label.box);
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) expect(intersects(a, b), `${shown.labels[i]!.text} overlaps another label`).toBe(false);
    for (const dot of shown.dots) expect(intersects(a, dot), `${shown.labels[i]!.text} sits on a mark`).toBe(false);
  }
  const inside = (box: Box) =>
    box.x >= shown.chart.x &&
    box.y >= shown.chart.y &&
    box.x + box.w <= shown.chart.x + shown.chart.w &&
    box.y + box.h <= shown.chart.y + shown.chart.h;
  for (const boat of group.boats) {
    const label = shown.labels.find((l) => l.entryId === boat.entryId);
    expect(label?.text.startsWith(boat.sailNumber), boat.sailNumber).toBe(true);
    expect(inside(label!.box), boat.sailNumber).toBe(true);
    expect(label!.box.h, boat.sailNumber).toBeGreaterThanOrEqual(14);
    expect(label!.onTop, `${boat.sailNumber} is covered`).toBe(true);
  }
  for (const step of group.course) {
    const text = step.kind === "start" ? "START" : step.kind === "finish" ? "FINISH" : step.label;
    expect(shown.labels.find((l) => l.text === text && l.entryId === null)?.onTop, `${text}`).toBe(true);
  }
}

describe("live, north-up, gaps in time", () => {
  let visited: Visit;
  let group: LiveGroup;
  let first: Shown;
  let analytics: Analytics;

  beforeAll(async () => {
    visited = await visit({});
    await untilDrawn(visited.page);
    first = await readShown(visited.page);
    const live = await liveAt(first.orderAsOf);
    group = live.startGroups.find((g) => g.name === "IRC 1")!;
  });
  afterAll(async () => {
    await visited.page.close();
  });

  it("shows each boat's leg, time behind the leader, speed and VMG as the analytics answer of that moment", async () => {
    // IRC 1 has 12 entries: one not approved (never served) and one without a phone (no
    // position, so no label and no analytics); the API serves the other 10.
    expect(group.boats.length).toBe(10);
    analytics = await expectFiguresOfTheirMoments(first, group, "time");
    expect(first.progress.filter((row) => row.cells.leg?.endsWith("UP")).length).toBeGreaterThan(0);
  });

  it("puts the live order beside the order by course progress, every boat in each, each labelled for what it is", () => {
    expect(first.progress.length).toBe(10);
    // The leaderboard's 11: the 10 tracked boats and the one racing without a phone.
    expect(first.order.length).toBe(11);
    expect(first.order.filter((row) => row.cells.sail === "no tracker").length).toBe(1);
    expect(first.headings).toEqual(["On the water by course progress · unofficial", "Live order leaderboard · unofficial"]);
  });

  it("greys out the boat whose phone went quiet, on the chart and in the table, and only it", () => {
    expect(analytics.boats.filter((boat) => boat.stale).map((boat) => boat.entryId)).toEqual([quietEntryId]);
    const quiet = first.boats.find((boat) => boat.entryId === quietEntryId)!;
    expect(quiet.stale).toBe(true);
    expect(quiet.opacity).toBeLessThan(0.6);
    expect(first.boats.filter((boat) => boat.stale).length).toBe(1);
    expect(first.progress.find((row) => row.entryId === quietEntryId)!.stale).toBe(true);
    expect(first.labels.find((label) => label.entryId === quietEntryId)).toBeDefined();
  });

  it("marks the boats that tacked or gybed in the last 75 s of the analytics' moment, and no others", async () => {
    const expected = analytics.boats.filter((boat) => recentManoeuvre(boat, analytics) !== "").map((boat) => boat.entryId);
    expect(
      first.boats
        .filter((boat) => boat.manoeuvring)
        .map((boat) => boat.entryId)
        .sort(),
    ).toEqual(expected.sort());
    for (const id of expected) expect(first.labels.find((label) => label.entryId === id)!.text).toMatch(/(TACK|GYBE|PENALTY)$/);
  });

  it("labels every boat of the group readably, none on another label or a mark's dot, state after state", async () => {
    expectReadableLabels(first, group);
    // The boats move: the next states are placed afresh.
    for (const _ of [1, 2]) {
      await visited.page.waitForFunction(`document.getElementById("order").dataset.asOf !== ${JSON.stringify(first.orderAsOf)}`);
      const later = await readShown(visited.page);
      const liveGroup = (await liveAt(later.orderAsOf)).startGroups.find((g) => g.startGroupId === group.startGroupId)!;
      expectReadableLabels(later, liveGroup);
    }
  });

  it("shows only IRC 1's insight lines in the ticker", async () => {
    const insights = await read<{ insights: Array<{ startGroupId: string; text: string }> }>("/live/insights?lang=en");
    const groups = new Set(insights.insights.map((line) => line.startGroupId));
    expect(groups.size).toBe(2); // lines of both groups exist
    await visited.page.locator("#ticker-text[data-insight-id]").waitFor();
    const shown = await readShown(visited.page);
    expect(shown.ticker.startGroupId).toBe(group.startGroupId);
    const own = insights.insights.filter((line) => line.startGroupId === group.startGroupId).map((line) => line.text);
    expect(own).toContain(shown.ticker.text);
  });

  it("saves a screenshot", async () => {
    await screenshot(visited.page, "overlay-on-air.png");
    expect(visited.errors).toEqual([]);
  });
});

describe("live, wind-up, gaps in metres", () => {
  it("turns the chart so the committee's wind comes from the top, and shows distances behind the leader", async () => {
    const visited = await visit({ chart: "wind-up", gap: "distance" });
    await untilDrawn(visited.page);
    const shown = await readShown(visited.page);
    const live = await liveAt(shown.orderAsOf);
    const group = live.startGroups.find((g) => g.name === "IRC 1")!;
    const twd = group.wind!.twd;
    expect(shown.orientation).toBe("WIND UP");
    expect(shown.windArrow).toBe("rotate(180)"); // blowing straight down the screen
    expect(shown.northArrow).toBe(`rotate(${-twd})`);
    // The course on screen is the course on the water turned by -twd: the start line's
    // middle to the first mark, drawn at its true bearing less the wind's direction.
    const start = group.course[0]!.marks;
    const mark = group.course[1]!.marks[0]!;
    const from = { lat: (start[0]!.lat + start[1]!.lat) / 2, lon: (start[0]!.lon + start[1]!.lon) / 2 };
    const bearing = bearingDeg(from, mark);
    const dots = shown.marks.map((m) => m.centre);
    const screenFrom: [number, number] = [(dots[0]![0] + dots[1]![0]) / 2, (dots[0]![1] + dots[1]![1]) / 2];
    const screen = (Math.atan2(dots[2]![0] - screenFrom[0], screenFrom[1] - dots[2]![1]) * 180) / Math.PI;
    expect(Math.abs(angle(screen - (bearing - twd)))).toBeLessThan(1.5);
    await expectFiguresOfTheirMoments(shown, group, "distance");
    expectReadableLabels(shown, group);
    await screenshot(visited.page, "overlay-wind-up.png");
    expect(visited.errors).toEqual([]);
    await visited.page.close();
  });
});

describe("a replay just after a tack", () => {
  it("marks the boat that tacked, on the chart and in the table", async () => {
    const live = await read<Live>("/live");
    const group = live.startGroups.find((g) => g.name === "IRC 1")!;
    const { manoeuvres } = await read<{ manoeuvres: Array<{ kind: string; atUtc: string; durationSeconds: number }> }>(
      `/analytics/manoeuvres?startGroupId=${group.startGroupId}&since=${group.startTimeUtc}`,
    );
    // Reported once its loss is known, 30 s after its end: 45 s after, it is on the page for half a minute more.
    const settled = Date.parse(live.dataAsOf) - 120_000;
    const tack = manoeuvres.filter((m) => m.kind === "tack" && Date.parse(m.atUtc) < settled).at(-1)!;
    const from = new Date(Date.parse(tack.atUtc) + (tack.durationSeconds + 45) * 1000).toISOString();
    const visited = await visit({ from, speed: "1" });
    await untilDrawn(visited.page);
    const shown = await readShown(visited.page);
    const analytics = await analyticsAt(group.startGroupId, shown.progressAsOf);
    const expected = analytics.boats.filter((boat) => recentManoeuvre(boat, analytics) === "TACK").map((boat) => boat.entryId);
    expect(expected.length).toBeGreaterThan(0);
    for (const id of expected) {
      expect(shown.boats.find((boat) => boat.entryId === id)!.manoeuvring).toBe(true);
      expect(shown.labels.find((label) => label.entryId === id)!.text).toMatch(/TACK$/);
      expect(shown.progress.find((row) => row.entryId === id)!.tag).toBe("TACK");
    }
    expectReadableLabels(shown, group);
    await screenshot(visited.page, "overlay-tack.png");
    expect(visited.errors).toEqual([]);
    await visited.page.close();
  });
});

describe("replay", () => {
  let visited: Visit;
  let gunMs: number;

  beforeAll(async () => {
    const live = await read<Live>("/live");
    gunMs = Date.parse(live.startGroups.find((g) => g.name === "IRC 1")!.startTimeUtc!);
    const from = new Date(gunMs + 60_000).toISOString();
    visited = await visit({ from, speed: String(REPLAY_SPEED) });
    await untilDrawn(visited.page);
  });
  afterAll(async () => {
    await visited.page.close();
  });

  const streamsOpened = () =>
    visited.requests.map((r) => new URL(r.url())).filter((url) => url.pathname === `/api/v1/races/${raceId}/live/stream`);

  it("opens the live stream from the start time at the speed asked for, and the analytics at the replayed moments", async () => {
    const [stream] = streamsOpened();
    expect(stream!.searchParams.get("from")).toBe(new Date(gunMs + 60_000).toISOString());
    expect(stream!.searchParams.get("speed")).toBe(String(REPLAY_SPEED));
    const analytics = visited.requests.map((r) => new URL(r.url())).filter((url) => url.pathname.endsWith("/analytics"));
    expect(analytics.length).toBeGreaterThan(0);
    for (const url of analytics) expect(Date.parse(url.searchParams.get("at")!) % 2000).toBe(0); // the replay's grid
    expect(visited.requests.some((r) => r.url().includes("/analytics/stream"))).toBe(false);
    const shown = await readShown(visited.page);
    expect(shown.badge).toBe(`REPLAY ${REPLAY_SPEED}×`);
    expect(shown.behindLive).toMatch(/^−\d+:\d\d behind live$/);
  });

  it("runs its clock at the chosen speed: faster than real time, never ahead of 20x since the replay was asked for", async () => {
    const clockAt = async () =>
      (await visited.page.evaluate(
        `({ wall: performance.now(), at: Date.parse(document.getElementById("replay-clock").dataset.at), openedAt: Number(document.getElementById("scrubber").dataset.openedAt) })`,
      )) as { wall: number; at: number; openedAt: number };
    const before = await clockAt();
    await visited.page.waitForTimeout(2500);
    const after = await clockAt();
    expect(after.at - before.at).toBeGreaterThan(2 * (after.wall - before.wall));
    // The server paces the states from the moment it was asked: the grid moment at or before `from`, then one per 2 s of race time every 2/20 s.
    const firstMoment = Math.floor((gunMs + 60_000) / 2000) * 2000;
    expect(after.at - firstMoment).toBeLessThanOrEqual(REPLAY_SPEED * (after.wall - after.openedAt) + 2000);
  });

  it("shows what the API answers for the moments it replays", async () => {
    const shown = await readShown(visited.page);
    const group = (await liveAt(shown.orderAsOf)).startGroups.find((g) => g.name === "IRC 1")!;
    expect(shown.replayAt).toBe(shown.orderAsOf);
    await expectFiguresOfTheirMoments(shown, group, "time");
    expectReadableLabels(shown, group);
  });

  it("keeps its clock running after a press on the thumb that does not move it", async () => {
    let landed = false;
    for (let tries = 0; tries < 5 && !landed; tries++) landed = await pressThumb();
    expect(landed).toBe(true);
    await clockPastOf(await replayClockAt());
  });

  it("seeks where the timeline is dragged to, and shows the API's answers from there", async () => {
    // Well clear of the thumb, which moves at 20x: a drag to where it already is changes nothing, so seeks nowhere.
    const { fraction: playing } = await thumbCentre();
    const target = await dragTimelineTo(playing < 0.7 ? playing + 0.2 : playing - 0.2);
    await visited.page.waitForFunction(
      `Date.parse(document.getElementById("progress").dataset.asOf || "0") >= ${target - 2000}`,
      undefined,
      {
        timeout: 20_000,
      },
    );
    const reopened = streamsOpened().at(-1)!;
    const from = Date.parse(reopened.searchParams.get("from")!);
    expect(Math.abs(from - target)).toBeLessThanOrEqual(2000);
    const shown = await readShown(visited.page);
    expect(Date.parse(shown.orderAsOf)).toBeGreaterThanOrEqual(from - 2000);
    const group = (await liveAt(shown.orderAsOf)).startGroups.find((g) => g.name === "IRC 1")!;
    await expectFiguresOfTheirMoments(shown, group, "time");
    await screenshot(visited.page, "overlay-replay.png");
  });

  it("catches up into live, then reads the analytics stream", async () => {
    await dragTimelineTo(0.985);
    await visited.page.locator("#mode-badge", { hasText: "LIVE" }).waitFor({ timeout: 30_000 });
    await visited.page.locator("#behind-live", { hasText: "LIVE" }).waitFor();
    await visited.page.waitForFunction(`document.getElementById("progress").dataset.asOf !== ""`, undefined, { timeout: 20_000 });
    expect(visited.requests.some((r) => r.url().includes("/analytics/stream"))).toBe(true);
    expect(visited.errors).toEqual([]);
  });

  const replayClockAt = async () =>
    (await visited.page.evaluate(`Date.parse(document.getElementById("replay-clock").dataset.at)`)) as number;
  const clockPastOf = (ms: number) =>
    visited.page.waitForFunction(`Date.parse(document.getElementById("replay-clock").dataset.at) > ${ms}`, undefined, { timeout: 10_000 });

  /** The timeline's range, where the thumb is on it (a fraction), and where on the screen. */
  async function thumbCentre() {
    const { min, max, value } = (await visited.page.evaluate(
      `(({ min, max, value }) => ({ min: Number(min), max: Number(max), value: Number(value) }))(document.getElementById("scrubber"))`,
    )) as { min: number; max: number; value: number };
    const box = (await visited.page.locator("#scrubber").boundingBox())!;
    // The thumb's travel is the track less the thumb's own width (about 16 px).
    const xOf = (v: number) => box.x + 8 + ((v - min) / (max - min)) * (box.width - 16);
    return { min, max, fraction: (value - min) / (max - min), x: xOf(value), y: box.y + box.height / 2, xOf };
  }

  const seekedTo = async () => (await visited.page.evaluate(`document.getElementById("scrubber").dataset.seekedTo`)) as string | undefined;

  /**
   * Presses the thumb and lets go without moving; whether the press landed on it. The thumb steps
   * forward once a second by more than its width, so the press follows a step, and one that lands
   * beside it (the thumb jumps there, a seek) can happen on a busy machine.
   */
  async function pressThumb(): Promise<boolean> {
    await clockPastOf(await replayClockAt());
    const before = await seekedTo();
    const { x, y } = await thumbCentre();
    await visited.page.mouse.click(x, y);
    return (await seekedTo()) === before;
  }

  /** Drags the timeline's thumb with the mouse to `fraction` of its track; the moment that is. */
  async function dragTimelineTo(fraction: number): Promise<number> {
    const { min, max, x, y, xOf } = await thumbCentre();
    const before = await seekedTo();
    await visited.page.mouse.move(x, y);
    await visited.page.mouse.down();
    await visited.page.mouse.move(xOf(min + fraction * (max - min)), y, { steps: 8 });
    await visited.page.mouse.up();
    const after = await seekedTo();
    expect(after).not.toBe(before);
    const seeked = Date.parse(after!);
    expect(Math.abs(seeked - (min + fraction * (max - min)))).toBeLessThan((max - min) / 50);
    return seeked;
  }
});

function bearingDeg(from: { lat: number; lon: number }, to: { lat: number; lon: number }): number {
  const cos = Math.cos((((from.lat + to.lat) / 2) * Math.PI) / 180);
  return (Math.atan2((to.lon - from.lon) * cos, to.lat - from.lat) * 180) / Math.PI;
}

function angle(degrees: number): number {
  return ((((degrees + 180) % 360) + 360) % 360) - 180;
}
