// GET /api/v1/races/{raceId}/live/insights and LiveInsightsService.GetLiveInsights:
// generation on the first call, stable ids across calls and instances, one generation
// per minute whichever instance asks, languages, delay, and a race that is not live.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scenario } from "../../src/domain/scenario.js";
import { useFreshDatabase } from "../support/database.js";
import { bearer, CLUB, connectCall, identityScenario, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { startChatCompletionsServer, type ChatCompletionsServer } from "../support/chat-completions-server.js";
import { entry, iso, MINUTE, sharedEvent, track, uuid } from "../support/race-scenarios.js";

const db = useFreshDatabase();
const NOW = Math.floor(Date.now() / 1000) * 1000;
const GUN = NOW - 20 * MINUTE;
const [A, B, C] = [uuid("b1000000", 1), uuid("b1000000", 2), uuid("b1000000", 3)];
const LIVE_RACE = uuid("a2000000", 1);
const DELAYED_RACE = uuid("a2000000", 2);
const QUIET_RACE = uuid("a2000000", 3);
const MODEL_RACE = uuid("a2000000", 4);
const BROKEN_MODEL_RACE = uuid("a2000000", 5);
const GUSTY_RACE = uuid("a2000000", 6);
const GROUP = uuid("c2000000", 1);
const MARK = { lat: 50.8, lon: -1.3 };
const METRE = 1 / 111_320; // degrees of latitude

/** One group of three boats with a lead change, a rounding, a wind shift and a finish in the last 15 minutes. */
function eventfulRace(raceId: string, groupId: string, isLive = true) {
  return {
    id: raceId,
    raceNo: 1,
    name: "Race 1",
    isLive,
    startGroups: [
      {
        id: groupId,
        name: "Fleet A",
        state: "Started" as const,
        startTimeUtc: iso(GUN),
        entryIds: [A, B, C],
        courses: [
          {
            version: 1,
            appliedFromUtc: iso(GUN - 10 * MINUTE),
            steps: [
              {
                kind: "start" as const,
                marks: [
                  { key: "pin", ...MARK },
                  { key: "boat", lat: MARK.lat, lon: MARK.lon + 0.002 },
                ],
              },
              { kind: "mark" as const, label: "Windward", marks: [{ key: "W", lat: MARK.lat + 0.02, lon: MARK.lon }] },
            ],
          },
        ],
        liveOrder: [
          // An old lead change (18 minutes ago) that must not be shown.
          {
            asOfUtc: iso(NOW - 19 * MINUTE),
            rows: [
              { entryId: C, rank: 1 },
              { entryId: A, rank: 2 },
              { entryId: B, rank: 3 },
            ],
          },
          {
            asOfUtc: iso(NOW - 18 * MINUTE),
            rows: [
              { entryId: A, rank: 1 },
              { entryId: C, rank: 2 },
              { entryId: B, rank: 3 },
            ],
          },
          {
            asOfUtc: iso(NOW - 4 * MINUTE),
            rows: [
              { entryId: A, rank: 1 },
              { entryId: B, rank: 2 },
              { entryId: C, rank: 3 },
            ],
          },
          {
            asOfUtc: iso(NOW - 2 * MINUTE),
            rows: [
              { entryId: B, rank: 1 },
              { entryId: A, rank: 2 },
              { entryId: C, rank: 3 },
            ],
          },
        ],
        wind: [
          { measuredAtUtc: iso(NOW - 8 * MINUTE), twd: 200, tws: 10 },
          { measuredAtUtc: iso(NOW - 3 * MINUTE), twd: 215, tws: 10 },
        ],
        finishes: [{ entryId: C, finishTimeUtc: iso(NOW - MINUTE) }],
        tracks: [
          // A starts (across the line from below, after the gun), then sails up to the windward mark, inside 50 m at NOW - 5 min.
          track(A, [
            { t: GUN + MINUTE, lat: MARK.lat - 50 * METRE, lon: MARK.lon + 0.001 },
            { t: GUN + 2 * MINUTE, lat: MARK.lat + 100 * METRE, lon: MARK.lon + 0.001 },
            { t: NOW - 7 * MINUTE, lat: MARK.lat + 0.02 - 600 * METRE, lon: MARK.lon },
            { t: NOW - 6 * MINUTE, lat: MARK.lat + 0.02 - 300 * METRE, lon: MARK.lon },
            { t: NOW - 5 * MINUTE, lat: MARK.lat + 0.02 - 20 * METRE, lon: MARK.lon },
            { t: NOW - 4 * MINUTE, lat: MARK.lat + 0.02 + 200 * METRE, lon: MARK.lon },
          ]),
          track(B, [{ t: NOW - 5 * MINUTE, lat: MARK.lat, lon: MARK.lon }]),
          track(C, [{ t: NOW - 5 * MINUTE, lat: MARK.lat, lon: MARK.lon + 0.001 }]),
        ],
      },
    ],
  };
}

/** A committee swinging 20 degrees every 20 s: 44 wind shifts in the last 15 minutes. */
function gustyRace() {
  const race = eventfulRace(GUSTY_RACE, uuid("c2000000", 6));
  race.raceNo = 6;
  race.startGroups[0]!.wind = Array.from({ length: 45 }, (_, i) => ({
    measuredAtUtc: iso(NOW - 14.9 * MINUTE + i * 20_000),
    twd: i % 2 === 0 ? 200 : 220,
    tws: 10,
  }));
  return race;
}

function scenario(): Scenario {
  const s = identityScenario();
  const entries = [entry(A, "GBR 9", "Aurora"), entry(B, "GBR 10", "Borealis"), entry(C, "GBR 11", "Cirrus")];
  s.events = [
    sharedEvent(uuid("e2000000", 1), CLUB, {
      entries,
      races: [
        eventfulRace(LIVE_RACE, GROUP),
        { ...eventfulRace(QUIET_RACE, uuid("c2000000", 3), false), startGroups: [] },
        { ...eventfulRace(MODEL_RACE, uuid("c2000000", 4)), raceNo: 4 },
        { ...eventfulRace(BROKEN_MODEL_RACE, uuid("c2000000", 5)), raceNo: 5 },
        gustyRace(),
      ],
    }),
    sharedEvent(uuid("e2000000", 2), CLUB, {
      delaySeconds: 150,
      entries: entries.map((e) => ({ ...e, id: e.id.replace("b1", "b2") })),
      races: [],
    }),
  ];
  // The delayed event's race: the same story, its entries renamed.
  const delayed = JSON.parse(
    JSON.stringify(eventfulRace(DELAYED_RACE, uuid("c2000000", 2))).replaceAll("b1000000", "b2000000"),
  ) as ReturnType<typeof eventfulRace>;
  s.events[1]!.races.push(delayed);
  return s;
}

interface InsightJson {
  id: string;
  kind: string;
  startGroupId: string;
  startGroupName: string;
  atUtc: string;
  text: string;
  source: string;
  boats: Array<{ entryId: string; sailNumber: string; boatName: string }>;
  markLabel: string | null;
  rank: number | null;
  placesGained: number | null;
  twdFrom: number | null;
  twdTo: number | null;
  twsFrom: number | null;
  twsTo: number | null;
}
interface InsightsJson {
  raceId: string;
  eventId: string;
  isLive: boolean;
  lang: string;
  delaySeconds: number;
  dataAsOf: string;
  generatedAtUtc: string | null;
  insights: InsightJson[];
}

let api: Api;
let second: Api;
let token: string;
beforeAll(async () => {
  await seedIdentities(db, scenario());
  [api, second] = await Promise.all([startApi(db), startApi(db)]);
  token = await tokenFor(api.url, "overlay");
});
afterAll(async () => {
  await api?.close();
  await second?.close();
});

async function insights(target: Api, raceId: string, lang?: string): Promise<{ body: InsightsJson; response: Response }> {
  const response = await fetch(
    `${target.url}/api/v1/races/${raceId}/live/insights${lang === undefined ? "" : `?lang=${encodeURIComponent(lang)}`}`,
    { headers: bearer(token) },
  );
  expect(response.status).toBe(200);
  return { body: (await response.json()) as InsightsJson, response };
}

describe("a live race's insights", () => {
  let first: InsightsJson;
  beforeAll(async () => {
    first = (await insights(api, LIVE_RACE)).body;
  });

  it("are generated on the first call: the facts of the last 15 minutes, newest first", () => {
    expect(first).toMatchObject({ raceId: LIVE_RACE, isLive: true, lang: "en", delaySeconds: 0 });
    expect(first.generatedAtUtc).not.toBeNull();
    expect(Date.parse(first.dataAsOf)).toBe(Date.parse(first.generatedAtUtc!));
    const times = first.insights.map((i) => Date.parse(i.atUtc));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const kinds = first.insights.map((i) => [i.kind, i.atUtc]).sort(([, a], [, b]) => b!.localeCompare(a!));
    // B went from 3rd (the reading before the window) to 1st: a lead change and a gain of 2 places.
    expect(kinds).toEqual(
      expect.arrayContaining([
        ["finish", iso(NOW - MINUTE)],
        ["leadChange", iso(NOW - 2 * MINUTE)],
        ["gain", iso(NOW - 2 * MINUTE)],
        ["windShift", iso(NOW - 3 * MINUTE)],
        ["markRounding", iso(NOW - 5 * MINUTE)],
      ]),
    );
    expect(kinds).toHaveLength(5);
  });

  it("carry every field, nulls present, boats in the kind's order", () => {
    const byKind = Object.fromEntries(first.insights.map((i) => [i.kind, i]));
    const boat = (id: string, sail: string, name: string) => ({ entryId: id, sailNumber: sail, boatName: name });
    expect(byKind.leadChange).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      kind: "leadChange",
      startGroupId: GROUP,
      startGroupName: "Fleet A",
      atUtc: iso(NOW - 2 * MINUTE),
      text: expect.any(String),
      source: "template",
      boats: [boat(B, "GBR 10", "Borealis"), boat(A, "GBR 9", "Aurora")],
      markLabel: null,
      rank: null,
      placesGained: null,
      twdFrom: null,
      twdTo: null,
      twsFrom: null,
      twsTo: null,
    });
    expect(byKind.markRounding).toMatchObject({ boats: [boat(A, "GBR 9", "Aurora")], markLabel: "Windward" });
    expect(byKind.windShift).toMatchObject({ boats: [], twdFrom: 200, twdTo: 215, twsFrom: 10, twsTo: 10 });
    expect(byKind.finish).toMatchObject({ boats: [boat(C, "GBR 11", "Cirrus")], rank: 3 });
    expect(byKind.gain).toMatchObject({ boats: [boat(B, "GBR 10", "Borealis")], rank: 1, placesGained: 2 });
    for (const insight of first.insights) {
      expect(insight.text.length).toBeLessThanOrEqual(160);
      for (const b of insight.boats) expect(insight.text).toContain(b.sailNumber);
    }
  });

  it("keep their ids and generation on later calls and on another instance (one generation a minute in all)", async () => {
    const again = (await insights(api, LIVE_RACE)).body;
    const elsewhere = (await insights(second, LIVE_RACE)).body;
    for (const other of [again, elsewhere]) {
      expect(other.generatedAtUtc).toBe(first.generatedAtUtc);
      expect(other.insights.map((i) => i.id)).toEqual(first.insights.map((i) => i.id));
    }
  });

  it("are phrased in the asked language, region and case ignored; anything else is English", async () => {
    const german = (await insights(api, LIVE_RACE, "DE-at")).body;
    expect(german.lang).toBe("de");
    expect(german.insights.map((i) => i.id)).toEqual(first.insights.map((i) => i.id));
    expect(german.insights.map((i) => i.text)).not.toEqual(first.insights.map((i) => i.text));
    for (const lang of ["xx", "", "pt-BR", "no", "de_DE", "de.UTF-8", " de", "x".repeat(5000)])
      expect((await insights(api, LIVE_RACE, lang)).body.lang).toBe("en");
  });

  it("never answer 400 for lang, even repeated: the first one counts", async () => {
    const response = await fetch(`${api.url}/api/v1/races/${LIVE_RACE}/live/insights?lang=fr&lang=de`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    expect(((await response.json()) as InsightsJson).lang).toBe("fr");
  });

  it("say until when they are current (max-age up to 60 s) and their dataAsOf", async () => {
    const { response, body } = await insights(api, LIVE_RACE);
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get("cache-control")!)![1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(60);
    expect(response.headers.get("x-data-as-of")).toBe(body.dataAsOf);
  });

  it("answer the same over Connect", async () => {
    const response = await connectCall(
      api.url,
      "racing.v1.LiveInsightsService/GetLiveInsights",
      { raceId: LIVE_RACE, lang: "en" },
      bearer(token),
    );
    const body = (await response.json()) as { insights: Array<{ id: string; kind: string }> };
    expect(body.insights.map((i) => i.id)).toEqual(first.insights.map((i) => i.id));
    expect(body.insights[0]!.kind).toBe("INSIGHT_KIND_FINISH");
  });
});

describe("a busy race's insights", () => {
  it("hold at most 30, the newest", async () => {
    const { body } = await insights(api, GUSTY_RACE);
    expect(body.insights).toHaveLength(30);
    const times = body.insights.map((i) => Date.parse(i.atUtc));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // The newest reading is at NOW - 14.9 min + 44 x 20 s; nothing newer than it was dropped for an older one.
    expect(times[0]).toBe(NOW - 14.9 * MINUTE + 44 * 20_000);
  });
});

describe("a delayed race's insights", () => {
  it("never show a fact newer than dataAsOf = generation time minus the delay", async () => {
    const { body } = await insights(api, DELAYED_RACE);
    expect(body.delaySeconds).toBe(150);
    expect(Date.parse(body.dataAsOf)).toBe(Date.parse(body.generatedAtUtc!) - 150_000);
    // The finish (1 min ago) and the lead change (2 min ago) are newer than dataAsOf (2.5 min ago).
    expect(body.insights.map((i) => i.kind)).toEqual(["windShift", "markRounding"]);
    for (const insight of body.insights) expect(Date.parse(insight.atUtc)).toBeLessThanOrEqual(Date.parse(body.dataAsOf));
  });
});

describe("a race that is not live", () => {
  it("answers isLive false, no insights and no generation time", async () => {
    const { body } = await insights(api, QUIET_RACE, "fr");
    expect(body).toMatchObject({ raceId: QUIET_RACE, isLive: false, lang: "fr", generatedAtUtc: null, insights: [] });
  });
});

describe("model phrasing through a chat-completions server", () => {
  let good: ChatCompletionsServer;
  let broken: ChatCompletionsServer;
  let withModel: Api;
  let withBrokenModel: Api;
  beforeAll(async () => {
    // A model that answers one sentence per requested fact, naming its boats by sail number.
    good = await startChatCompletionsServer((request) => {
      const { facts } = JSON.parse(request.body!.messages!.find((m) => m.role === "user")!.content) as {
        facts: Array<{ id: string; kind: string; boats: Array<{ sailNumber: string }> }>;
      };
      const lines = Object.fromEntries(
        facts.map((f) => [f.id, `Model says: ${f.kind} for ${f.boats.map((b) => b.sailNumber).join(" and ") || "the fleet"}.`]),
      );
      return { content: JSON.stringify(lines) };
    });
    broken = await startChatCompletionsServer(() => ({ status: 500, body: "overloaded" }));
    const model = (url: string) => ({ insightsModel: { url, model: "test-model", quotaPerHour: 10, timeoutMs: 2000 } });
    [withModel, withBrokenModel] = await Promise.all([startApi(db, model(good.url)), startApi(db, model(broken.url))]);
  });
  afterAll(async () => {
    await withModel?.close();
    await withBrokenModel?.close();
    await good?.close();
    await broken?.close();
  });

  it("uses the model's lines when they pass the checks", async () => {
    const { body } = await insights(withModel, MODEL_RACE, "nb");
    expect(body.insights.length).toBe(5);
    for (const insight of body.insights) {
      expect(insight.source).toBe("model");
      expect(insight.text).toMatch(/^Model says: /);
    }
    expect(good.requests).toHaveLength(1);
    expect(good.requests[0]!.body!.messages!.map((m) => m.content).join(" ")).toMatch(/Bokmål|Norwegian/);
  });

  it("falls back to template lines when the model fails", async () => {
    const { body } = await insights(withBrokenModel, BROKEN_MODEL_RACE);
    expect(broken.requests.length).toBeGreaterThan(0);
    expect(body.insights.length).toBe(5);
    for (const insight of body.insights) {
      expect(insight.source).toBe("template");
      expect(insight.text).not.toMatch(/^Model says/);
    }
  });
});
