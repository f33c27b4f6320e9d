// Signing keys live in the database: every instance accepts every other's tokens,
// a rotation keeps old tokens valid, and a retired key's tokens die within the key
// ring's refresh interval (5 s in production, short here: the test polls for it).

import diagnostics from "node:diagnostics_channel";
import { randomBytes } from "node:crypto";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raceApi, runMain } from "../support/cli.js";
import { createKey, KeyRing } from "../../src/auth/key-ring.js";
import { useFreshDatabase } from "../support/database.js";
import { within } from "../support/load.js";
import { PRODUCTION_REFRESH } from "../support/runtime.js";
import { bearer, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";

const db = useFreshDatabase();
let first: Api;
let second: Api;
beforeAll(async () => {
  await seedIdentities(db);
  [first, second] = await Promise.all([startApi(db), startApi(db)]);
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

/** The rings made here re-read as production does: what they find, they find without the periodic re-read. */
const PRODUCTION_REFRESH_MS = PRODUCTION_REFRESH.signingKeysRefreshMs;

const events = (api: Api, token: string) => fetch(`${api.url}/api/v1/events`, { headers: bearer(token) }).then((r) => r.status);

describe("signing keys", () => {
  it("make a token of one instance valid on another", async () => {
    expect(await events(second, await tokenFor(first.url, "overlay"))).toBe(200);
    expect(await events(first, await tokenFor(second.url, "overlay"))).toBe(200);
  });

  it("rotate with race-api keys: new tokens use the new key, old tokens stay valid until the old key is retired", async () => {
    const oldToken = await tokenFor(first.url, "overlay");
    const oldKid = decodeProtectedHeader(oldToken).kid!;

    // Through the bin once; the other keys commands through the same `main` in this process.
    const rotated = await raceApi(["keys", "rotate"], { DATABASE_URL: db.url });
    expect(rotated.code).toBe(0);
    const [, newKid] = /new signing key (\S+);/.exec(rotated.stdout)!;
    // The ring re-reads keys at most once per refresh interval.
    let newToken = "";
    await within(5000, async () => {
      newToken = await tokenFor(first.url, "overlay");
      expect(decodeProtectedHeader(newToken).kid).toBe(newKid);
    });
    expect(await events(second, oldToken)).toBe(200);
    expect(await events(second, newToken)).toBe(200);

    const retired = await runMain(["keys", "retire", oldKid], { DATABASE_URL: db.url });
    expect(retired).toMatchObject({ code: 0, stdout: expect.stringContaining(`retired ${oldKid}`) });
    for (const api of [first, second]) {
      await within(5000, async () => expect(await events(api, oldToken)).toBe(401));
      expect(await events(api, newToken)).toBe(200);
    }
    const listed = await runMain(["keys", "list"], { DATABASE_URL: db.url });
    expect(listed.stdout).toMatch(new RegExp(`${oldKid}  ES256  created \\S+  retired`));
    expect(listed.stdout).toMatch(new RegExp(`${newKid}  ES256  created \\S+  active`));
  });

  it("verify a key another instance made a moment ago, without waiting for the 5 s re-read", async () => {
    const ring = new KeyRing(db.pool, PRODUCTION_REFRESH_MS);
    const before = (await ring.signingKey()).kid;
    // Made elsewhere after this ring read the set: the first token signed with it must verify.
    const made = await createKey(db.pool);
    expect(await ring.verificationKey(before)).not.toBeNull();
    expect(await ring.verificationKey(made)).not.toBeNull();
  });

  it("read the set again for made-up kids at most once per wait, however many arrive together", async () => {
    const ring = new KeyRing(db.pool, PRODUCTION_REFRESH_MS);
    await ring.signingKey();
    const madeUp = () => randomBytes(16).toString("base64url");
    const reads = await keyReadsDuring(async () => {
      const burst = () => Promise.all(Array.from({ length: 50 }, () => ring.verificationKey(madeUp())));
      expect(await burst()).toEqual(Array(50).fill(null));
      expect(await burst()).toEqual(Array(50).fill(null));
    });
    // One shared read per burst: the second burst's tokens arrived after the first read began.
    expect(reads).toBe(2);
  });

  it("refuses to retire a key that is not active", async () => {
    const { code, stderr } = await runMain(["keys", "retire", "no-such-kid"], { DATABASE_URL: db.url });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe("race-api: no active signing key no-such-kid");
  });
});

/** How many times the signing keys were read while `work` ran (the ring runs in this process). */
async function keyReadsDuring(work: () => Promise<void>): Promise<number> {
  let reads = 0;
  const record = (message: unknown) => {
    if (/FROM signing_keys/.test((message as { query: string }).query)) reads++;
  };
  diagnostics.subscribe("tracing:mysql2:query:start", record);
  try {
    await work();
  } finally {
    diagnostics.unsubscribe("tracing:mysql2:query:start", record);
  }
  return reads;
}
