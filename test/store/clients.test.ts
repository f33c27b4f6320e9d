// API client administration against a real database: what is stored, what is
// returned, and which mistakes are refused.

import type { RowDataPacket } from "mysql2/promise";
import { beforeAll, describe, expect, it } from "vitest";
import { createClient, rotateSecret, setAllowlist, setClubOrigins, setScopes } from "../../src/auth/clients.js";
import { InvalidAllowlistEntry } from "../../src/auth/ip-allowlist.js";
import { UnknownScope } from "../../src/auth/scopes.js";
import { verifySecret } from "../../src/auth/secrets.js";
import { importScenario } from "../../src/scenario/import.js";
import {
  ClientIdTaken,
  ClientInputInvalid,
  findClientState,
  listClients,
  setDisabled,
  setExpiry,
  UnknownClient,
  UnknownClub,
} from "../../src/store/clients.js";
import { useFreshDatabase } from "../support/database.js";
import { IDS, smallScenario } from "../support/scenarios.js";

const db = useFreshDatabase();

beforeAll(async () => {
  await importScenario(db.pool, smallScenario());
});

async function row(clientId: string): Promise<RowDataPacket> {
  const [rows] = await db.pool.query<RowDataPacket[]>("SELECT * FROM api_clients WHERE client_id = ?", [clientId]);
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

describe("createClient", () => {
  it("stores only a hash that verifies the returned secret", async () => {
    const { clientId, secret } = await createClient(db.pool, {
      clubUuid: IDS.club,
      clientId: "website",
      name: "Club website",
      scopes: ["events:read", "results:read"],
    });
    expect(clientId).toBe("website");
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
    const stored = await row("website");
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored.secret_hash).toMatch(/^scrypt\$/);
    expect(await verifySecret(secret, stored.secret_hash)).toBe(true);
    expect(await verifySecret(`${secret}x`, stored.secret_hash)).toBe(false);
    expect(stored).toMatchObject({
      name: "Club website",
      scopes: "events:read results:read",
      secret_version: 1,
      disabled: 0,
      expires_at: null,
      ip_allowlist: "[]",
    });
  });

  it("makes up a client id and a different secret each time", async () => {
    const first = await createClient(db.pool, { clubUuid: IDS.club, scopes: ["tracking:read"] });
    const second = await createClient(db.pool, { clubUuid: IDS.club, scopes: ["tracking:read"] });
    expect(first.clientId).toMatch(/^client-[0-9a-f]{12}$/);
    expect(second.clientId).not.toBe(first.clientId);
    expect(second.secret).not.toBe(first.secret);
  });

  it("stores expiry and allowlist, and accepts the club id in upper case", async () => {
    const expiresAt = new Date("2027-03-31T23:59:59.500Z");
    await createClient(db.pool, {
      clubUuid: IDS.club.toUpperCase(),
      clientId: "kiosk",
      scopes: ["tracking:read", "tracking:read"],
      expiresAt,
      ipAllowlist: ["10.0.0.0/8", "2001:db8::/32"],
    });
    const stored = await row("kiosk");
    expect(stored.expires_at).toEqual(expiresAt);
    expect(JSON.parse(stored.ip_allowlist)).toEqual(["10.0.0.0/8", "2001:db8::/32"]);
    expect(stored.scopes).toBe("tracking:read");
  });

  it("refuses bad input, writing nothing", async () => {
    const [[before]] = await db.pool.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM api_clients");
    const base = { clubUuid: IDS.club, scopes: ["tracking:read"] };
    await expect(createClient(db.pool, { ...base, clubUuid: "99999999-9999-4999-8999-999999999999" })).rejects.toThrow(UnknownClub);
    await expect(createClient(db.pool, { ...base, clubUuid: "not-a-uuid" })).rejects.toThrow('unknown club "not-a-uuid"');
    await expect(createClient(db.pool, { ...base, scopes: ["tracking:read", "fixes:write"] })).rejects.toThrow(UnknownScope);
    await expect(createClient(db.pool, { ...base, scopes: [] })).rejects.toThrow(ClientInputInvalid);
    await expect(createClient(db.pool, { ...base, ipAllowlist: ["10.0.0.0/40"] })).rejects.toThrow(InvalidAllowlistEntry);
    await expect(createClient(db.pool, { ...base, clientId: "has space" })).rejects.toThrow('client id "has space" must be');
    await expect(createClient(db.pool, { ...base, clientId: "x".repeat(129) })).rejects.toThrow(ClientInputInvalid);
    await expect(createClient(db.pool, { ...base, expiresAt: new Date("nonsense") })).rejects.toThrow(ClientInputInvalid);
    await expect(createClient(db.pool, { ...base, expiresAt: new Date(Date.UTC(10000, 0, 1)) })).rejects.toThrow(
      "outside the years 1000 to 9999",
    );
    await expect(createClient(db.pool, { ...base, name: "n".repeat(201) })).rejects.toThrow(ClientInputInvalid);
    await expect(createClient(db.pool, { ...base, clientId: "overlay-1" })).rejects.toThrow(ClientIdTaken);
    const [[after]] = await db.pool.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM api_clients");
    expect(after!.n).toBe(before!.n);
  });
});

describe("listClients", () => {
  it("lists every field but the secret and its hash", async () => {
    const { secret } = await createClient(db.pool, { clubUuid: IDS.otherClub, clientId: "cohost-app", scopes: ["events:read"] });
    const all = await listClients(db.pool);
    const text = JSON.stringify(all);
    expect(text).not.toContain(secret);
    expect(text).not.toContain("scrypt");
    for (const client of all)
      expect(Object.keys(client).sort()).toEqual([
        "allowedOrigins",
        "clientId",
        "clubAllowedOrigins",
        "clubName",
        "clubUuid",
        "createdAt",
        "disabled",
        "expiresAt",
        "ipAllowlist",
        "name",
        "scopes",
        "secretVersion",
        "updatedAt",
      ]);
    expect(all.find((c) => c.clientId === "overlay-1")).toEqual({
      clientId: "overlay-1",
      clubUuid: IDS.club,
      clubName: "Royal Test Yacht Club",
      name: null,
      scopes: ["tracking:read", "events:read"],
      disabled: false,
      expiresAt: null,
      ipAllowlist: ["10.0.0.0/8"],
      allowedOrigins: [],
      clubAllowedOrigins: [],
      secretVersion: 1,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    // Ordered by club name, then client id.
    expect(all[0]!.clientId).toBe("cohost-app");
    const ids = all.filter((c) => c.clubUuid === IDS.club).map((c) => c.clientId);
    expect(ids).toEqual([...ids].sort());
  });

  it("lists one club's clients", async () => {
    const club = await listClients(db.pool, IDS.otherClub);
    expect(club.map((c) => c.clientId)).toEqual(["cohost-app"]);
    await expect(listClients(db.pool, "99999999-9999-4999-8999-999999999999")).rejects.toThrow(UnknownClub);
  });
});

describe("rotateSecret", () => {
  it("stores a new hash, bumps secret_version, and the old secret no longer verifies", async () => {
    const { secret: old } = await createClient(db.pool, { clubUuid: IDS.club, clientId: "rotating", scopes: ["tracking:read"] });
    const secret = await rotateSecret(db.pool, "rotating");
    expect(secret).not.toBe(old);
    expect(secret.length).toBeGreaterThanOrEqual(43);
    const stored = await row("rotating");
    expect(stored.secret_version).toBe(2);
    expect(await verifySecret(secret, stored.secret_hash)).toBe(true);
    expect(await verifySecret(old, stored.secret_hash)).toBe(false);
    await rotateSecret(db.pool, "rotating");
    expect((await row("rotating")).secret_version).toBe(3);
  });
});

describe("setters", () => {
  it("disable and enable, idempotently", async () => {
    await setDisabled(db.pool, "overlay-1", true);
    expect((await row("overlay-1")).disabled).toBe(1);
    await setDisabled(db.pool, "overlay-1", true); // unchanged is not "unknown"
    await setDisabled(db.pool, "overlay-1", false);
    expect((await row("overlay-1")).disabled).toBe(0);
  });

  it("set and clear the expiry", async () => {
    const expiresAt = new Date("2030-01-01T00:00:00Z");
    await setExpiry(db.pool, "overlay-1", expiresAt);
    expect((await row("overlay-1")).expires_at).toEqual(expiresAt);
    await setExpiry(db.pool, "overlay-1", null);
    expect((await row("overlay-1")).expires_at).toBeNull();
    await expect(setExpiry(db.pool, "overlay-1", new Date(Number.NaN))).rejects.toThrow(ClientInputInvalid);
  });

  it("set and clear the allowlist, refusing a bad entry", async () => {
    await setAllowlist(db.pool, "overlay-1", ["192.0.2.1", "2001:db8::/48"]);
    expect(JSON.parse((await row("overlay-1")).ip_allowlist)).toEqual(["192.0.2.1", "2001:db8::/48"]);
    await expect(setAllowlist(db.pool, "overlay-1", ["192.0.2.0/24", "192.0.2.300"])).rejects.toThrow('allowlist entry "192.0.2.300"');
    expect(JSON.parse((await row("overlay-1")).ip_allowlist)).toEqual(["192.0.2.1", "2001:db8::/48"]);
    await setAllowlist(db.pool, "overlay-1", []);
    expect((await row("overlay-1")).ip_allowlist).toBe("[]");
  });

  it("set scopes, refusing unknown ones and an empty list", async () => {
    await setScopes(db.pool, "overlay-1", ["results:read", "tracking:read"]);
    expect((await row("overlay-1")).scopes).toBe("results:read tracking:read");
    await expect(setScopes(db.pool, "overlay-1", ["results:write"])).rejects.toThrow('unknown scope "results:write"');
    await expect(setScopes(db.pool, "overlay-1", [])).rejects.toThrow("at least one scope");
    expect((await row("overlay-1")).scopes).toBe("results:read tracking:read");
  });

  it("name an unknown client", async () => {
    for (const attempt of [
      () => rotateSecret(db.pool, "nobody"),
      () => setDisabled(db.pool, "nobody", true),
      () => setExpiry(db.pool, "nobody", null),
      () => setAllowlist(db.pool, "nobody", []),
      () => setScopes(db.pool, "nobody", ["tracking:read"]),
    ]) {
      await expect(attempt()).rejects.toThrow(UnknownClient);
    }
    await expect(setDisabled(db.pool, "OVERLAY-1", true)).rejects.toThrow('unknown client "OVERLAY-1"'); // ids are case-sensitive
  });
});

describe("findClientState", () => {
  it("returns what the guard needs, with the club's limits and origins", async () => {
    await db.pool.query("UPDATE clubs SET tracking_rate_limit_per_minute = 240 WHERE uuid = ?", [IDS.club]);
    await db.pool.query("INSERT INTO club_ingest_limits (club_id, rate_limit_per_minute) SELECT id, 3000 FROM clubs WHERE uuid = ?", [
      IDS.club,
    ]);
    await setClubOrigins(db.pool, IDS.club, ["https://www.club.example", "https://both.example"]);
    const expiresAt = new Date("2031-06-01T12:00:00Z");
    const allowedOrigins = ["https://Overlay.example:443", "https://both.example"];
    await createClient(db.pool, {
      clubUuid: IDS.club,
      clientId: "guarded",
      name: "Guarded",
      scopes: ["tracking:read", "events:read"],
      expiresAt,
      ipAllowlist: ["10.0.0.0/8"],
      allowedOrigins,
    });
    await rotateSecret(db.pool, "guarded");
    await setDisabled(db.pool, "guarded", true);
    const stored = await row("guarded");
    const [[club]] = await db.pool.query<RowDataPacket[]>("SELECT id FROM clubs WHERE uuid = ?", [IDS.club]);
    expect(await findClientState(db.pool, "guarded")).toEqual({
      id: stored.id,
      clientId: "guarded",
      clubId: club!.id,
      clubUuid: IDS.club,
      name: "Guarded",
      scopes: ["tracking:read", "events:read"],
      disabled: true,
      expiresAt,
      ipAllowlist: ["10.0.0.0/8"],
      secretVersion: 2,
      secretHash: stored.secret_hash,
      rateLimitPerMinute: 90,
      trackingRateLimitPerMinute: 240,
      ingestRateLimitPerMinute: 3000,
      // Its own and its club's, each once, as browsers send them.
      allowedOrigins: ["https://both.example", "https://overlay.example", "https://www.club.example"],
    });
    await setClubOrigins(db.pool, IDS.club, []);
  });

  it("reports null limits as the defaults' null", async () => {
    const state = await findClientState(db.pool, "cohost-app");
    expect(state).toMatchObject({
      clubUuid: IDS.otherClub,
      rateLimitPerMinute: null,
      trackingRateLimitPerMinute: null,
      ingestRateLimitPerMinute: null,
      name: null,
      expiresAt: null,
      ipAllowlist: [],
    });
  });

  it("returns null for an unknown client", async () => {
    expect(await findClientState(db.pool, "nobody")).toBeNull();
  });

  it("fails closed on a malformed stored allowlist", async () => {
    await db.pool.query("UPDATE api_clients SET ip_allowlist = '10.0.0.0/8' WHERE client_id = 'cohost-app'");
    await expect(findClientState(db.pool, "cohost-app")).rejects.toThrow('ip_allowlist of client "cohost-app" is not a JSON array');
    await db.pool.query("UPDATE api_clients SET ip_allowlist = '[]' WHERE client_id = 'cohost-app'");
  });
});
