// The race-api command as a user runs it: exit codes, messages, and the database
// it leaves behind. Each command runs once through the real bin (bin/race-api.js);
// the other cases call the same `main` in this process.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RowDataPacket } from "mysql2/promise";
import { describe, expect, it } from "vitest";
import { raceApi, runMain, start } from "../support/cli.js";
import { useFreshDatabase } from "../support/database.js";
import { within } from "../support/load.js";
import { copy, smallScenario } from "../support/scenarios.js";
import { snapshot } from "../support/snapshot.js";

const db = useFreshDatabase();
const dir = mkdtempSync(join(tmpdir(), "race-api-cli-"));

function scenarioFile(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("race-api", () => {
  it("explains itself with --help", async () => {
    const { code, stdout } = await runMain(["--help"]);
    expect(code).toBe(0);
    for (const command of ["serve", "migrate", "import FILE", "demo"]) expect(stdout).toContain(command);
  });

  it("refuses an unknown command with usage and exit code 2 (through the bin: its exit code is the process's)", async () => {
    const { code, stderr } = await raceApi(["launch"]);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "launch"');
  });

  it("names the variable of a bad configuration value", async () => {
    const { code, stderr } = await runMain(["migrate"], { PORT: "http" });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('race-api: PORT must be a whole number from 0 to 65535, got "http"');
  });

  it("migrates idempotently", async () => {
    const { code, stdout } = await raceApi(["migrate"], { DATABASE_URL: db.url });
    expect(code).toBe(0);
    expect(stdout).toMatch(/schema is up to date \(version \d+\)/);
  });

  it("imports a file, and the same file again changes nothing", async () => {
    const file = scenarioFile("small.json", smallScenario());
    const first = await raceApi(["import", file], { DATABASE_URL: db.url });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /imported .*small\.json in [\d.]+ s: 2 clubs, 1 clients \(0 secret rotations\), 1 events, 3 entries, 1 races, 1 start groups, 6 fixes/,
    );
    const before = await snapshot(db.pool);
    expect((await runMain(["import", file], { DATABASE_URL: db.url })).code).toBe(0);
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it("refuses a bad file with its JSON path and writes nothing", async () => {
    const broken = copy(smallScenario());
    broken.events[0]!.races[0]!.startGroups[0]!.tracks![1]!.t = [5, 4];
    const before = await snapshot(db.pool);
    const { code, stderr } = await runMain(["import", scenarioFile("broken.json", broken)], { DATABASE_URL: db.url });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe("race-api: $.events[0].races[0].startGroups[0].tracks[1].t[1]: t must be strictly ascending");
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it("refuses a course mark label longer than its column at the label's path, without a stack trace", async () => {
    const long = copy(smallScenario());
    long.events[0]!.races[0]!.startGroups[0]!.courses![0]!.steps[1]!.label = "W".repeat(101);
    const before = await snapshot(db.pool);
    const { code, stderr } = await raceApi(["import", scenarioFile("long-label.json", long)], { DATABASE_URL: db.url });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      "race-api: $.events[0].races[0].startGroups[0].courses[0].steps[1].label: must NOT have more than 100 characters",
    );
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it("refuses a file that is not JSON", async () => {
    const { code, stderr } = await runMain(["import", scenarioFile("garbage.json", "{ not json")], { DATABASE_URL: db.url });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^race-api: \$: not a JSON document/);
  });

  it("serves until SIGTERM, then exits cleanly", async () => {
    const server = start(["serve"], { DATABASE_URL: db.url, PORT: "0", GRPC_PORT: "0", METRICS_PORT: "0", LOG_LEVEL: "info" });
    const [, httpUrl] = await server.waitFor(/"httpUrl":"(http:\/\/[^"]+)"/);
    const ready = await fetch(`${httpUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(server.stdout()).toContain("shutting down");
  });
});

describe("race-api demo", () => {
  it("loads a live race, serves it and stops on Ctrl-C", async () => {
    const demo = start(["demo"], { DATABASE_URL: db.url, PORT: "0", GRPC_PORT: "0", METRICS_PORT: "0" });
    const [, httpUrl] = await demo.waitFor(/REST, Connect, gRPC-Web\s+(http:\/\/\S+)/, 120_000);
    expect((await fetch(`${httpUrl}/readyz`)).status).toBe(200);
    const [, raceId] = await demo.waitFor(/Race\s+.* \(([0-9a-f-]{36})\), live/);
    const [, clientSecret] = await demo.waitFor(/client_secret (\S+)/);
    expect(clientSecret!.length).toBeGreaterThanOrEqual(24);
    // A ready overlay URL: the page at /overlay/ with the race and a working token in its fragment.
    const [, overlayUrl] = await demo.waitFor(/^\s+(http:\/\/\S+\/overlay\/#\S+)$/m);
    const fragment = new URLSearchParams(new URL(overlayUrl!).hash.slice(1));
    expect(fragment.get("race")).toBe(raceId);
    expect((await fetch(new URL(overlayUrl!).href.split("#")[0]!)).status).toBe(200);
    expect(
      (await fetch(`${httpUrl}/api/v1/races/${raceId}/live`, { headers: { authorization: `Bearer ${fragment.get("token")}` } })).status,
    ).toBe(200);
    // And one for a page that runs past the token's hour: it fetches its own tokens as the demo client.
    const [, renewingUrl] = await demo.waitFor(/^\s+(http:\/\/\S+\/overlay\/#\S+&client=\S+)$/m);
    const renewing = new URLSearchParams(new URL(renewingUrl!).hash.slice(1));
    expect([renewing.get("race"), renewing.get("client"), renewing.get("secret")]).toEqual([raceId, "demo-overlay", clientSecret]);

    // Every API command the demo offers to paste answers 200 (streams too, closed after their head).
    const token = fragment.get("token")!;
    const offered = [...demo.stdout().matchAll(/^\s+curl .*?"?(http:\/\/\S+?\/api\/v1\/races\/\S+?)"?$/gm)].map((m) => m[1]!);
    expect(offered.some((url) => url.includes("/analytics?"))).toBe(true);
    expect(offered.some((url) => url.includes("/track/export?"))).toBe(true);
    expect(offered.some((url) => url.includes("/live/stream?from="))).toBe(true);
    for (const url of offered) {
      const controller = new AbortController();
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
      expect(response.status, url).toBe(200);
      controller.abort();
    }

    const [groups] = await db.pool.query<RowDataPacket[]>(
      "SELECT g.id, COUNT(DISTINCT m.entry_id) AS boats FROM start_groups g JOIN races r ON r.id = g.race_id JOIN start_group_entries m ON m.start_group_id = g.id WHERE r.uuid = ? GROUP BY g.id",
      [raceId],
    );
    expect(groups).toHaveLength(2);
    for (const group of groups) expect(Number(group.boats)).toBeGreaterThanOrEqual(12);

    // The live feed appends each second's fixes: the newest fix moves forward while we watch.
    const newest = async () => {
      const [[row]] = await db.pool.query<RowDataPacket[]>(
        "SELECT MAX(f.t) AS t FROM fixes f JOIN start_groups g ON g.id = f.start_group_id JOIN races r ON r.id = g.race_id WHERE r.uuid = ?",
        [raceId],
      );
      return Number(row?.t);
    };
    const first = await newest();
    expect(first).toBeGreaterThan(Date.now() - 10_000);
    await within(10_000, async () => expect(await newest()).toBeGreaterThan(first));

    expect(await demo.stop("SIGINT")).toBe(0);
    // Fed through IngestService by the demo's own tracking:write client, not by writing tables.
    expect(demo.stdout()).toMatch(/through IngestService over gRPC \(http:\/\/\S+\) as client_id demo-feed \(scope tracking:write\)/);
    const [, accepted] = demo
      .stdout()
      .match(/Live feed: \d+ calls, (\d+) fixes accepted, \d+ duplicates, rejected: .*, failed calls: none/)!;
    expect(Number(accepted)).toBeGreaterThan(0);
    const [[fed]] = await db.pool.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM fixes f JOIN start_groups g ON g.id = f.start_group_id JOIN races r ON r.id = g.race_id WHERE r.uuid = ? AND f.t > ?",
      [raceId, first],
    );
    expect(Number(fed!.n)).toBeLessThanOrEqual(Number(accepted));
    expect(Number(fed!.n)).toBeGreaterThan(0);
    expect(demo.stdout()).toContain("Stopped.");
  });
});
