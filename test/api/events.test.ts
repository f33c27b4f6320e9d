// GET /api/v1/events and EventService.ListEvents: paging, order, visibility, validators.
// No rule here needs a socket: REST goes through Fastify's inject, the RPC through
// Connect's in-memory transport (support/in-process.ts).

import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { EventService } from "../../gen/racing/v1/event_pb.js";
import type { Event, Scenario } from "../../src/domain/scenario.js";
import { importScenario } from "../../src/scenario/import.js";
import { bearer, CLUB, CO_HOST_CLUB, identityScenario, OTHER_CLUB } from "../support/api.js";
import { useInProcessApi } from "../support/in-process.js";

const id = (n: number) => `e0000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
function event(n: number, clubId: string, startDate: string | null, extra: Partial<Event> = {}): Event {
  return { id: id(n), clubId, name: `Event ${n}`, startDate, entries: [], races: [], ...extra };
}

// The club's visible events in the order the spec fixes: newest start first, no start last, ties by id.
const VISIBLE = [
  event(5, CLUB, "2026-09-01T10:00:00Z", {
    endDate: "2026-09-03T18:00:00Z",
    trackingShared: true,
    delaySeconds: 120,
    races: [
      { id: "f0000000-0000-4000-8000-000000000001", raceNo: 1, name: "R1", isLive: false, startGroups: [] },
      { id: "f0000000-0000-4000-8000-000000000002", raceNo: 2, name: "R2", isLive: false, startGroups: [] },
    ],
  }),
  event(3, OTHER_CLUB, "2026-08-01T10:00:00Z", { coHostClubIds: [CLUB] }),
  event(2, CLUB, "2026-07-01T10:00:00Z"),
  event(4, CLUB, "2026-07-01T10:00:00Z"),
  event(1, CLUB, null),
  event(6, CLUB, null),
];
const HIDDEN = [
  event(7, CLUB, "2026-10-01T10:00:00Z", { published: false }),
  event(8, CLUB, "2026-10-01T10:00:00Z", { legacy: true }),
  event(9, OTHER_CLUB, "2026-10-01T10:00:00Z"),
];

function shuffledScenario(): Scenario {
  const scenario = identityScenario();
  // Shuffled on purpose: the order must come from the rule, not from insertion.
  scenario.events = [HIDDEN[0]!, VISIBLE[4]!, VISIBLE[2]!, HIDDEN[2]!, VISIBLE[0]!, VISIBLE[5]!, VISIBLE[3]!, HIDDEN[1]!, VISIBLE[1]!];
  return scenario;
}

const api = useInProcessApi({ scenario: shuffledScenario, client: "overlay" });
const db = api.db;

async function list(query = "", headers: Record<string, string> = {}): Promise<Response> {
  return api.fetch(`/api/v1/events${query}`, { headers: { ...bearer(api.token), ...headers } });
}

describe("the events list", () => {
  it("lists the club's own and co-hosted published, non-legacy events, newest first, undated last, ties by id", async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await response.json()) as { items: Array<{ id: string }>; nextPage: number | null; totalItems: number };
    expect(body.items.map((item) => item.id)).toEqual(VISIBLE.map((e) => e.id));
    expect(body.totalItems).toBe(VISIBLE.length);
    expect(body.nextPage).toBeNull();
  });

  it("gives each item id, name, startDate, endDate, raceCount, trackingShared and delaySeconds, with nulls present", async () => {
    const body = (await (await list("?pageSize=1")).json()) as { items: unknown[] };
    expect(body.items).toEqual([
      {
        id: id(5),
        name: "Event 5",
        startDate: "2026-09-01T10:00:00.000Z",
        endDate: "2026-09-03T18:00:00.000Z",
        raceCount: 2,
        trackingShared: true,
        delaySeconds: 120,
      },
    ]);
    const undated = (await (await list("?page=6&pageSize=1")).json()) as { items: unknown[] };
    expect(undated.items).toEqual([
      { id: id(6), name: "Event 6", startDate: null, endDate: null, raceCount: 0, trackingShared: false, delaySeconds: 0 },
    ]);
  });

  it("pages with nextPage until null, each event once", async () => {
    const seen: string[] = [];
    let page: number | null = 1;
    while (page !== null) {
      const body = (await (await list(`?page=${page}&pageSize=4`)).json()) as {
        items: Array<{ id: string }>;
        nextPage: number | null;
        totalItems: number;
      };
      expect(body.totalItems).toBe(6);
      seen.push(...body.items.map((item) => item.id));
      page = body.nextPage;
    }
    expect(seen).toEqual(VISIBLE.map((e) => e.id));
    const beyond = (await (await list("?page=3&pageSize=4")).json()) as { items: unknown[]; nextPage: number | null };
    expect(beyond).toMatchObject({ items: [], nextPage: null });
  });

  it("shows a co-hosting club the events it co-hosts, and another club none of this club's", async () => {
    await importScenario(db.pool, {
      format: "race-scenario/v1",
      clubs: [],
      clients: [],
      events: [event(10, CLUB, "2026-01-01T00:00:00Z", { coHostClubIds: [CO_HOST_CLUB] })],
    });
    const coHost = (await (await api.fetch("/api/v1/events", { headers: bearer(await api.tokenFor("coHost")) })).json()) as {
      items: Array<{ id: string }>;
    };
    expect(coHost.items.map((item) => item.id)).toEqual([id(10)]);
    const other = (await (await api.fetch("/api/v1/events", { headers: bearer(await api.tokenFor("other")) })).json()) as {
      items: Array<{ id: string }>;
    };
    expect(other.items.map((item) => item.id)).toEqual([id(9), id(3)]);
  });

  it("does not reshuffle the others when an event is added", async () => {
    const before = ((await (await list()).json()) as { items: Array<{ id: string }> }).items.map((i) => i.id);
    await importScenario(db.pool, {
      format: "race-scenario/v1",
      clubs: [],
      clients: [],
      events: [event(11, CLUB, "2026-07-01T10:00:00Z")],
    });
    const after = ((await (await list()).json()) as { items: Array<{ id: string }> }).items.map((i) => i.id);
    expect(after.filter((x) => x !== id(11))).toEqual(before);
  });
});

describe("paging parameters", () => {
  it.each([
    ["page", "0"],
    ["page", "-1"],
    ["page", "1.5"],
    ["page", "abc"],
    ["page", ""],
    ["page", "99999999999"],
    ["pageSize", "0"],
    ["pageSize", "101"],
    ["pageSize", "-1"],
    ["pageSize", "1.5"],
    ["pageSize", "abc"],
    // Number() reads these as integers; the spec's ints are plain decimals.
    ...["0x2", "1e0", "+2", " 2", "2 ", "02", "2.0", "0b1", "0o1", "Infinity", "-Infinity", "1e400", "NaN", "２"].flatMap((value) => [
      ["page", value],
      ["pageSize", value],
    ]),
  ])("refuses %s=%j with API_PARAM_INVALID naming it", async (name, value) => {
    const response = await list(`?${name}=${encodeURIComponent(value)}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ status: 400, code: "API_PARAM_INVALID", params: { name } });
  });

  it("refuses a repeated parameter", async () => {
    expect(await (await list("?page=1&page=2")).json()).toMatchObject({ code: "API_PARAM_INVALID", params: { name: "page" } });
  });

  it("refuses out-of-range values over Connect with the same code", async () => {
    const events = api.client(EventService);
    const refusal = async (request: { page?: number; pageSize?: number }) => {
      const error = ConnectError.from(await events.listEvents(request, { headers: bearer(api.token) }).catch((thrown: unknown) => thrown));
      return { code: error.code, info: error.findDetails(ErrorInfoSchema)[0] };
    };
    expect(await refusal({ pageSize: 101 })).toMatchObject({
      code: Code.InvalidArgument,
      info: { reason: "API_PARAM_INVALID", metadata: { name: "pageSize" } },
    });
    expect(await refusal({ page: 0 })).toMatchObject({
      code: Code.InvalidArgument,
      info: { reason: "API_PARAM_INVALID", metadata: { name: "page" } },
    });
  });

  it("accepts the bounds", async () => {
    expect((await list("?page=1&pageSize=1")).status).toBe(200);
    expect((await list("?pageSize=100")).status).toBe(200);
  });
});

describe("validators and cache headers", () => {
  it("sends a strong ETag and Cache-Control, and answers If-None-Match with 304", async () => {
    const first = await list();
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]{27}(-gzip|-br)?"$/);
    expect(first.headers.get("cache-control")).toBe("private, max-age=30");
    expect(first.headers.get("ratelimit-policy")).toBe('"general";q=60;w=60');

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await list("", { "if-none-match": ifNoneMatch });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe("private, max-age=30");
      expect(await again.text()).toBe("");
    }
    expect((await list("", { "if-none-match": '"something-else"' })).status).toBe(200);
  });

  it("changes the ETag when the answer changes", async () => {
    const before = (await list()).headers.get("etag");
    await importScenario(db.pool, {
      format: "race-scenario/v1",
      clubs: [],
      clients: [],
      events: [event(12, CLUB, "2027-01-01T00:00:00Z")],
    });
    expect((await list()).headers.get("etag")).not.toBe(before);
  });
});

describe("reach", () => {
  it("pages through at most 1000 events, while totalItems counts them all", async () => {
    const many = Array.from({ length: 1000 }, (_, i) =>
      event(100 + i, OTHER_CLUB, `2020-01-01T00:${String(Math.floor(i / 60)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z`),
    );
    await importScenario(db.pool, { format: "race-scenario/v1", clubs: [], clients: [], events: many });
    const otherToken = await api.tokenFor("other");
    const page = async (n: number) =>
      (await (await api.fetch(`/api/v1/events?page=${n}&pageSize=100`, { headers: bearer(otherToken) })).json()) as {
        items: unknown[];
        nextPage: number | null;
        totalItems: number;
      };
    const tenth = await page(10);
    expect(tenth.totalItems).toBe(1002);
    expect(tenth.items).toHaveLength(100);
    expect(tenth.nextPage).toBeNull();
    expect(await page(11)).toMatchObject({ items: [], nextPage: null, totalItems: 1002 });
  });
});
