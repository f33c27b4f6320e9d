// Every text column a client's input fills holds whatever the validators let through:
// the table of limits (src/scenario/text-limits.ts) against the migrated database's
// own column widths, every other text column accounted for, and `race-api import`
// taking each text at its limit and refusing one character more at the field's path.

import type { RowDataPacket } from "mysql2/promise";
import { describe, expect, it } from "vitest";
import { parseAllowlist } from "../../src/auth/ip-allowlist.js";
import { SCOPES } from "../../src/auth/scopes.js";
import { importScenario, ScenarioRejected } from "../../src/scenario/import.js";
import schema from "../../src/scenario/scenario.schema.json" with { type: "json" };
import { TEXT_LIMITS, type TextField } from "../../src/scenario/text-limits.js";
import { useFreshDatabase } from "../support/database.js";
import { copy, smallScenario } from "../support/scenarios.js";
import { snapshot } from "../support/snapshot.js";
import { atLimit, PLACES, pastLimit } from "../support/text-limits.js";

const db = useFreshDatabase();

/** Text columns no client's text reaches, or that another rule bounds, and why. */
const BOUNDED_OTHERWISE: Record<string, string> = {
  "*.uuid": "a UUID: the schema's pattern, 36 characters",
  "api_clients.secret_hash": "a scrypt hash the server makes",
  "api_clients.scopes": "known scopes, each stored once: tested below",
  "api_clients.ip_allowlist": "JSON of at most 1,000 addresses of at most 49 characters: tested below",
  "signing_keys.kid": "made by the server",
  "signing_keys.alg": "made by the server",
  "signing_keys.private_jwk": "made by the server",
  "signing_keys.public_jwk": "made by the server",
  "insight_generations.lease_owner": "made by the server",
  "insight_facts.fact_id": "made by the server",
  "insight_facts.fact": "made by the server",
  "insight_texts.fact_id": "made by the server",
  "insight_texts.lang": "one of the nine languages",
  "insight_texts.text": "a template's line, or a model's line of at most 160 characters",
  "insight_languages.lang": "one of the nine languages",
  "schema_migrations.name": "made by the server",
};

async function textColumns(): Promise<Map<string, number>> {
  const [rows] = await db.pool.query<RowDataPacket[]>(
    `SELECT TABLE_NAME, COLUMN_NAME, CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS
     WHERE TABLE_SCHEMA = DATABASE() AND DATA_TYPE IN ('char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext')`,
  );
  return new Map(rows.map((row) => [`${row.TABLE_NAME}.${row.COLUMN_NAME}`, Number(row.CHARACTER_MAXIMUM_LENGTH)]));
}

describe("the table of text limits", () => {
  it("gives each column the width the database holds", async () => {
    const widths = await textColumns();
    for (const { column, maxLength } of Object.values(TEXT_LIMITS))
      expect({ column, maxLength }).toEqual({ column, maxLength: widths.get(column) });
  });

  it("leaves no text column out: each is in the table or bounded otherwise", async () => {
    const columns = await textColumns();
    const limited = new Set(Object.values(TEXT_LIMITS).map((limit) => limit.column));
    expect(Object.keys(BOUNDED_OTHERWISE).filter((column) => column !== "*.uuid" && !columns.has(column))).toEqual([]);
    const unaccounted = [...columns.keys()].filter(
      (column) => !limited.has(column) && !(column in BOUNDED_OTHERWISE) && !column.endsWith(".uuid"),
    );
    expect(unaccounted).toEqual([]);
  });

  it("fits every scope, each once, in api_clients.scopes", async () => {
    expect(Object.keys(SCOPES).join(" ").length).toBeLessThanOrEqual((await textColumns()).get("api_clients.scopes")!);
  });

  it("fits the longest allowlist the schema allows in api_clients.ip_allowlist", async () => {
    const allowlist = schema.$defs.client.properties.ipAllowlist;
    const longest = "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128";
    expect(() => parseAllowlist([longest])).not.toThrow();
    expect(longest.length).toBe(allowlist.items.maxLength);
    const [[{ width }]] = (await db.pool.query<RowDataPacket[]>(
      "SELECT CHARACTER_OCTET_LENGTH AS width FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'api_clients' AND COLUMN_NAME = 'ip_allowlist'",
    )) as unknown as [[{ width: number }]];
    expect(JSON.stringify(Array.from({ length: allowlist.maxItems }, () => longest)).length).toBeLessThanOrEqual(Number(width));
  });
});

describe("race-api import", () => {
  it.each(Object.keys(PLACES) as TextField[])("stores %s at its limit, and refuses one character more at its path", async (field) => {
    const { path, set } = PLACES[field];
    const atMost = copy(smallScenario());
    set(atMost, atLimit(field));
    await importScenario(db.pool, atMost);
    const [table, column] = TEXT_LIMITS[field].column.split(".");
    const [stored] = await db.pool.query<RowDataPacket[]>(`SELECT ${column} AS value FROM ${table}`);
    expect(stored.map((row) => row.value)).toContain(atLimit(field));

    const tooLong = copy(smallScenario());
    set(tooLong, pastLimit(field));
    const before = await snapshot(db.pool);
    await expect(importScenario(db.pool, tooLong)).rejects.toThrow(
      new ScenarioRejected({ path, message: `must NOT have more than ${TEXT_LIMITS[field].maxLength} characters` }),
    );
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it("stores an allowlist of 1,000 of the longest addresses, and refuses a 1,001st at the list's path", async () => {
    const longest = "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128";
    const full = copy(smallScenario());
    full.clients[0]!.ipAllowlist = Array.from({ length: 1000 }, () => longest);
    await importScenario(db.pool, full);
    full.clients[0]!.ipAllowlist.push(longest);
    await expect(importScenario(db.pool, full)).rejects.toThrow(
      new ScenarioRejected({ path: "$.clients[0].ipAllowlist", message: "must NOT have more than 1000 items" }),
    );
    full.clients[0]!.ipAllowlist = [`${longest}0`];
    await expect(importScenario(db.pool, full)).rejects.toThrow(
      new ScenarioRejected({ path: "$.clients[0].ipAllowlist[0]", message: "must NOT have more than 49 characters" }),
    );
  });

  it("stores a scope named twice once", async () => {
    const twice = copy(smallScenario());
    twice.clients[0]!.scopes = ["tracking:read", "events:read", "tracking:read"];
    await importScenario(db.pool, twice);
    const [[row]] = await db.pool.query<RowDataPacket[]>("SELECT scopes FROM api_clients WHERE client_id = ?", [
      twice.clients[0]!.clientId,
    ]);
    expect(row!.scopes).toBe("tracking:read events:read");
  });
});
