import { afterEach, describe, expect, it } from "vitest";
import { NO_DETAILS, type BoatRef, type Fact, type InsightKind } from "../../src/domain/facts.js";
import { factId } from "../../src/insights/fact-id.js";
import { acceptableModelLine, ModelPhraser, type ModelConfig } from "../../src/insights/model-phrasing.js";
import {
  startChatCompletionsServer,
  type ChatHandler,
  type ChatReply,
  type ChatRequest,
  type ChatCompletionsServer,
} from "../support/chat-completions-server.js";

const RACE = "a0000000-0000-4000-8000-000000000001";
const GROUP = "b0000000-0000-4000-8000-000000000001";
const T0 = Date.parse("2025-06-01T12:00:00Z");

const boat = (n: number, sailNumber: string, boatName: string): BoatRef => ({
  entryId: `e0000000-0000-4000-8000-00000000000${n}`,
  sailNumber,
  boatName,
});
const SPRAY = boat(1, "GBR 1234", "Spray");
const DR_NO = boat(2, "USA 7", "Dr. No");
const MISTRAL = boat(3, "FRA 12", "Mistral");

function fact(kind: InsightKind, boats: BoatRef[], fields: Partial<Fact> = {}, atMs = T0): Fact {
  return {
    id: factId({ raceId: RACE, startGroupId: GROUP, kind, entryIds: boats.map((b) => b.entryId), atMs }),
    kind,
    startGroupId: GROUP,
    startGroupName: "ILCA 7",
    atMs,
    boats,
    ...NO_DETAILS,
    ...fields,
  };
}

const LEAD = fact("leadChange", [SPRAY, DR_NO]);
const ROUNDING = fact("markRounding", [MISTRAL], { markLabel: "Windward 1" });
const GAIN = fact("gain", [DR_NO], { rank: 2, placesGained: 3 });
const FINISH = fact("finish", [SPRAY], { rank: 1 });
const WIND = fact("windShift", [], { twdFrom: 240, twdTo: 255, twsFrom: 12.5, twsTo: 16 });
const FACTS = [LEAD, ROUNDING, GAIN, FINISH, WIND];

// ---- acceptableModelLine ----

describe("acceptableModelLine", () => {
  it("accepts one plain sentence naming every boat by sail number", () => {
    expect(acceptableModelLine(LEAD, "GBR 1234 Spray takes the lead from USA 7 Dr. No.")).toBe(true);
    expect(acceptableModelLine(ROUNDING, "FRA 12 Mistral rounds Windward 1!")).toBe(true);
    expect(acceptableModelLine(WIND, "The wind veers from 240 to 255 degrees and builds from 12.5 to 16 knots.")).toBe(true);
    expect(acceptableModelLine(FINISH, 'GBR 1234 crosses the line first, "unofficially".')).toBe(true);
  });

  it("accepts other scripts and German or Norwegian ordinals", () => {
    expect(acceptableModelLine(GAIN, "USA 7 hat drei Plätze gutgemacht und liegt jetzt auf dem 2. Platz.")).toBe(true);
    expect(acceptableModelLine(GAIN, "USA 7 har tatt inn tre plasser og ligger nå på 2. plass.")).toBe(true);
    expect(acceptableModelLine(LEAD, "GBR 1234 обходит USA 7 и выходит в лидеры.")).toBe(true);
    expect(acceptableModelLine(LEAD, "Το GBR 1234 περνά το USA 7 και παίρνει την πρωτοπορία.")).toBe(true);
  });

  it("accepts the sail number with other spacing or case", () => {
    expect(acceptableModelLine(ROUNDING, "FRA\u00a012 contourne la marque Windward 1.")).toBe(true);
    expect(acceptableModelLine(ROUNDING, "FRA12 rounds Windward 1.")).toBe(true);
    expect(acceptableModelLine(ROUNDING, "fra 12 rounds Windward 1.")).toBe(true);
  });

  it("allows 160 characters and refuses 161", () => {
    const start = "GBR 1234 takes the lead from USA 7 ";
    const exactly = (n: number) => `${start}${"a".repeat(n - start.length - 1)}.`;
    expect(exactly(160)).toHaveLength(160);
    expect(acceptableModelLine(LEAD, exactly(160))).toBe(true);
    expect(acceptableModelLine(LEAD, exactly(161))).toBe(false);
  });

  it("refuses more or less than one sentence", () => {
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead. USA 7 drops to second.")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead from USA 7! What a move.")).toBe(false);
    expect(acceptableModelLine(LEAD, "What a move? GBR 1234 passes USA 7.")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead from USA 7… for now.")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead from USA 7")).toBe(false);
    expect(acceptableModelLine(LEAD, "")).toBe(false);
  });

  it("refuses a line that omits a boat, or names it only inside a longer number", () => {
    expect(acceptableModelLine(LEAD, "GBR 1234 Spray takes the lead.")).toBe(false);
    expect(acceptableModelLine(LEAD, "Spray takes the lead from Dr. No.")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead from USA 77.")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 12345 takes the lead from USA 7.")).toBe(false);
  });

  it("refuses line breaks, control characters, surrounding space and markup", () => {
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead\nfrom USA 7.")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead\r from USA 7.")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead\tfrom USA 7.")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead\u2028from USA 7.")).toBe(false);
    expect(acceptableModelLine(LEAD, " GBR 1234 takes the lead from USA 7.")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead from USA 7. ")).toBe(false);
    expect(acceptableModelLine(LEAD, "**GBR 1234** takes the lead from USA 7.")).toBe(false);
    expect(acceptableModelLine(LEAD, "<b>GBR 1234</b> takes the lead from USA 7.")).toBe(false);
    expect(acceptableModelLine(LEAD, "`GBR 1234` takes the lead from USA 7.")).toBe(false);
    expect(acceptableModelLine(LEAD, "# GBR 1234 takes the lead from USA 7.")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead from [USA 7](https://example.com).")).toBe(false);
    expect(acceptableModelLine(LEAD, "GBR 1234 takes the lead from {boat} USA 7.")).toBe(false);
  });

  it("does not hold the fact's own names against the line", () => {
    const odd = fact("markRounding", [boat(4, "NOR 5", "*Star* | St. Olav")], { markLabel: "Gate [3s/3p]" });
    expect(acceptableModelLine(odd, "NOR 5 *Star* | St. Olav rounds Gate [3s/3p].")).toBe(true);
    expect(acceptableModelLine(odd, "NOR 5 *Star* rounds the gate.")).toBe(false);
  });
});

// ---- ModelPhraser against real chat-completions servers ----

interface RequestedFact {
  id: string;
  kind: string;
  boats: { role: string; sailNumber: string; boatName: string }[];
  [field: string]: unknown;
}

function requestedFacts(request: ChatRequest): RequestedFact[] {
  const user = request.body?.messages?.find((m) => m.role === "user");
  return (JSON.parse(user?.content ?? "{}") as { facts: RequestedFact[] }).facts;
}

/** What a well-behaved model answers: one sentence per requested fact, built from the request. */
function goodSentence(f: RequestedFact): string {
  const sails = f.boats.map((b) => `${b.sailNumber} ${b.boatName}`);
  switch (f.kind) {
    case "leadChange":
      return `${sails[0]} takes the lead from ${sails[1]}.`;
    case "markRounding":
      return `${sails[0]} rounds ${String(f.markLabel)}.`;
    case "gain":
      return `${sails[0]} gains ${String(f.placesGained)} places and is now ${String(f.rank)}.`;
    case "finish":
      return `${sails[0]} finishes in place ${String(f.rank)}.`;
    default:
      return `The wind shifts from ${String(f.twdFrom)} to ${String(f.twdTo)} degrees.`;
  }
}

function goodLines(request: ChatRequest): Record<string, string> {
  return Object.fromEntries(requestedFacts(request).map((f) => [f.id, goodSentence(f)]));
}

const good: ChatHandler = (request) => ({ content: JSON.stringify(goodLines(request)) });

/** Good lines, except those `spoil` changes for a fact id (undefined: left out). */
function spoiled(spoil: (lines: Record<string, string>) => Record<string, string>): ChatHandler {
  return (request) => ({ content: JSON.stringify(spoil(goodLines(request))) });
}

const expectedGood = new Map(
  FACTS.map((f) => [
    f.id,
    goodSentence({
      ...f,
      boats: f.boats.map((b) => ({ role: "", sailNumber: b.sailNumber, boatName: b.boatName })),
    } as unknown as RequestedFact),
  ]),
);

const servers: ChatCompletionsServer[] = [];
async function serve(handler: ChatHandler): Promise<ChatCompletionsServer> {
  const server = await startChatCompletionsServer(handler);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function phraserFor(server: ChatCompletionsServer, config: Partial<ModelConfig> = {}, now?: () => number) {
  const warnings: { obj: object; msg: string }[] = [];
  const phraser = new ModelPhraser(
    { url: server.url, model: "race-writer-1", apiKey: "test-key", quotaPerHour: 100, timeoutMs: 2000, ...config },
    { logger: { warn: (obj, msg) => warnings.push({ obj, msg }) }, ...(now ? { now } : {}) },
  );
  return { phraser, warnings };
}

describe("ModelPhraser", () => {
  it("sends one chat-completions request naming the model, key, language and every fact", async () => {
    const server = await serve(good);
    const { phraser, warnings } = phraserFor(server);

    const lines = await phraser.phrase(FACTS, "de");

    expect(lines).toEqual(expectedGood);
    expect(warnings).toEqual([]);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer test-key");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.body?.model).toBe("race-writer-1");
    expect(request?.body?.temperature).toBe(0.3);
    expect(request?.body?.messages?.map((m) => m.role)).toEqual(["system", "user"]);
    expect(request?.body?.messages?.[0]?.content).toContain("German");
    expect(request?.body?.messages?.[0]?.content).toContain("160 characters");

    const sent = requestedFacts(request as ChatRequest);
    expect(sent.map((f) => f.id)).toEqual(FACTS.map((f) => f.id));
    expect(sent[0]).toEqual({
      id: LEAD.id,
      kind: "leadChange",
      startGroup: "ILCA 7",
      boats: [
        { role: "newLeader", sailNumber: "GBR 1234", boatName: "Spray" },
        { role: "previousLeader", sailNumber: "USA 7", boatName: "Dr. No" },
      ],
    });
    expect(sent[1]).toMatchObject({ kind: "markRounding", markLabel: "Windward 1" });
    expect(sent[2]).toMatchObject({ kind: "gain", rank: 2, placesGained: 3 });
    expect(sent[3]).toMatchObject({ kind: "finish", rank: 1 });
    expect(sent[4]).toEqual({
      id: WIND.id,
      kind: "windShift",
      startGroup: "ILCA 7",
      boats: [],
      twdFrom: 240,
      twdTo: 255,
      twsFrom: 12.5,
      twsTo: 16,
      windTurn: "veer",
    });
    expect(request?.body?.messages?.[0]?.content).toContain("360°, never 0°");
  });

  it("tells the model which way the wind turned, with north as 360", async () => {
    const server = await serve(good);
    const acrossNorth = fact("windShift", [], { twdFrom: 10, twdTo: 0, twsFrom: null, twsTo: null });
    const veering = fact("windShift", [], { twdFrom: 350, twdTo: 5, twsFrom: null, twsTo: null }, T0 + 60_000);
    await phraserFor(server).phraser.phrase([acrossNorth, veering], "en");
    const sent = requestedFacts(server.requests[0] as ChatRequest);
    expect(sent[0]).toMatchObject({ twdFrom: 10, twdTo: 360, windTurn: "back" });
    expect(sent[1]).toMatchObject({ twdFrom: 350, twdTo: 5, windTurn: "veer" });
  });

  it("sends no authorization header without a key, and names each language", async () => {
    const server = await serve(good);
    const { phraser } = phraserFor(server, { apiKey: undefined });
    for (const lang of ["en", "tr", "el", "nb"]) await phraser.phrase([GAIN], lang);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([undefined, undefined, undefined, undefined]);
    const languages = server.requests.map((r) => (JSON.parse(r.body?.messages?.[1]?.content ?? "{}") as { language: string }).language);
    expect(languages).toEqual(["English", "Turkish (Türkçe)", "Greek (Ελληνικά)", "Norwegian Bokmål (norsk bokmål)"]);
  });

  it("does not call the model for no facts", async () => {
    const server = await serve(good);
    const { phraser } = phraserFor(server);
    expect(await phraser.phrase([], "en")).toEqual(new Map());
    expect(server.requests).toHaveLength(0);
  });

  it("accepts JSON in a code fence, and words around the object", async () => {
    const fenced = await serve((request) => ({ content: `\`\`\`json\n${JSON.stringify(goodLines(request), null, 2)}\n\`\`\`` }));
    expect(await phraserFor(fenced).phraser.phrase(FACTS, "en")).toEqual(expectedGood);
    const chatty = await serve((request) => ({ content: `Here are the lines:\n${JSON.stringify(goodLines(request))}\nEnjoy the race!` }));
    expect(await phraserFor(chatty).phraser.phrase(FACTS, "en")).toEqual(expectedGood);
  });

  it("gives up at the timeout and returns no lines", async () => {
    const slow = await serve(async (request): Promise<ChatReply> => {
      await Promise.race([request.closed, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      return { content: JSON.stringify(goodLines(request)) };
    });
    const { phraser, warnings } = phraserFor(slow, { timeoutMs: 300 });
    const started = Date.now();
    const lines = await phraser.phrase(FACTS, "en");
    const took = Date.now() - started;
    expect(lines).toEqual(new Map());
    expect(slow.requests).toHaveLength(1);
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(3000);
    expect(warnings).toEqual([{ obj: { lang: "en", facts: 5, error: "timed out" }, msg: expect.stringContaining("failed") }]);
  });

  it.each<[string, ChatReply]>([
    ["a 500", { status: 500, body: '{"error":{"message":"overloaded"}}' }],
    ["a 429", { status: 429, body: '{"error":{"message":"rate limited"}}' }],
    ["a body that is not JSON", { status: 200, body: "<html>gateway</html>", contentType: "text/html" }],
    ["a completion without choices", { status: 200, body: '{"object":"chat.completion","choices":[]}' }],
    ["content that is not JSON", { content: "Sure! GBR 1234 takes the lead from USA 7." }],
    ["content that is a JSON array", { content: '["GBR 1234 takes the lead from USA 7."]' }],
  ])("returns no lines for %s", async (_name, reply) => {
    const server = await serve(() => reply);
    const { phraser, warnings } = phraserFor(server);
    await expect(phraser.phrase(FACTS, "en")).resolves.toEqual(new Map());
    expect(server.requests).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain("failed");
  });

  it("returns no lines, without throwing, when nothing listens", async () => {
    const server = await serve(good);
    const url = server.url;
    await servers.pop()?.close();
    const { phraser, warnings } = phraserFor({ ...server, url });
    await expect(phraser.phrase(FACTS, "en")).resolves.toEqual(new Map());
    expect(warnings[0]?.obj).toMatchObject({ lang: "en", error: expect.stringContaining("fetch failed") });
  });

  it.each<[string, (lines: Record<string, string>) => Record<string, string>]>([
    [
      "over 160 characters",
      (lines) => ({ ...lines, [LEAD.id]: `GBR 1234 takes the lead from USA 7 ${"after a long and patient beat ".repeat(5)}.` }),
    ],
    ["two sentences", (lines) => ({ ...lines, [LEAD.id]: "GBR 1234 takes the lead. USA 7 falls back." })],
    ["a boat left out", (lines) => ({ ...lines, [LEAD.id]: "GBR 1234 Spray takes the lead." })],
    ["a line break", (lines) => ({ ...lines, [LEAD.id]: "GBR 1234 takes the lead\nfrom USA 7." })],
    ["not a string", (lines) => ({ ...lines, [LEAD.id]: { text: lines[LEAD.id] } as unknown as string })],
    ["missing", (lines) => Object.fromEntries(Object.entries(lines).filter(([id]) => id !== LEAD.id))],
  ])("drops only the line that is %s", async (_name, spoil) => {
    const server = await serve(spoiled(spoil));
    const { phraser, warnings } = phraserFor(server);
    const lines = await phraser.phrase(FACTS, "en");
    expect(lines.has(LEAD.id)).toBe(false);
    expect(lines).toEqual(new Map([...expectedGood].filter(([id]) => id !== LEAD.id)));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain("discarded");
  });

  it("ignores ids it did not ask for", async () => {
    const unknownOnly = await serve(() => ({ content: JSON.stringify({ "0123456789abcdef": "GBR 1234 takes the lead from USA 7." }) }));
    const first = phraserFor(unknownOnly);
    expect(await first.phraser.phrase([LEAD], "en")).toEqual(new Map());
    expect(first.warnings[0]?.obj).toEqual({ lang: "en", rejected: [], unknown: ["0123456789abcdef"], missing: [LEAD.id] });
  });

  it("returns only the acceptable lines of a mixed answer", async () => {
    const mixed = await serve(
      spoiled((lines) => ({
        [LEAD.id]: "GBR 1234 takes the lead from USA 7.",
        [ROUNDING.id]: "Mistral rounds Windward 1.",
        [GAIN.id]: lines[GAIN.id] ?? "",
        [FINISH.id]: "**GBR 1234** finishes first.",
        [WIND.id]: "The wind shifts right. It builds too.",
        ffffffffffffffff: "GBR 1234 wins.",
      })),
    );
    const { phraser, warnings } = phraserFor(mixed);
    const lines = await phraser.phrase(FACTS, "fr");
    expect(lines).toEqual(
      new Map([
        [LEAD.id, "GBR 1234 takes the lead from USA 7."],
        [GAIN.id, expectedGood.get(GAIN.id)],
      ]),
    );
    expect(warnings).toEqual([
      {
        obj: { lang: "fr", rejected: [ROUNDING.id, FINISH.id, WIND.id], unknown: ["ffffffffffffffff"], missing: [] },
        msg: expect.stringContaining("discarded"),
      },
    ]);
  });

  it("trims the model's surrounding space before checking", async () => {
    const server = await serve(() => ({ content: JSON.stringify({ [FINISH.id]: "  GBR 1234 finishes first.\n" }) }));
    expect(await phraserFor(server).phraser.phrase([FINISH], "en")).toEqual(new Map([[FINISH.id, "GBR 1234 finishes first."]]));
  });
});

describe("ModelPhraser quota", () => {
  it("allows quotaPerHour requests per language per rolling hour, then answers without calling", async () => {
    const server = await serve(good);
    let now = T0;
    const { phraser, warnings } = phraserFor(server, { quotaPerHour: 2 }, () => now);

    expect((await phraser.phrase([GAIN], "de")).size).toBe(1);
    now = T0 + 30 * 60_000;
    expect((await phraser.phrase([GAIN], "de")).size).toBe(1);
    expect(server.requests).toHaveLength(2);

    expect(await phraser.phrase([GAIN], "de")).toEqual(new Map());
    expect(server.requests).toHaveLength(2);
    expect(warnings.at(-1)?.obj).toEqual({ lang: "de", quotaPerHour: 2 });

    // Another language has its own quota.
    expect((await phraser.phrase([GAIN], "fr")).size).toBe(1);
    expect(server.requests).toHaveLength(3);

    // Just under an hour after the first request it still counts; at the hour it expires.
    now = T0 + 60 * 60_000 - 1;
    expect(await phraser.phrase([GAIN], "de")).toEqual(new Map());
    now = T0 + 60 * 60_000;
    expect((await phraser.phrase([GAIN], "de")).size).toBe(1);
    expect(server.requests).toHaveLength(4);
    // The second request (at +30 min) and this one fill the hour again.
    expect(await phraser.phrase([GAIN], "de")).toEqual(new Map());
    now = T0 + 2 * 60 * 60_000;
    expect((await phraser.phrase([GAIN], "de")).size).toBe(1);
    expect(server.requests).toHaveLength(5);
    expect(server.requests.map((r) => (JSON.parse(r.body?.messages?.[1]?.content ?? "{}") as { language: string }).language)).toEqual([
      "German (Deutsch)",
      "German (Deutsch)",
      "French (français)",
      "German (Deutsch)",
      "German (Deutsch)",
    ]);
  });

  it("counts a request that failed, and never calls with quota 0", async () => {
    const failing = await serve(() => ({ status: 500, body: "{}" }));
    const { phraser } = phraserFor(failing, { quotaPerHour: 1 }, () => T0);
    await phraser.phrase([GAIN], "en");
    await phraser.phrase([GAIN], "en");
    expect(failing.requests).toHaveLength(1);

    const server = await serve(good);
    const off = phraserFor(server, { quotaPerHour: 0 });
    expect(await off.phraser.phrase(FACTS, "en")).toEqual(new Map());
    expect(server.requests).toHaveLength(0);
  });
});
