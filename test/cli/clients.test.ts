// `race-api clients` as an administrator runs it: what it prints, the rows it leaves,
// and the one line it answers a mistake with. `clients create` runs once through the
// real bin (bin/race-api.js); the other subcommands through the command's `main` in
// this process (wiring, arguments, exit code), and the variants and the table of
// mistakes call clientsCommand, because each bin start costs about a second.

import type { RowDataPacket } from "mysql2/promise";
import { beforeAll, describe, expect, it } from "vitest";
import { verifySecret } from "../../src/auth/secrets.js";
import { clientsCommand } from "../../src/commands/clients.js";
import { importScenario } from "../../src/scenario/import.js";
import { raceApi, runMain, type Finished } from "../support/cli.js";
import { useFreshDatabase } from "../support/database.js";
import { IDS, smallScenario } from "../support/scenarios.js";

const db = useFreshDatabase();

beforeAll(async () => {
  await importScenario(db.pool, smallScenario()); // two clubs and the client overlay-1
});

/** Through the command's `main`, in this process. */
function clients(...args: string[]): Promise<Finished> {
  return runMain(["clients", ...args], { DATABASE_URL: db.url });
}

/** The clients command itself in this process, its output captured. */
async function local(...args: string[]): Promise<Finished> {
  let stdout = "";
  let stderr = "";
  const code = await clientsCommand(db.pool, args, {
    env: process.env,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

async function row(clientId: string): Promise<RowDataPacket> {
  const [rows] = await db.pool.query<RowDataPacket[]>("SELECT * FROM api_clients WHERE client_id = ?", [clientId]);
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

async function allRows(): Promise<RowDataPacket[]> {
  const [rows] = await db.pool.query<RowDataPacket[]>("SELECT * FROM api_clients ORDER BY id");
  return rows;
}

async function clientOrigins(clientId: string): Promise<string[]> {
  const [rows] = await db.pool.query<RowDataPacket[]>(
    "SELECT o.origin FROM client_origins o JOIN api_clients c ON c.id = o.api_client_id WHERE c.client_id = ? ORDER BY o.origin",
    [clientId],
  );
  return rows.map((row) => row.origin as string);
}

function printed(output: string, field: string): string {
  const match = new RegExp(`^\\s+${field}\\s+(\\S+)$`, "m").exec(output);
  expect(match, `${field} in:\n${output}`).not.toBeNull();
  return match![1]!;
}

describe("race-api clients", () => {
  it("explains itself with --help, without a database", async () => {
    const runs = [
      await runMain(["clients", "create", "--help"], { DATABASE_URL: "mysql://nobody@127.0.0.1:1/nowhere" }),
      await local("--help"),
      await local("help"),
      await local("list", "-h"),
    ];
    for (const { code, stdout } of runs) {
      expect(code).toBe(0);
      for (const command of [
        "create --club CLUB_UUID",
        "list [--club CLUB_UUID]",
        "rotate-secret CLIENT_ID",
        "disable CLIENT_ID",
        "enable CLIENT_ID",
        "set-expiry CLIENT_ID",
        "set-allowlist CLIENT_ID",
        "set-scopes CLIENT_ID",
        "set-origins CLIENT_ID",
        "set-club-origins CLUB_UUID",
      ]) {
        expect(stdout).toContain(command);
      }
      for (const scope of ["tracking:read", "events:read", "results:read"]) expect(stdout).toContain(scope);
    }
  });

  it("creates a client, prints its secret once, and stores only a hash of it (through the bin)", async () => {
    const { code, stdout, stderr } = await raceApi(
      [
        "clients",
        "create",
        "--club",
        IDS.club,
        "--scopes",
        "tracking:read events:read",
        "--client-id",
        "tv-overlay",
        "--name",
        "TV overlay",
        "--expires-at",
        "2027-03-31T23:59:59Z",
        "--allowlist",
        "10.0.0.0/8 2001:db8::/32",
        "--origins",
        "https://TV.example, http://localhost:5173/",
      ],
      { DATABASE_URL: db.url },
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(printed(stdout, "client_id")).toBe("tv-overlay");
    const secret = printed(stdout, "client_secret");
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stdout.split(secret)).toHaveLength(2); // printed exactly once
    expect(stdout).toContain("shown only now");
    expect(stdout).toContain("2027-03-31T23:59:59Z");

    const stored = await row("tv-overlay");
    expect(await verifySecret(secret, stored.secret_hash)).toBe(true);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored).toMatchObject({ name: "TV overlay", scopes: "tracking:read events:read", secret_version: 1, disabled: 0 });
    expect(stored.expires_at).toEqual(new Date("2027-03-31T23:59:59Z"));
    expect(JSON.parse(stored.ip_allowlist)).toEqual(["10.0.0.0/8", "2001:db8::/32"]);
    // Origins as browsers send them: lower-case, without the trailing slash.
    expect(stdout).toMatch(/origins\s+https:\/\/tv\.example http:\/\/localhost:5173$/m);
    expect(await clientOrigins("tv-overlay")).toEqual(["http://localhost:5173", "https://tv.example"]);

    const listed = await clients("list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("tv-overlay");
    expect(listed.stdout).not.toContain(secret);
    expect(listed.stdout).not.toContain("scrypt");
  });

  it("makes up a client id, and takes defaults for the rest", async () => {
    const { code, stdout } = await local("create", "--club", IDS.otherClub, "--scopes", "results:read,events:read");
    expect(code).toBe(0);
    const clientId = printed(stdout, "client_id");
    expect(clientId).toMatch(/^client-[0-9a-f]{12}$/);
    const stored = await row(clientId);
    expect(stored).toMatchObject({
      name: null,
      scopes: "results:read events:read",
      expires_at: null,
      ip_allowlist: "[]",
      club_id: expect.any(Number),
    });
    expect(stdout).toMatch(/expires\s+never/);
    expect(stdout).toMatch(/allowlist\s+any address/);
  });

  it("lists clients as a table by club, never with secrets or hashes", async () => {
    const all = await clients("list");
    expect(all.code).toBe(0);
    const lines = all.stdout.split("\n");
    expect(lines).toContain(`Co-host Sailing Club  ${IDS.otherClub}`);
    expect(lines).toContain(`Royal Test Yacht Club  ${IDS.club}`);
    expect(all.stdout).toMatch(/CLIENT ID\s+NAME\s+STATUS\s+SCOPES\s+EXPIRES\s+ALLOWLIST\s+ORIGINS\s+SECRET VERSION\s+CREATED\s+UPDATED/);
    expect(all.stdout).toMatch(/overlay-1\s+-\s+active\s+tracking:read events:read\s+never\s+10\.0\.0\.0\/8\s+club's\s+1\s/);
    expect(all.stdout).toMatch(
      /tv-overlay\s+TV overlay\s+active\s+tracking:read events:read\s+2027-03-31T23:59:59Z\s+10\.0\.0\.0\/8 2001:db8::\/32\s+http:\/\/localhost:5173 https:\/\/tv\.example\s+1\s/,
    );
    for (const stored of await allRows()) expect(all.stdout).not.toContain(stored.secret_hash);
    expect(all.stdout).not.toContain("s3cret-overlay-1");

    const one = await local("list", "--club", IDS.otherClub.toUpperCase());
    expect(one.code).toBe(0);
    expect(one.stdout).not.toContain("overlay-1");
    expect(one.stdout).toMatch(/client-[0-9a-f]{12}/);
  });

  it("rotates a secret: a new one printed once, the version bumped, the old one dead", async () => {
    const before = await row("overlay-1");
    const { code, stdout } = await clients("rotate-secret", "overlay-1");
    expect(code).toBe(0);
    const secret = printed(stdout, "client_secret");
    expect(stdout.split(secret)).toHaveLength(2);
    expect(stdout).toContain("shown only now");
    expect(stdout).toContain("Tokens issued before the rotation stop working within 5 s.");
    const after = await row("overlay-1");
    expect(after.secret_version).toBe(before.secret_version + 1);
    expect(await verifySecret(secret, after.secret_hash)).toBe(true);
    expect(await verifySecret("s3cret-overlay-1", after.secret_hash)).toBe(false);
  });

  it("disables and enables a client", async () => {
    const disabled = await clients("disable", "overlay-1");
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toBe(
      "Client overlay-1 is disabled: its token requests are refused, and its tokens already issued within 5 s.\n",
    );
    expect((await row("overlay-1")).disabled).toBe(1);
    expect((await local("list", "--club", IDS.club)).stdout).toMatch(/overlay-1\s+-\s+disabled/);
    const enabled = await clients("enable", "overlay-1");
    expect(enabled.code).toBe(0);
    expect((await row("overlay-1")).disabled).toBe(0);
  });

  it("sets and clears the expiry", async () => {
    const set = await clients("set-expiry", "overlay-1", "2028-01-01T12:00:00+02:00");
    expect(set.code).toBe(0);
    expect(set.stdout).toContain("expires at 2028-01-01T10:00:00Z");
    expect((await row("overlay-1")).expires_at).toEqual(new Date("2028-01-01T10:00:00Z"));

    const past = await local("set-expiry", "overlay-1", "2020-01-01T00:00:00.250Z");
    expect(past.code).toBe(0);
    expect(past.stdout).toContain("already past");
    expect((await local("list", "--club", IDS.club)).stdout).toMatch(/overlay-1\s+-\s+expired/);

    const never = await local("set-expiry", "overlay-1", "never");
    expect(never.code).toBe(0);
    expect(never.stdout).toContain("never expires");
    expect((await row("overlay-1")).expires_at).toBeNull();
  });

  it("sets and clears the allowlist", async () => {
    const set = await clients("set-allowlist", "overlay-1", "192.0.2.7", "2001:db8::/48,198.51.100.0/24");
    expect(set.code).toBe(0);
    expect(JSON.parse((await row("overlay-1")).ip_allowlist)).toEqual(["192.0.2.7", "2001:db8::/48", "198.51.100.0/24"]);
    const cleared = await local("set-allowlist", "overlay-1");
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toContain("accepts callers from any address");
    expect((await row("overlay-1")).ip_allowlist).toBe("[]");
  });

  it("sets the scopes", async () => {
    const { code, stdout } = await clients("set-scopes", "overlay-1", "results:read", "tracking:read");
    expect(code).toBe(0);
    expect(stdout).toContain("has the scopes results:read tracking:read");
    expect((await row("overlay-1")).scopes).toBe("results:read tracking:read");
  });

  it("sets and clears a client's origins and a club's", async () => {
    const set = await clients("set-origins", "overlay-1", "https://Club.example:443", "http://127.0.0.1:8090");
    expect(set.code).toBe(0);
    expect(set.stdout).toBe(
      "Client overlay-1 may be read by web pages on https://club.example http://127.0.0.1:8090 and its club's origins (takes effect for tokens already issued within 5 s).\n",
    );
    expect(await clientOrigins("overlay-1")).toEqual(["http://127.0.0.1:8090", "https://club.example"]);

    const club = await clients("set-club-origins", IDS.club.toUpperCase(), "https://www.royal-test.example");
    expect(club.code).toBe(0);
    expect(club.stdout).toContain(`Every client of club ${IDS.club} may be read by web pages on https://www.royal-test.example`);
    const listed = await local("list");
    expect(listed.stdout.split("\n")).toContain(`Royal Test Yacht Club  ${IDS.club}  origins: https://www.royal-test.example`);
    expect(listed.stdout).toMatch(/overlay-1\s.*\s+http:\/\/127\.0\.0\.1:8090 https:\/\/club\.example\s+\d/);

    const cleared = await local("set-origins", "overlay-1");
    expect(cleared.stdout).toContain("on its club's origins only");
    expect(await clientOrigins("overlay-1")).toEqual([]);
    const clubCleared = await local("set-club-origins", IDS.club);
    expect(clubCleared.stdout).toContain("on no origin");
    const [rows] = await db.pool.query<RowDataPacket[]>("SELECT origin FROM club_origins");
    expect(rows).toEqual([]);
  });

  it("answers a bad value with one line naming it, exit code 1, and changes nothing", async () => {
    const before = await allRows();
    const originsBefore = await clientOrigins("tv-overlay");
    const cases: [string[], string][] = [
      [
        ["create", "--club", IDS.club, "--scopes", "tracking:read fixes:write"],
        'race-api: unknown scope "fixes:write" (scopes: tracking:read, events:read, results:read, tracking:write)',
      ],
      [
        ["create", "--club", IDS.club, "--scopes", "tracking:read", "--allowlist", "10.0.0.0/33"],
        'race-api: allowlist entry "10.0.0.0/33" has a prefix length that is not a whole number from 0 to 32',
      ],
      [
        ["create", "--club", IDS.club, "--scopes", "tracking:read", "--expires-at", "2027-02-30T00:00:00Z"],
        'race-api: "2027-02-30T00:00:00Z" is not a date-time: write ISO 8601 with a time zone, e.g. 2027-03-31T23:59:59Z, or "never"',
      ],
      [
        ["create", "--club", IDS.club, "--scopes", "tracking:read", "--expires-at", "2027-03-31T23:59:59"],
        'race-api: "2027-03-31T23:59:59" is not a date-time: write ISO 8601 with a time zone, e.g. 2027-03-31T23:59:59Z, or "never"',
      ],
      [
        ["create", "--club", "99999999-9999-4999-8999-999999999999", "--scopes", "tracking:read"],
        'race-api: unknown club "99999999-9999-4999-8999-999999999999"',
      ],
      [
        ["create", "--club", IDS.club, "--scopes", "tracking:read", "--client-id", "overlay-1"],
        'race-api: client id "overlay-1" is already taken',
      ],
      [
        ["create", "--club", IDS.club, "--scopes", "tracking:read", "--client-id", "bad id!"],
        'race-api: client id "bad id!" must be 1 to 128 letters, digits, ".", "_", "~" or "-"',
      ],
      [["create", "--club", IDS.club, "--scopes", " "], "race-api: a client needs at least one scope"],
      [["list", "--club", "not-a-club"], 'race-api: unknown club "not-a-club"'],
      [["rotate-secret", "nobody"], 'race-api: unknown client "nobody"'],
      [["disable", "nobody"], 'race-api: unknown client "nobody"'],
      [["enable", "nobody"], 'race-api: unknown client "nobody"'],
      [
        ["set-expiry", "overlay-1", "tomorrow"],
        'race-api: "tomorrow" is not a date-time: write ISO 8601 with a time zone, e.g. 2027-03-31T23:59:59Z, or "never"',
      ],
      [["set-expiry", "nobody", "never"], 'race-api: unknown client "nobody"'],
      [
        ["set-allowlist", "overlay-1", "10.0.0.0/8", "10.0.0.300"],
        'race-api: allowlist entry "10.0.0.300" is not an IPv4 or IPv6 address or CIDR range',
      ],
      [
        ["set-scopes", "overlay-1", "results:write"],
        'race-api: unknown scope "results:write" (scopes: tracking:read, events:read, results:read, tracking:write)',
      ],
      [["set-scopes", "nobody", "tracking:read"], 'race-api: unknown client "nobody"'],
      [
        ["set-origins", "tv-overlay", "https://ok.example", "https://club.example/overlay"],
        'race-api: origin "https://club.example/overlay" is not an origin: scheme://host[:port] only, no path, wildcard or credentials',
      ],
      [["set-origins", "tv-overlay", "*"], 'race-api: origin "*" is not an origin: write scheme://host[:port], e.g. https://club.example'],
      [
        ["set-origins", "tv-overlay", "https://*.club.example"],
        'race-api: origin "https://*.club.example" is not an origin: scheme://host[:port] only, no path, wildcard or credentials',
      ],
      [
        ["set-origins", "tv-overlay", "null"],
        'race-api: origin "null" is not an origin: write scheme://host[:port], e.g. https://club.example',
      ],
      [["set-origins", "tv-overlay", "file:///overlay.html"], 'race-api: origin "file:///overlay.html" must be http:// or https://'],
      [
        ["set-origins", "tv-overlay", "https://user:pw@club.example"],
        'race-api: origin "https://user:pw@club.example" is not an origin: scheme://host[:port] only, no path, wildcard or credentials',
      ],
      [
        ["set-origins", "tv-overlay", `https://${"a".repeat(300)}.example`],
        `race-api: origin "https://${"a".repeat(52)}..." is longer than 300 characters`,
      ],
      [["set-origins", "nobody", "https://club.example"], 'race-api: unknown client "nobody"'],
      [["set-club-origins", "not-a-club", "https://club.example"], 'race-api: unknown club "not-a-club"'],
      [
        ["create", "--club", IDS.club, "--scopes", "tracking:read", "--origins", "club.example"],
        'race-api: origin "club.example" is not an origin: write scheme://host[:port], e.g. https://club.example',
      ],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await local(...args);
      expect({ args, code, stderr, stdout }).toEqual({ args, code: 1, stderr: `${message}\n`, stdout: "" });
    }
    const [first, last] = [cases[0]!, cases.at(-1)!];
    const [viaBinFirst, viaBinLast] = await Promise.all([clients(...first[0]), clients(...last[0])]);
    expect(viaBinFirst).toEqual({ code: 1, stderr: `${first[1]}\n`, stdout: "" });
    expect(viaBinLast).toEqual({ code: 1, stderr: `${last[1]}\n`, stdout: "" });
    expect(await allRows()).toEqual(before);
    expect(await clientOrigins("tv-overlay")).toEqual(originsBefore);
  });

  it("answers a malformed command with one line of usage and exit code 2", async () => {
    const cases: [string[], string][] = [
      [["frobnicate"], 'race-api: unknown clients command "frobnicate"; see race-api clients --help'],
      [["rotate-secret"], "race-api: usage: race-api clients rotate-secret CLIENT_ID"],
      [["disable", "a", "b"], "race-api: usage: race-api clients disable CLIENT_ID"],
      [["set-expiry", "overlay-1"], "race-api: usage: race-api clients set-expiry CLIENT_ID DATE_TIME|never"],
      [["set-scopes", "overlay-1"], "race-api: usage: race-api clients set-scopes CLIENT_ID SCOPE [SCOPE ...]"],
      [["set-origins"], "race-api: usage: race-api clients set-origins CLIENT_ID [ORIGIN ...]"],
      [["set-club-origins"], "race-api: usage: race-api clients set-club-origins CLUB_UUID [ORIGIN ...]"],
      [["create", "--scopes", "tracking:read"], "race-api: clients create: --club CLUB_UUID is required; see race-api clients --help"],
      [["create", "--club", IDS.club], 'race-api: clients create: --scopes "SCOPE ..." is required; see race-api clients --help'],
      [["create", "--club"], "race-api: clients create: --club needs a value"],
      [
        ["create", "--club", IDS.club, "--scopes", "tracking:read", "extra"],
        expect.stringContaining("race-api: usage: race-api clients create --club CLUB_UUID"),
      ],
      [["list", "--bogus"], "race-api: clients list: unknown option --bogus; see race-api clients --help"],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await local(...args);
      expect({ args, code, lines: stderr.trimEnd().split("\n") }).toEqual({ args, code: 2, lines: [message] });
    }
    const viaBin = await clients("list", "--bogus");
    expect(viaBin).toEqual({
      code: 2,
      stderr: "race-api: clients list: unknown option --bogus; see race-api clients --help\n",
      stdout: "",
    });
    const bare = await local();
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("Usage: race-api clients <command>");
  });
});
