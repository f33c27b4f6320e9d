// Which database a command talks to: DATABASE_URL when configured, otherwise a
// database of the given name on the local MariaDB that local-mariadb.ts brings up.

import mysql from "mysql2/promise";
import { ensureLocalServer, type Log } from "./local-mariadb.js";
import { databaseName, withDatabase } from "../store/pool.js";

export async function resolveDatabaseUrl(configured: string | undefined, localName: string, log?: Log): Promise<string> {
  if (configured) return configured;
  const url = withDatabase(await ensureLocalServer(log), localName);
  await createDatabase(url);
  return url;
}

export async function createDatabase(url: string): Promise<void> {
  await onServer(url, (conn, name) =>
    conn.query(`CREATE DATABASE IF NOT EXISTS ${mysql.escapeId(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`),
  );
}

/** Only for databases the caller created itself (the tests' per-file databases). */
export async function dropDatabase(url: string): Promise<void> {
  await onServer(url, (conn, name) => conn.query(`DROP DATABASE IF EXISTS ${mysql.escapeId(name)}`));
}

async function onServer(url: string, work: (conn: mysql.Connection, name: string) => Promise<unknown>): Promise<void> {
  const name = databaseName(url);
  if (!name) throw new Error("the database URL names no database");
  const conn = await mysql.createConnection({ uri: withDatabase(url, "") });
  try {
    await work(conn, name);
  } finally {
    await conn.end();
  }
}
