// The read model answers in time, or the error says it did not: statement limits on the
// server and in the client, the bounded queue, a stopped, restarted and frozen server,
// each classified by isDatabaseUnavailable, against a private MariaDB of this file's own.

import mysql, { type RowDataPacket } from "mysql2/promise";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool, type PoolOptions } from "../../src/store/pool.js";
import { isDatabaseUnavailable } from "../../src/store/unavailable.js";
import { startMariaDbInstance, type MariaDbInstance } from "../support/mariadb-instance.js";

let db: MariaDbInstance;
const pools: Pool[] = [];

beforeAll(async () => {
  db = await startMariaDbInstance();
  const setup = await mysql.createConnection({ uri: db.url });
  try {
    await setup.query("CREATE TABLE boats (id INT PRIMARY KEY, name VARCHAR(8) NOT NULL) ENGINE=InnoDB");
    await setup.query("INSERT INTO boats VALUES (1, 'Ariel'), (2, 'Bora')");
  } finally {
    await setup.end();
  }
});

afterEach(async () => {
  db.thaw();
  await db.start(); // a no-op unless a test left the server stopped
  await Promise.all(pools.splice(0).map((pool) => pool.end().catch(() => {})));
});

afterAll(async () => {
  await db?.destroy();
});

function pool(options: PoolOptions = {}): Pool {
  const created = createPool(db.url, options);
  pools.push(created);
  return created;
}

/** The error `work` fails with, and how long it took to fail. */
async function failure(work: () => Promise<unknown>): Promise<{ error: Error & { code?: string; errno?: number }; ms: number }> {
  const started = performance.now();
  try {
    await work();
  } catch (error) {
    return { error: error as Error & { code?: string; errno?: number }, ms: performance.now() - started };
  }
  throw new Error("expected the database call to fail");
}

async function holding<T>(lock: string[], work: () => Promise<T>): Promise<T> {
  const holder = await mysql.createConnection({ uri: db.url });
  try {
    for (const statement of lock) await holder.query(statement);
    return await work();
  } finally {
    await holder.end();
  }
}

describe("statement time limits", () => {
  it.each([
    ["a row lock", ["START TRANSACTION", "SELECT * FROM boats WHERE id = 1 FOR UPDATE"], "UPDATE boats SET name = 'Cirrus' WHERE id = 1"],
    ["a table lock", ["LOCK TABLES boats WRITE"], "SELECT name FROM boats WHERE id = 1"],
  ])("stop a statement waiting for %s after the limit", async (_, lock, statement) => {
    const limited = pool({ statementTimeoutMs: 300 });
    const { error, ms } = await holding(lock, () => failure(() => limited.query(statement)));
    expect(error.errno).toBe(1969); // MariaDB's ER_STATEMENT_TIMEOUT: the server stopped it
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(1300); // before the client's own timeout (limit + 1 s)
    // The holder has gone, and with it the lock.
    await limited.query("UPDATE boats SET name = 'Ariel' WHERE id = 1");
  });

  it("stops SELECT SLEEP(5) on the server, and the connection stays usable", async () => {
    const limited = pool({ statementTimeoutMs: 300 });
    const conn = await limited.getConnection();
    try {
      const [[before]] = await conn.query<RowDataPacket[]>("SELECT CONNECTION_ID() AS id");
      const { error, ms } = await failure(() => conn.query("SELECT SLEEP(5)"));
      expect(error.errno).toBe(1969);
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeLessThan(1300);
      const [[after]] = await conn.query<RowDataPacket[]>("SELECT CONNECTION_ID() AS id");
      expect(after?.id).toBe(before?.id);
    } finally {
      conn.release();
    }
  });

  it("lets statements run as long as they need when the limit is 0 (imports, migrations)", async () => {
    const unlimited = pool({ statementTimeoutMs: 0 });
    const [[row]] = await unlimited.query<RowDataPacket[]>("SELECT SLEEP(1.5) AS interrupted, @@max_statement_time AS limit_s");
    expect(row).toEqual({ interrupted: 0, limit_s: 0 });
  });

  it("reports a lock wait timeout (1205) as unavailable", async () => {
    const unlimited = pool({ statementTimeoutMs: 0 });
    const conn = await unlimited.getConnection();
    try {
      await conn.query("SET SESSION innodb_lock_wait_timeout = 1");
      const { error } = await holding(["START TRANSACTION", "SELECT * FROM boats WHERE id = 2 FOR UPDATE"], () =>
        failure(() => conn.query("UPDATE boats SET name = 'Cirrus' WHERE id = 2")),
      );
      expect(error.errno).toBe(1205);
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      conn.destroy();
    }
  });
});

describe("the bounded queue", () => {
  it("fails a query at once when the queue is full", async () => {
    const tight = pool({ connectionLimit: 1, queueLimit: 1 });
    const running = tight.query("SELECT SLEEP(1) AS slept");
    const queued = tight.query("SELECT 2 AS two");
    const { error, ms } = await failure(() => tight.query("SELECT 3"));
    expect(error.message).toBe("Queue limit reached.");
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(ms).toBeLessThan(200);
    await expect(running).resolves.toBeTruthy();
    await expect(queued).resolves.toBeTruthy();
  });

  it("fails a query that waited longer than its limit for a connection", async () => {
    const tight = pool({ connectionLimit: 1, statementTimeoutMs: 300 });
    const conn = await tight.getConnection(); // holds the only connection
    try {
      const { error, ms } = await failure(() => tight.query("SELECT 1"));
      expect(error.code).toBe("POOL_WAIT_TIMEOUT");
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(1250);
      expect(ms).toBeLessThan(3000);
    } finally {
      conn.release();
    }
    await expect(tight.query("SELECT 1")).resolves.toBeTruthy();
  });

  it("reports a closed pool as unavailable", async () => {
    const closed = pool();
    await closed.end();
    const { error } = await failure(() => closed.query("SELECT 1"));
    expect(error.message).toBe("Pool is closed.");
    expect(isDatabaseUnavailable(error)).toBe(true);
  });
});

describe("a database that goes away", () => {
  it("fails fast while stopped, and the same pool answers again once it is back", async () => {
    const shared = pool(); // the defaults: 5 s statement limit, so the client gives up at 6 s
    await shared.query("SELECT 1"); // a warm connection, which the shutdown will close
    await db.stop();
    for (let attempt = 0; attempt < 3; attempt++) {
      const { error, ms } = await failure(() => shared.query("SELECT 1"));
      expect(isDatabaseUnavailable(error), `${error.code ?? error.errno}: ${error.message}`).toBe(true);
      expect(ms).toBeLessThan(3000);
    }
    await db.start();
    const back = performance.now();
    const deadline = back + 10_000;
    let answered = false;
    while (!answered && performance.now() < deadline) {
      answered = await shared.query("SELECT 1").then(
        () => true,
        () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 100)),
      );
    }
    expect(answered).toBe(true);
    expect(performance.now() - back).toBeLessThan(5000);
  });

  it("fails a query in flight when the server shuts down", async () => {
    const shared = pool();
    const inFlight = failure(() => shared.query("SELECT SLEEP(3)"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await db.stop();
    const { error } = await inFlight;
    expect(isDatabaseUnavailable(error), `${error.code ?? error.errno}: ${error.message}`).toBe(true);
  });

  it("gives up on a hung server in the client, and recovers when it answers again", async () => {
    const shared = pool({ statementTimeoutMs: 300, connectTimeoutMs: 500 });
    await shared.query("SELECT 1");
    await db.freeze();
    // The warm connection: the server never answers, so the client's timeout (300 ms + 1 s) fires.
    const onWarm = await failure(() => shared.query("SELECT 1"));
    expect(onWarm.error.code).toBe("PROTOCOL_SEQUENCE_TIMEOUT");
    expect(isDatabaseUnavailable(onWarm.error)).toBe(true);
    expect(onWarm.ms).toBeLessThan(3000);
    // That connection was dropped; a new one gets no greeting and fails at connectTimeoutMs.
    const onNew = await failure(() => shared.query("SELECT 1"));
    expect(onNew.error.code).toBe("ETIMEDOUT");
    expect(isDatabaseUnavailable(onNew.error)).toBe(true);
    expect(onNew.ms).toBeLessThan(2000);
    db.thaw();
    await expect(shared.query("SELECT 1")).resolves.toBeTruthy();
  });

  it("reports a refused connection and too many connections as unavailable", async () => {
    await db.stop();
    const refused = await failure(() => mysql.createConnection({ uri: db.url }));
    expect(refused.error.code).toBe("ECONNREFUSED");
    expect(isDatabaseUnavailable(refused.error)).toBe(true);
    await db.start();

    // Past max_connections (10 at least), a user without SUPER or CONNECTION ADMIN gets 1040.
    const admin = await mysql.createConnection({ uri: db.url });
    const held: mysql.Connection[] = [];
    try {
      await admin.query("CREATE USER IF NOT EXISTS 'plain'@'127.0.0.1' IDENTIFIED BY 'plain-pw'");
      await admin.query("GRANT SELECT ON race_api_test.* TO 'plain'@'127.0.0.1'");
      await admin.query("SET GLOBAL max_connections = 10");
      const plainUrl = withUser(db.url, "plain", "plain-pw");
      const tooMany = await failure(async () => {
        while (held.length < 20) held.push(await mysql.createConnection({ uri: plainUrl }));
      });
      expect(tooMany.error.errno).toBe(1040);
      expect(isDatabaseUnavailable(tooMany.error)).toBe(true);
      expect(held.length).toBeLessThanOrEqual(10);
    } finally {
      await Promise.all(held.map((conn) => conn.end()));
      await admin.query("SET GLOBAL max_connections = 151");
      await admin.end();
    }
  });
});

describe("genuine bugs are not unavailability", () => {
  it.each([
    ["a syntax error", "SELEC 1", 1064],
    ["an unknown column", "SELECT nope FROM boats", 1054],
    ["a duplicate key", "INSERT INTO boats VALUES (1, 'Again')", 1062],
    ["data too long", "INSERT INTO boats VALUES (3, 'Much too long a name')", 1406],
    ["an unknown table", "SELECT * FROM nowhere", 1146],
  ])("%s", async (_, sql, errno) => {
    const { error } = await failure(() => pool().query(sql));
    expect(error.errno).toBe(errno);
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it("a bind parameter mysql2 refuses", async () => {
    // The types forbid it; an untyped value can still carry undefined this far.
    const { error } = await failure(() => pool().execute("SELECT ?", [undefined] as unknown as [null]));
    expect(error).toBeInstanceOf(TypeError);
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it("a login that is refused", async () => {
    const wrong = createPool(withUser(db.url, "race_api", "wrong"));
    pools.push(wrong);
    const { error } = await failure(() => wrong.query("SELECT 1"));
    expect(error.errno).toBe(1045);
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

function withUser(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  return parsed.toString();
}
