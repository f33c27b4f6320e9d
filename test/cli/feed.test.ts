// `race-api feed` against a running server: a short race fast-forwarded end to end
// through IngestService, read back through the public API, and the command's refusals.
// The first feed runs through the real bin (bin/race-api.js); the rest call the same
// `main` in this process.

import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importScenario } from "../../src/scenario/import.js";
import { feedRace } from "../../src/commands/feed.js";
import { sliceScenario } from "../../src/sim/index.js";
import { bearer, CLUB, identityScenario, OTHER_CLUB, secretOf, startApi, tokenFor, type Api } from "../support/api.js";
import { raceApi, runMain } from "../support/cli.js";
import { registry } from "../../src/telemetry/metrics.js";
import { useFreshDatabase } from "../support/database.js";

const db = useFreshDatabase();
let api: Api;

beforeAll(async () => {
  const scenario = identityScenario();
  scenario.clients.push({ clientId: "feeder", clientSecret: secretOf("feeder"), clubId: CLUB, scopes: ["tracking:write"] });
  await importScenario(db.pool, scenario);
  api = await startApi(db);
});
afterAll(() => api?.close());

const RACE_SHAPE = { groups: 1, boats: 5, laps: 1, legLengthM: 500 };
const shapeArgs = ["--groups", "1", "--boats", "5", "--laps", "1", "--leg-length", "500"];
const credentials = (clientId = "feeder") => ["--client-id", clientId, "--client-secret", secretOf(clientId)];

describe("race-api feed", () => {
  it("sets a race up and feeds it to its end at 100x, over Connect: every fix sent as sailed, the race finished with results (through the bin)", async () => {
    const { code, stdout, stderr } = await raceApi([
      "feed",
      "--url",
      api.url,
      "--club-id",
      CLUB,
      ...credentials(),
      ...shapeArgs,
      "--speed",
      "100",
      "--seed",
      "cli-feed",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const [, raceId] = stdout.match(/race Race 1 \(([0-9a-f-]{36})\) of club/)!;
    const summary = stdout.match(
      /Race fed to its end: (\d+) calls, fixes (\d+) accepted, (\d+) duplicates, rejected (.*); failed calls (.*); AppendFixes ack/,
    );
    expect(summary, stdout).not.toBeNull();
    const [, calls, accepted, duplicates, rejected, failed] = summary!;
    expect({ duplicates, failed }).toEqual({ duplicates: "0", failed: "none" });
    expect(Number(calls)).toBeGreaterThan(10);

    // The race it fed: the same seed sails the same race from the start it names.
    const [stored] = await db.pool.query<RowDataPacket[]>(
      `SELECT e.uuid AS entry_id, f.t, f.lat, f.lon FROM fixes f JOIN entries e ON e.id = f.entry_id JOIN start_groups g ON g.id = f.start_group_id
       JOIN races r ON r.id = g.race_id WHERE r.uuid = ? ORDER BY e.uuid, f.t`,
      [raceId],
    );
    const startMs = Date.parse(stdout.match(/real time from (\S+):/)![1]!);
    const race = feedRace({ clubId: CLUB, seed: "cli-feed", speed: 100, ...RACE_SHAPE, delaySeconds: 0 }, startMs);
    const group = race.events[0]!.races[0]!.startGroups[0]!;
    expect(raceId).toBe(race.events[0]!.races[0]!.id);
    // Each boat's fixes up to its phone finish are stored as sailed; those after it were refused.
    const finishOf = new Map(group.finishes!.map((f) => [f.entryId, Date.parse(f.finishTimeUtc)]));
    const expected = group.tracks!.flatMap((track) =>
      track.t.flatMap((t, k) =>
        t <= (finishOf.get(track.entryId) ?? Infinity) ? [{ entry_id: track.entryId, t, lat: track.lat[k], lon: track.lon[k] }] : [],
      ),
    );
    const sent = group.tracks!.reduce((n, track) => n + track.t.length, 0);
    expect(stored.map((row) => ({ entry_id: row.entry_id, t: Number(row.t), lat: row.lat, lon: row.lon }))).toEqual(
      expected.sort((a, b) => a.entry_id.localeCompare(b.entry_id) || a.t - b.t),
    );
    expect(Number(accepted)).toBe(expected.length);
    expect(rejected).toBe(sent === expected.length ? "none" : `${sent - expected.length} OUTSIDE_CAPTURE_WINDOW`);

    // What a reader of the public API sees: the group finished, the boats' last positions, the last live order, the results.
    const token = await tokenFor(api.url, "overlay");
    const live = (await (await fetch(`${api.url}/api/v1/races/${raceId}/live`, { headers: bearer(token) })).json()) as {
      startGroups: Array<{
        state: string;
        finishTimeUtc: string | null;
        wind: unknown;
        liveOrder: unknown[] | null;
        boats: Array<{ fixTimeUtc: string | null }>;
      }>;
    };
    const served = live.startGroups[0]!;
    expect(served.state).toBe("Finished");
    expect(served.finishTimeUtc).toBe(sliceScenario(race, null, Date.now()).events[0]!.races[0]!.startGroups[0]!.finishTimeUtc);
    expect(served.wind).not.toBeNull();
    expect(served.liveOrder!.length).toBe(group.liveOrder!.at(-1)!.rows.length);
    // Boats of approved entries only, as the spec has it.
    const approved = new Set(race.events[0]!.entries.filter((e) => e.approved !== false).map((e) => e.id));
    expect(served.boats.filter((b) => b.fixTimeUtc !== null).length).toBe(
      group.tracks!.filter((track) => approved.has(track.entryId)).length,
    );
    const results = await fetch(`${api.url}/api/v1/races/${raceId}/results`, { headers: bearer(token) });
    expect(results.status).toBe(200);
    expect(((await results.json()) as { startGroups: Array<{ rows: unknown[] }> }).startGroups[0]!.rows.length).toBe(
      group.results!.rows.length,
    );
  }, 60_000);

  it("feeds over gRPC with --grpc-url, the fixes on the acknowledged stream (PushFixes) and no AppendFixes call", async () => {
    const rpcCount = async (method: string) =>
      (await registry.getSingleMetric("race_api_requests_total")!.get()).values
        .filter((v) => v.labels.surface === "grpc" && v.labels.route === `racing.v1.IngestService/${method}`)
        .reduce((n, v) => n + v.value, 0);
    const appendsBefore = await rpcCount("AppendFixes");
    const pushesBefore = await rpcCount("PushFixes");
    const { code, stdout } = await runMain([
      "feed",
      "--url",
      api.url,
      "--grpc-url",
      api.grpcUrl,
      "--club-id",
      CLUB,
      ...credentials(),
      ...shapeArgs,
      "--speed",
      "100",
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /Race fed to its end: \d+ calls, fixes [1-9]\d* accepted, 0 duplicates, rejected (none|\d+ OUTSIDE_CAPTURE_WINDOW); failed calls none/,
    );
    // One stream, renewed at most every few minutes, ended by the client when the race was fed.
    expect(await rpcCount("PushFixes")).toBe(pushesBefore + 1);
    expect(await rpcCount("AppendFixes")).toBe(appendsBefore);
  }, 60_000);

  it("refuses another club's id, naming the field, and creates nothing", async () => {
    const before = await eventCount();
    const { code, stderr } = await runMain(["feed", "--url", api.url, "--club-id", OTHER_CLUB, ...credentials(), ...shapeArgs]);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'race-api feed: setting the race up failed: InvalidArgument: API_PARAM_INVALID {"name":"$.events[0].clubId"}',
    );
    expect(await eventCount()).toBe(before);
  });

  it("says why when the credentials are wrong or lack tracking:write", async () => {
    const wrong = await runMain([
      "feed",
      "--url",
      api.url,
      "--club-id",
      CLUB,
      "--client-id",
      "feeder",
      "--client-secret",
      "not-the-secret",
      ...shapeArgs,
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^race-api feed: setting the race up failed: Unauthenticated: token endpoint answered 401 invalid_client/);
    const readOnly = await runMain(["feed", "--url", api.url, "--club-id", CLUB, ...credentials("overlay"), ...shapeArgs]);
    expect(readOnly.code).toBe(1);
    expect(readOnly.stderr).toMatch(
      /^race-api feed: setting the race up failed: Unauthenticated: token endpoint answered 400 invalid_scope/,
    );
  });

  it("refuses a malformed command line with usage and exit code 2, naming the option", async () => {
    const cases: Array<[string[], string]> = [
      [["--club-id", CLUB, ...credentials()], "--url is required"],
      [["--url", "ftp://x", "--club-id", CLUB, ...credentials()], '--url must be an http or https URL, got "ftp://x"'],
      [["--url", api.url, "--club-id", "club-1", ...credentials()], `--club-id must be the club's UUID, got "club-1"`],
      [
        ["--url", api.url, "--club-id", CLUB, "--client-id", "feeder"],
        "the client's secret is required: --client-secret or RACE_API_CLIENT_SECRET",
      ],
      [["--url", api.url, "--club-id", CLUB, ...credentials(), "--speed", "1e9"], '--speed must be a number from 1 to 100, got "1e9"'],
      [
        ["--url", api.url, "--club-id", CLUB, ...credentials(), "--boats", "2.5"],
        '--boats must be a whole number from 1 to 500, got "2.5"',
      ],
      [["--url", api.url, "--club-id", CLUB, ...credentials(), "--colour", "red"], "Unknown option '--colour'"],
    ];
    const outcomes = await Promise.all(cases.map(([args]) => runMain(["feed", ...args], { RACE_API_CLIENT_SECRET: "" })));
    for (const [i, [args, message]] of cases.entries()) {
      expect(outcomes[i]!.code, args.join(" ")).toBe(2);
      expect(outcomes[i]!.stderr, args.join(" ")).toContain(`race-api feed: ${message}`);
      expect(outcomes[i]!.stderr).toContain("Usage: race-api feed");
    }
  });

  it("explains itself with race-api feed --help, and race-api --help lists it", async () => {
    const help = await runMain(["feed", "--help"]);
    expect(help.code).toBe(0);
    for (const option of ["--url", "--club-id", "--client-id", "--grpc-url", "--speed", "--seed"]) expect(help.stdout).toContain(option);
    expect((await runMain(["--help"])).stdout).toContain("feed ...");
  });
});

async function eventCount(): Promise<number> {
  const [[row]] = await db.pool.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM events");
  return Number(row!.n);
}
