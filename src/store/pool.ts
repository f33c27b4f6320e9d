// The MySQL connection pool: every connection speaks UTC, so DATETIME columns and
// JavaScript Dates mean the same instant on MariaDB 10.11 and MySQL 8 alike; every
// statement has a time limit, on the server and in the client, so a read model that does
// not answer in time becomes an error (503 API_UNAVAILABLE) instead of a hung request;
// and every number comes back with the bits it was stored with, whichever protocol reads it.

import type { PoolConnection as CorePoolConnection } from "mysql2";
import mysql from "mysql2/promise";

export type Pool = mysql.Pool;
export type Connection = mysql.PoolConnection;

export interface PoolOptions {
  connectionLimit?: number;
  /**
   * Longest a statement may run, in ms (default 5000). The server stops it there
   * (MariaDB `max_statement_time`, MySQL 8 `max_execution_time` for SELECTs plus lock
   * wait limits for writes) and the client gives up 1 s later. 0 means no limit: for
   * migrations and imports, whose DDL and commits may legitimately take longer.
   */
  statementTimeoutMs?: number;
  /** Queries waiting for a free connection beyond which a query fails at once (default 100; 0 = unbounded). */
  queueLimit?: number;
  /** Longest a new connection may take to connect and say hello (default 2000). */
  connectTimeoutMs?: number;
}

/** `code` of the error a query gets when it waited longer than its time limit for a free connection. */
export const POOL_WAIT_TIMEOUT = "POOL_WAIT_TIMEOUT";

/** How much longer than the server's limit the client waits, so the server's clearer error normally wins. */
const CLIENT_MARGIN_MS = 1000;
const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;
// What mysql2's own pool.query does on these (a failed-over primary turned read-only): drop the connection.
const READ_ONLY_ERRNOS = new Set([1290, 1792, 1836]);

interface Limits {
  statementTimeoutMs: number;
  /** Per-query client timeout, and the longest wait for a free connection; 0 = none. */
  clientTimeoutMs: number;
  setupTimeoutMs: number;
}

export function createPool(databaseUrl: string, options: PoolOptions = {}): Pool {
  const statementTimeoutMs = nonNegative("statementTimeoutMs", options.statementTimeoutMs ?? 5000);
  const connectTimeoutMs = nonNegative("connectTimeoutMs", options.connectTimeoutMs ?? 2000);
  const clientTimeoutMs = statementTimeoutMs > 0 ? statementTimeoutMs + CLIENT_MARGIN_MS : 0;
  const limits: Limits = { statementTimeoutMs, clientTimeoutMs, setupTimeoutMs: connectTimeoutMs || clientTimeoutMs };
  const pool = mysql.createPool({
    uri: databaseUrl,
    timezone: "Z",
    connectionLimit: options.connectionLimit ?? 10,
    queueLimit: nonNegative("queueLimit", options.queueLimit ?? 100),
    connectTimeout: connectTimeoutMs,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    enableKeepAlive: true,
  });
  // A new connection is handed out only once its session is set up (see limitPool), so
  // no query ever runs on it without UTC and without its time limit.
  const setups = new WeakMap<object, Promise<void>>();
  pool.pool.on("connection", (connection) => {
    const setup = setUpSession(connection, limits);
    setup.catch(() => {}); // awaited (and reported) by whoever acquires the connection
    setups.set(connection, setup);
  });
  return limitPool(pool, limits, setups);
}

/** A transaction's isolation level other than the server's default (REPEATABLE READ). */
export type Isolation = "READ COMMITTED";

/** Runs `work` in one transaction on one connection; rolls back on any error. */
export async function inTransaction<T>(pool: Pool, work: (conn: Connection) => Promise<T>, isolation?: Isolation): Promise<T> {
  const conn = await pool.getConnection();
  try {
    return await transactionOn(conn, work, isolation);
  } finally {
    conn.release();
  }
}

/** Runs `work` in one transaction on a connection the caller holds; rolls back on any error. */
export async function transactionOn<T>(conn: Connection, work: (conn: Connection) => Promise<T>, isolation?: Isolation): Promise<T> {
  try {
    // For the next transaction only; the same statement on MariaDB 10.11 and MySQL 8.
    if (isolation) await conn.query(`SET TRANSACTION ISOLATION LEVEL ${isolation}`);
    await conn.beginTransaction();
    const result = await work(conn);
    await conn.commit();
    return result;
  } catch (error) {
    await conn.rollback().catch(() => {});
    throw error;
  }
}

const ER_LOCK_DEADLOCK = 1213;
/** Attempts of a transaction that InnoDB chose as a deadlock's victim. */
const DEADLOCK_ATTEMPTS = 5;

/**
 * inTransaction, run again when InnoDB rolls it back as a deadlock's victim (it says:
 * "try restarting transaction"). For writes that may overlap with concurrent ones on
 * the same rows, such as two retries of one ingest batch; `work` must read what it
 * decides on inside the transaction, so a second run decides afresh.
 */
export async function inTransactionRetryingDeadlocks<T>(
  pool: Pool,
  work: (conn: Connection) => Promise<T>,
  isolation?: Isolation,
): Promise<T> {
  return retryingDeadlocks(() => inTransaction(pool, work, isolation));
}

/** `run` again, up to 5 times in all, while InnoDB rolls back its write as a deadlock's victim; `run` decides afresh each time. */
export async function retryingDeadlocks<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if ((error as { errno?: unknown }).errno !== ER_LOCK_DEADLOCK || attempt >= DEADLOCK_ATTEMPTS) throw error;
    }
  }
}

/** `mysql://user:pass@host:port/` with the database name replaced. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number >= 0, got ${value}`);
  return value;
}

/**
 * UTC and the statement limits for one new connection. MariaDB's `max_statement_time`
 * (seconds, fractional) covers every statement, lock waits included. MySQL 8 has no such
 * variable: its `max_execution_time` (ms) covers read-only SELECTs only, so there the lock
 * waits of writes are bounded by `innodb_lock_wait_timeout` and `lock_wait_timeout`
 * (whole seconds) too. We try MariaDB's form first and fall back to MySQL's when the
 * server does not know the variable: no version sniffing, so a proxy's made-up version
 * string cannot fool it. Each SET is all or nothing on both engines.
 */
async function setUpSession(connection: CorePoolConnection, limits: Limits): Promise<void> {
  const run = (sql: string) =>
    new Promise<void>((resolve, reject) => {
      connection.query({ sql, timeout: limits.setupTimeoutMs || undefined }, (error) => (error ? reject(error) : resolve()));
    });
  const ms = limits.statementTimeoutMs;
  const lockWaits = ms > 0 ? `, innodb_lock_wait_timeout = ${Math.ceil(ms / 1000)}, lock_wait_timeout = ${Math.ceil(ms / 1000)}` : "";
  try {
    await run(`SET SESSION time_zone = '+00:00', max_statement_time = ${ms / 1000}${lockWaits}`);
  } catch (error) {
    if ((error as { errno?: unknown }).errno !== ER_UNKNOWN_SYSTEM_VARIABLE) throw error;
    await run(`SET SESSION time_zone = '+00:00', max_execution_time = ${Math.ceil(ms)}${lockWaits}`);
  }
}

type Run = (...args: unknown[]) => Promise<unknown>;

/**
 * Makes every query through the pool, or through a connection taken from it, carry the
 * client-side timeout and read numbers exactly (exactNumbers), and bounds the wait for a
 * free connection by the same time. A
 * connection whose query timed out in the client is destroyed: mysql2 would otherwise
 * keep it busy until the server answers, which a hung server never does.
 */
function limitPool(pool: Pool, limits: Limits, setups: WeakMap<object, Promise<void>>): Pool {
  const acquire = pool.getConnection.bind(pool);

  const getConnection = async (): Promise<Connection> => {
    const conn = await waitFor(acquire, limits.clientTimeoutMs);
    try {
      await setups.get(conn.connection);
    } catch (error) {
      conn.destroy();
      throw error;
    }
    return limitConnection(conn, limits);
  };

  const onPool =
    (method: "query" | "execute"): Run =>
    async (...args) => {
      const conn = await getConnection();
      try {
        return await (conn[method] as Run)(...args);
      } catch (error) {
        if (READ_ONLY_ERRNOS.has((error as { errno?: number }).errno ?? 0)) conn.destroy();
        throw error;
      } finally {
        conn.release(); // a no-op once destroyed
      }
    };

  pool.getConnection = getConnection;
  pool.query = onPool("query") as unknown as Pool["query"];
  pool.execute = onPool("execute") as unknown as Pool["execute"];
  return pool;
}

function limitConnection(conn: Connection, limits: Limits): Connection {
  const timeout = limits.clientTimeoutMs;
  const timeLimit = timeout > 0 ? { timeout } : {};
  const limited =
    (run: Run, defaults: QueryDefaults): Run =>
    async (...args) => {
      try {
        return await run(...withDefaults(args, defaults));
      } catch (error) {
        if ((error as { code?: unknown }).code === "PROTOCOL_SEQUENCE_TIMEOUT") conn.destroy();
        throw error;
      }
    };
  const query = limited(conn.query.bind(conn) as Run, { ...timeLimit, typeCast: exactNumbers });
  conn.query = query as unknown as Connection["query"];
  conn.execute = limited(conn.execute.bind(conn) as Run, timeLimit) as unknown as Connection["execute"];
  // mysql2's own helpers send these as queries without a timeout.
  conn.beginTransaction = async () => void (await query("START TRANSACTION"));
  conn.commit = async () => void (await query("COMMIT"));
  conn.rollback = async () => void (await query("ROLLBACK"));
  return conn;
}

type FieldCast = Exclude<mysql.QueryOptions["typeCast"], boolean | undefined>;
type QueryDefaults = { timeout?: number; typeCast?: FieldCast };

/** Column types whose text mysql2 would parse with its own float parser. */
const PARSED_AS_FLOAT: ReadonlySet<string> = new Set(["DOUBLE", "FLOAT", "DECIMAL", "NEWDECIMAL"]);

/**
 * Numbers read over the text protocol (`query()`) exactly. mysql2 parses a DOUBLE's text
 * by multiplying its digits into a double, which lands one unit in the last place off for
 * about one value in 100 (92.39999999999999 came back as 92.4); `Number()` of the same
 * text, which the server writes with enough digits, gives the stored bits. The binary
 * protocol (`execute()`) sends the eight bytes themselves and is left alone.
 */
const exactNumbers: FieldCast = (field, next) => {
  if (!PARSED_AS_FLOAT.has(field.type)) return next();
  const text = field.string("ascii");
  return text === null ? null : Number(text);
};

/** The query's arguments with each default added, unless the caller chose that option. */
function withDefaults(args: unknown[], defaults: QueryDefaults): unknown[] {
  const [first, ...rest] = args;
  if (typeof first === "string") return [{ sql: first, ...defaults }, ...rest];
  if (first === null || typeof first !== "object") return args;
  const options = first as Record<string, unknown>;
  const missing = Object.entries(defaults).filter(([name]) => options[name] === undefined);
  return missing.length === 0 ? args : [{ ...options, ...Object.fromEntries(missing) }, ...rest];
}

/** `acquire()`, failing after `ms` (0 = never); a connection that arrives too late goes straight back. */
function waitFor(acquire: () => Promise<Connection>, ms: number): Promise<Connection> {
  if (ms === 0) return acquire();
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(Object.assign(new Error(`no database connection became free within ${ms} ms`), { code: POOL_WAIT_TIMEOUT }));
    }, ms);
    acquire().then(
      (conn) => {
        if (late) return conn.release();
        clearTimeout(timer);
        resolve(conn);
      },
      (error: unknown) => {
        if (late) return;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
