// Many instances as one service: two API instances on one database and one Redis.
// A token of one works on the other, a disabled client stops on both within 5 s, the
// rate-limit budget is one, insights are generated once per due minute in all, and each
// instance keeps its own 2-second live read. Measured on a private MariaDB whose only
// clients are these two instances, each logged in as its own database user, so the
// server's per-user statement counters (userstat) say which instance read what.

import mysql, { type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../src/store/migrate.js";
import { setDisabled } from "../../src/store/clients.js";
import { createPool, type Pool } from "../../src/store/pool.js";
import { ALL_SCOPES, bearer, CLUB, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { startLoad, statusCounts, within, sleep } from "../support/load.js";
import { startMariaDbInstance, type MariaDbInstance } from "../support/mariadb-instance.js";
import { liveScenario, RACE, restLive } from "../support/race-scenarios.js";
import { ensureRedisServer, type RedisServer } from "../support/redis.js";
import { PRODUCTION_REFRESH } from "../support/runtime.js";

/** SELECTs of one live read of RACE with its visibility record (as in race-live-shared-read.test.ts). */
const SELECTS_PER_POLL_ROUND = 6 + 2;
/** Guard cache refreshes an instance may add in a few seconds: client state and key ring, each every 5 s. */
const GUARD_ALLOWANCE = 8;
const USERS = { left: "scale_left", right: "scale_right" } as const;

let instance: MariaDbInstance;
let redis: RedisServer;
let admin: Pool;
const pools: Pool[] = [];
let stats: mysql.Connection;
let left: Api;
let right: Api;
let overlay: string;

beforeAll(async () => {
  [instance, redis] = await Promise.all([startMariaDbInstance(), ensureRedisServer()]);
  admin = createPool(instance.url, { statementTimeoutMs: 0 });
  await migrate(admin);
  const scenario = liveScenario();
  // The live-read measurement polls hard; the budget test uses another club's default limit.
  scenario.clubs.find((club) => club.id === CLUB)!.trackingRateLimitPerMinute = 1_000_000;
  scenario.clients.push({ clientId: "willBeDisabled", clientSecret: "willBeDisabled-secret", clubId: CLUB, scopes: ALL_SCOPES });
  await seedIdentities({ url: instance.url, pool: admin }, scenario);

  stats = await mysql.createConnection({ uri: instance.url, timezone: "Z" });
  await stats.query("SET GLOBAL userstat = 1");
  for (const user of Object.values(USERS)) {
    await stats.query("CREATE USER ?@'127.0.0.1' IDENTIFIED BY ?", [user, `${user}-pw`]);
    await stats.query("GRANT ALL PRIVILEGES ON race_api_test.* TO ?@'127.0.0.1'", [user]);
  }
  // Every finished generation, whoever finished it: finishGeneration moves generated_at
  // and clears the lease of the instance that held it.
  await stats.query(
    "CREATE TABLE scale_generation_log (id INT AUTO_INCREMENT PRIMARY KEY, race_id INT UNSIGNED NOT NULL, generated_at DATETIME(3), owner VARCHAR(64))",
  );
  await stats.query(
    `CREATE TRIGGER scale_generation_logged AFTER UPDATE ON insight_generations FOR EACH ROW
       INSERT INTO scale_generation_log (race_id, generated_at, owner)
       SELECT NEW.race_id, NEW.generated_at, OLD.lease_owner FROM DUAL
       WHERE NOT (NEW.generated_at <=> OLD.generated_at) AND OLD.lease_owner IS NOT NULL`,
  );

  const start = (user: string) => {
    const pool = createPool(withUser(instance.url, user, `${user}-pw`));
    pools.push(pool);
    // The guard's caches at their production age: GUARD_ALLOWANCE counts their re-reads.
    return startApi({ url: instance.url, pool }, { redisUrl: redis.url, ...PRODUCTION_REFRESH }, pool);
  };
  [left, right] = await Promise.all([start(USERS.left), start(USERS.right)]);
  overlay = await tokenFor(left.url, "overlay");
}, 120_000);

afterAll(async () => {
  await left?.close();
  await right?.close();
  await Promise.all(pools.map((pool) => pool.end()));
  await stats?.end();
  await admin?.end();
  await redis?.stop();
  await instance?.destroy();
});

function withUser(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  return parsed.toString();
}

/** SELECT statements each instance's database user has run so far. */
async function selectsByInstance(): Promise<{ left: number; right: number }> {
  const [rows] = await stats.query<RowDataPacket[]>(
    "SELECT USER, SELECT_COMMANDS FROM information_schema.USER_STATISTICS WHERE USER IN (?, ?)",
    [USERS.left, USERS.right],
  );
  const of = (user: string) => Number(rows.find((row) => row.USER === user)?.SELECT_COMMANDS ?? 0);
  return { left: of(USERS.left), right: of(USERS.right) };
}

const events = (target: Api, token: string) => fetch(`${target.url}/api/v1/events`, { headers: bearer(token) });
const remaining = (response: Response) => Number(/;r=(\d+);/.exec(response.headers.get("ratelimit") ?? "")?.[1]);

describe("tokens", () => {
  it("issued by one instance are accepted by the other, both ways", async () => {
    const fromRight = await tokenFor(right.url, "overlay");
    for (const [target, token] of [
      [right, overlay],
      [left, fromRight],
    ] as const) {
      expect((await restLive(target.url, token, RACE)).status).toBe(200);
      expect((await events(target, token)).status).toBe(200);
    }
  });
});

describe("a disabled client", () => {
  it("is refused by both instances within 5 s, and stays refused", async () => {
    const token = await tokenFor(left.url, "willBeDisabled");
    // Both instances know the client as enabled (their 5 s caches are warm).
    for (const target of [left, right]) expect((await events(target, token)).status).toBe(200);
    await setDisabled(admin, "willBeDisabled", true);
    const disabledAt = Date.now();
    const refusedAfter: Record<string, number> = {};
    await within(
      7000,
      async () => {
        for (const [name, target] of [
          ["left", left],
          ["right", right],
        ] as const) {
          if (refusedAfter[name] !== undefined) continue;
          const response = await events(target, token);
          if (response.status === 401) {
            expect(await response.json()).toMatchObject({ code: "API_CLIENT_DISABLED" });
            refusedAfter[name] = Date.now() - disabledAt;
          }
        }
        expect(Object.keys(refusedAfter).sort()).toEqual(["left", "right"]);
      },
      100,
    );
    // 5 s of cache, plus the round trip of the call that saw it.
    expect(refusedAfter.left).toBeLessThanOrEqual(5500);
    expect(refusedAfter.right).toBeLessThanOrEqual(5500);
    for (const target of [left, right]) {
      expect((await events(target, token)).status).toBe(401);
      expect((await restLive(target.url, token, RACE)).status).toBe(401);
    }
  });
});

describe("the rate-limit budget", () => {
  it("is one across both instances: RateLimit counts down across them, and the 61st call is refused by either", async () => {
    const token = await tokenFor(left.url, "other"); // OTHER_CLUB: the default 60 general calls a minute
    for (let i = 1; i <= 60; i++) {
      const response = await events(i % 2 === 0 ? left : right, token);
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-policy")).toBe('"general";q=60;w=60');
      expect(remaining(response)).toBe(60 - i);
    }
    for (const target of [left, right]) {
      const refused = await events(target, token);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("60");
    }
  });
});

describe("the live read", () => {
  it("stays one per race per 2 s on each instance: the database sees at most one read per 2 s per instance, and both read", async () => {
    const token = await tokenFor(left.url, "poller");
    // Warm the guard's caches (5 s), then let the race's 2 s run out: the first poll reads.
    for (const target of [left, right]) expect((await restLive(target.url, token, RACE)).status).toBe(200);
    await sleep(2100);

    const before = await selectsByInstance();
    const startedAt = Date.now();
    // 16 workers polling as fast as they get answers, even ones on the left, odd ones on the right.
    const load = startLoad(
      [
        { name: "left", url: `${left.url}/api/v1/races/${RACE}/live`, headers: bearer(token) },
        { name: "right", url: `${right.url}/api/v1/races/${RACE}/live`, headers: bearer(token) },
      ],
      { workers: 16, pauseMs: 5 },
    );
    await sleep(6000);
    const samples = await load.stop();
    const elapsedMs = Date.now() - startedAt;
    const after = await selectsByInstance();

    expect(statusCounts(samples)).toEqual({ 200: samples.length });
    const perInstance = { left: after.left - before.left, right: after.right - before.right };
    // The most reads 2 s apart that fit in the measured time.
    const maxReads = Math.floor(elapsedMs / 2000) + 1;
    const oneInstanceAtMost = maxReads * SELECTS_PER_POLL_ROUND + GUARD_ALLOWANCE;
    for (const name of ["left", "right"] as const) {
      const polls = samples.filter((sample) => sample.name === name);
      expect(polls.length).toBeGreaterThan(100);
      // Each answer's dataAsOf is the moment of its read: distinct reads at least 2 s apart.
      const reads = [...new Set(polls.map((sample) => Date.parse((JSON.parse(sample.body) as { dataAsOf: string }).dataAsOf)))].sort(
        (a, b) => a - b,
      );
      expect(reads.length).toBeGreaterThanOrEqual(3);
      expect(reads.length).toBeLessThanOrEqual(maxReads);
      for (let i = 1; i < reads.length; i++) expect(reads[i]! - reads[i - 1]!).toBeGreaterThanOrEqual(1990);
      // And the database agrees: per instance, at most one live read per 2 s (plus guard refreshes), at least three in 6 s.
      expect(perInstance[name]).toBeLessThanOrEqual(oneInstanceAtMost);
      expect(perInstance[name]).toBeGreaterThanOrEqual(3 * SELECTS_PER_POLL_ROUND);
    }
    // Two instances read on their own rhythm: more than one instance could account for.
    expect(perInstance.left + perInstance.right).toBeGreaterThan(oneInstanceAtMost);
  });
});

describe("insights", () => {
  interface InsightsJson {
    generatedAtUtc: string | null;
    insights: Array<{ id: string }>;
  }
  const insights = async (target: Api, lang: string): Promise<InsightsJson> => {
    const response = await fetch(`${target.url}/api/v1/races/${RACE}/live/insights?lang=${lang}`, { headers: bearer(overlay) });
    expect(response.status).toBe(200);
    return (await response.json()) as InsightsJson;
  };
  const generations = async () => {
    const [rows] = await stats.query<RowDataPacket[]>(
      "SELECT l.generated_at, l.owner FROM scale_generation_log l JOIN races r ON r.id = l.race_id WHERE r.uuid = ? ORDER BY l.id",
      [RACE],
    );
    return rows.map((row) => ({ generatedAt: (row.generated_at as Date).toISOString(), owner: String(row.owner) }));
  };
  /** Both instances answer `langs` from the same generation; resolves with it. */
  const bothServeOneGeneration = async (langs: string[]) => {
    const answers = await Promise.all(langs.flatMap((lang) => [insights(left, lang), insights(right, lang)]));
    const generated = new Set(answers.map((answer) => answer.generatedAtUtc));
    expect(generated.size).toBe(1);
    expect([...generated][0]).not.toBeNull();
    const ids = new Set(answers.map((answer) => JSON.stringify(answer.insights.map((insight) => insight.id))));
    expect(ids.size).toBe(1);
    return { generatedAtUtc: [...generated][0]!, ids: JSON.parse([...ids][0]!) as string[] };
  };

  it("are generated once per due minute in all: instances racing for a generation make one, and serve it alike", async () => {
    // The first call of a race generates; 20 calls at once, half on each instance.
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => insights(i % 2 === 0 ? left : right, "en")));
    // An instance that lost the first lease answers empty until the generation is stored.
    const seen = new Set(burst.map((answer) => answer.generatedAtUtc).filter((at) => at !== null));
    expect(seen.size).toBe(1);
    let first = { generatedAtUtc: "", ids: [] as string[] };
    await within(5000, async () => {
      first = await bothServeOneGeneration(["en"]);
    });
    expect(first.generatedAtUtc).toBe([...seen][0]);
    expect(first.ids.length).toBeGreaterThan(0);
    expect(await generations()).toEqual([{ generatedAt: first.generatedAtUtc, owner: expect.any(String) }]);

    // Within the minute every instance asks the generator again for each new language:
    // those calls phrase, they do not generate.
    const phrased = await bothServeOneGeneration(["de", "fr", "es", "it"]);
    expect(phrased).toEqual(first);
    expect(await generations()).toHaveLength(1);

    // A minute later (the stored generation made 61 s older, as time would), both
    // instances find it due at once, on new languages so neither answers from its cache.
    await stats.query(
      "UPDATE insight_generations g JOIN races r ON r.id = g.race_id SET g.generated_at = g.generated_at - INTERVAL 61 SECOND WHERE r.uuid = ?",
      [RACE],
    );
    const langs = ["tr", "ru", "el", "nb"];
    await Promise.all(Array.from({ length: 24 }, (_, i) => insights(i % 2 === 0 ? left : right, langs[i % langs.length]!)));
    let second = { generatedAtUtc: "", ids: [] as string[] };
    await within(5000, async () => {
      second = await bothServeOneGeneration(langs);
      expect(Date.parse(second.generatedAtUtc)).toBeGreaterThan(Date.parse(first.generatedAtUtc));
    });
    const log = await generations();
    expect(log).toHaveLength(2);
    expect(log[1]!.generatedAt).toBe(second.generatedAtUtc);
  });
});
