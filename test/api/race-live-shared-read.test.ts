// One read of the database per race per 2 seconds, however many clients poll and on
// whichever surface: measured on a private MariaDB whose only client is this API, by
// the server's own statement counter (Com_select).

import { create } from "@bufbuild/protobuf";
import { createHandlerContext } from "@connectrpc/connect";
import type * as grpc from "@grpc/grpc-js";
import mysql, { type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetRaceLiveRequestSchema, RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { callContext } from "../../src/calls/context.js";
import { migrate } from "../../src/store/migrate.js";
import { createPool, type Pool } from "../../src/store/pool.js";
import { bearer, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { grpcClient, watchLive } from "../support/grpc.js";
import { openSse } from "../support/sse.js";
import { startMariaDbInstance, type MariaDbInstance } from "../support/mariadb-instance.js";
import { importScenario } from "../../src/scenario/import.js";
import { simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { CLUB, identityScenario } from "../support/api.js";
import { connectLiveMessage, grpcLiveMessage, liveScenario, MINUTE, RACE, restLive } from "../support/race-scenarios.js";

let instance: MariaDbInstance;
let pool: Pool;
let api: Api;
let stats: mysql.Connection;
let client: grpc.Client;
const tokens: string[] = [];

/**
 * SELECTs of one shared read of RACE (live, every kind of data present): entries,
 * phone finishes, wind, course versions, live order, newest fixes; plus the 2 of the
 * race's visibility record (race, start groups), re-read on the same 2 s rhythm.
 */
const SELECTS_PER_POLL_ROUND = 6 + 2;

beforeAll(async () => {
  instance = await startMariaDbInstance();
  pool = createPool(instance.url, { connectionLimit: 10 });
  await migrate(pool);
  const scenario = liveScenario();
  // Hundreds of polls in a minute: this file measures reads, not the rate limit.
  for (const club of scenario.clubs) club.trackingRateLimitPerMinute = 100_000;
  await seedIdentities({ url: instance.url, pool }, scenario);
  // Watch streams too: many per client here. The guard's caches (signing keys, client
  // states) outlast the file, so only the race's reads are counted.
  api = await startApi(
    { url: instance.url, pool },
    { streamsPerClient: 1000, signingKeysRefreshMs: 300_000, clientStateMaxAgeMs: 300_000 },
  );
  // Two clients of two clubs that may both see the race.
  tokens.push(await tokenFor(api.url, "overlay"), await tokenFor(api.url, "coHost"));
  stats = await mysql.createConnection({ uri: instance.url });
  client = grpcClient(api.grpcUrl);
}, 120_000);

afterAll(async () => {
  client?.close();
  await stats?.end();
  await api?.close();
  await pool?.end();
  await instance?.destroy();
});

async function comSelect(): Promise<number> {
  const [rows] = await stats.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Com_select'");
  return Number(rows[0]!.Value);
}

/** SELECTs the server ran during `work`, less those of the measurement itself. */
async function selectsDuring(work: () => Promise<unknown>): Promise<number> {
  const first = await comSelect();
  const overhead = (await comSelect()) - first;
  const before = await comSelect();
  await work();
  return (await comSelect()) - before - overhead;
}

/** 50 polls at once: REST, Connect and gRPC, from two clients of two clubs. */
function fiftyPolls(): Promise<unknown> {
  return Promise.all(
    Array.from({ length: 50 }, (_, i) => {
      const token = tokens[i % 2]!;
      if (i % 5 === 3) return connectLiveMessage(api.url, token, RACE);
      if (i % 5 === 4) return grpcLiveMessage(client, token, RACE);
      return restLive(api.url, token, RACE).then((response) => {
        expect(response.status).toBe(200);
        return response.arrayBuffer();
      });
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the shared read", () => {
  it("serves 50 concurrent polls with the SELECTs of one poll, and the next 50 within 2 s with none", async () => {
    // The warm-up loads the guard's caches; the race's 2 s are over after the sleep. On a
    // machine too busy to make the warm round within the race's 2 s: try again.
    let counts = { cold: -1, warm: -1 };
    for (let attempt = 1; attempt <= 3; attempt++) {
      await fiftyPolls();
      await sleep(2100);
      counts = { cold: await selectsDuring(fiftyPolls), warm: await selectsDuring(fiftyPolls) };
      if (counts.cold === SELECTS_PER_POLL_ROUND && counts.warm === 0) break;
    }
    expect(counts).toEqual({ cold: SELECTS_PER_POLL_ROUND, warm: 0 });
  });

  it("reads again once the 2 s are over", async () => {
    let selects = -1;
    for (let attempt = 1; attempt <= 3 && selects !== SELECTS_PER_POLL_ROUND; attempt++) {
      await restLive(api.url, tokens[0]!, RACE);
      await sleep(2100);
      selects = await selectsDuring(() => restLive(api.url, tokens[0]!, RACE));
    }
    expect(selects).toBe(SELECTS_PER_POLL_ROUND);
  });

  it("hands every caller within the 2 s the same answer object, so its bytes are made once", async () => {
    const call = (token: string) =>
      api.runtime.services.raceLive.getRaceLive(
        create(GetRaceLiveRequestSchema, { raceId: RACE }),
        createHandlerContext({
          service: RaceLiveService,
          method: RaceLiveService.method.getRaceLive,
          protocolName: "test",
          requestMethod: "POST",
          url: "/racing.v1.RaceLiveService/GetRaceLive",
          requestHeader: new Headers(bearer(token)),
          contextValues: callContext("127.0.0.1", undefined),
        }),
      );
    for (let attempt = 1; ; attempt++) {
      const [a, b, c] = await Promise.all([call(tokens[0]!), call(tokens[1]!), call(tokens[0]!)]);
      const d = await call(tokens[1]!);
      if (d !== a && attempt < 5) continue; // the 2 s ran out between the calls
      expect(b).toBe(a);
      expect(c).toBe(a);
      expect(d).toBe(a);
      return;
    }
  });
});

describe("the reads of a shared read", () => {
  it("are index reads: a poll of a simulated 20-boat race touches a few hundred rows while the fixes table holds over ten thousand", async () => {
    const now = Date.now();
    const race = simulateScenario({
      seed: "index-reads",
      gunMs: now - 25 * MINUTE,
      startGroups: 2,
      boatsPerGroup: 10,
      laps: 1,
      legLengthM: 700,
    });
    const scenario = identityScenario();
    scenario.clubs = [];
    scenario.clients = [];
    scenario.events = sliceScenario(race, null, now).events.map((event) => ({ ...event, clubId: CLUB }));
    await importScenario(pool, scenario);
    const [[{ fixes }]] = (await stats.query<RowDataPacket[]>("SELECT COUNT(*) AS fixes FROM fixes")) as unknown as [[{ fixes: number }]];
    expect(fixes).toBeGreaterThan(10_000);

    const handlerReads = async () => {
      const [rows] = await stats.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Handler_read%'");
      return rows.reduce((sum, row) => sum + Number(row.Value), 0);
    };
    const first = await handlerReads();
    const overhead = (await handlerReads()) - first;
    const before = await handlerReads();
    const response = await restLive(api.url, tokens[0]!, race.events[0]!.races[0]!.id);
    const touched = (await handlerReads()) - before - overhead;
    expect(response.status).toBe(200);
    const boats = ((await response.json()) as { startGroups: Array<{ boats: unknown[] }> }).startGroups.flatMap((g) => g.boats);
    expect(boats.length).toBeGreaterThanOrEqual(14);
    // About 130 here: seeks per boat and reading, the groups' entries, the race's record.
    expect(touched).toBeLessThan(500);
  });
});

describe("watch streams", () => {
  it("cost the database what one poller costs: 100 SSE subscribers and 10 gRPC watchers against one client polling twice a second", async () => {
    const window = 6000;
    const poller = () =>
      selectsDuring(async () => {
        for (const until = Date.now() + window; Date.now() < until; await sleep(500)) await restLive(api.url, tokens[0]!, RACE);
      });
    const watchers = () =>
      selectsDuring(async () => {
        const streams = await Promise.all(
          Array.from({ length: 100 }, (_, i) => openSse(`${api.url}/api/v1/races/${RACE}/live/stream`, bearer(tokens[i % 2]!))),
        );
        const calls = Array.from({ length: 10 }, (_, i) => watchLive(client, tokens[i % 2]!, RACE));
        expect(streams.every((stream) => stream.response.status === 200)).toBe(true);
        await sleep(window);
        const received = await Promise.all(streams.map((stream) => stream.nextEvent(100)));
        expect(received.every((event) => event.event === "live")).toBe(true);
        for (const stream of streams) stream.close();
        for (const call of calls) call.cancel();
      });
    // At most one shared read per 2 s whoever asks (a read at each end of the window),
    // and a few guard re-reads of the two clients' state; a read per watcher would be
    // a hundred times that.
    const atMost = (window / 2000 + 1) * SELECTS_PER_POLL_ROUND + SELECTS_PER_POLL_ROUND;
    const polled = await poller();
    const watched = await watchers();
    expect(polled).toBeGreaterThanOrEqual(2 * SELECTS_PER_POLL_ROUND);
    expect(polled).toBeLessThanOrEqual(atMost);
    expect(watched).toBeGreaterThanOrEqual(2 * SELECTS_PER_POLL_ROUND);
    expect(watched).toBeLessThanOrEqual(atMost);
  });
});
