// The MySQL connection pool: every connection speaks UTC, so DATETIME columns and
// JavaScript Dates mean the same instant on MariaDB 10.11 and MySQL 8 alike.

import mysql from "mysql2/promise";

export type Pool = mysql.Pool;
export type Connection = mysql.PoolConnection;

export interface PoolOptions {
  connectionLimit?: number;
}

export function createPool(databaseUrl: string, options: PoolOptions = {}): Pool {
  const pool = mysql.createPool({
    uri: databaseUrl,
    timezone: "Z",
    connectionLimit: options.connectionLimit ?? 10,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    enableKeepAlive: true,
  });
  // mysql2 queues commands per connection, so this runs before any query handed to it.
  pool.pool.on("connection", (connection) => {
    connection.query("SET time_zone = '+00:00'");
  });
  return pool;
}

/** Runs `work` in one transaction on one connection; rolls back on any error. */
export async function inTransaction<T>(pool: Pool, work: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = await pool.getConnection();
  try {
    await conn.beginTransaction();
    const result = await work(conn);
    await conn.commit();
    return result;
  } catch (error) {
    await conn.rollback().catch(() => {});
    throw error;
  } finally {
    conn.release();
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
