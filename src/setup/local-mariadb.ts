// Finds or brings up the local MariaDB that the demo, the tests and CI use when no
// DATABASE_URL is given: the one bootstrap path for all three, so none of them depends
// on what an earlier session installed by hand.
//
// Order: a server already answering on 127.0.0.1:3306 is used; otherwise Debian's
// mariadb-server is installed if missing and started. We then connect as our own user
// (`race_api`, password kept in a 0600 file outside the checkout); if that fails we
// create or re-password the user through an admin login (root over TCP with an empty
// password, or root over the unix socket, which is how a fresh Debian install is set
// up). The user is granted only databases named `race_api%`, so nothing here can touch,
// let alone drop, a database the project did not create.

import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import mysql from "mysql2/promise";
import { ensureDebianBinary } from "./debian-packages.js";

const run = promisify(execFile);

const HOST = "127.0.0.1";
const PORT = 3306;
const SOCKET = "/run/mysqld/mysqld.sock";
const USER = "race_api";
const STATE_DIR = join(process.env.XDG_STATE_HOME ?? join(homedir(), ".local", "state"), "race-api");
const CREDENTIALS_FILE = join(STATE_DIR, "local-mariadb.json");
const SERVER_LOG = join(STATE_DIR, "mariadbd.log");

export type Log = (message: string) => void;

/**
 * A `mysql://` URL for the local server, without a database name, whose user may
 * create and drop databases named `race_api%`.
 */
export async function ensureLocalServer(log: Log = () => {}): Promise<string> {
  mkdirSync(STATE_DIR, { recursive: true, mode: 0o700 });
  if (!(await answers(HOST, PORT))) await startServer(log);
  const saved = readSavedPassword();
  if (saved && (await canLogIn(saved))) return serverUrl(saved);
  const password = saved ?? randomBytes(18).toString("base64url");
  await provisionUser(password, log);
  writeFileSync(CREDENTIALS_FILE, `${JSON.stringify({ user: USER, password })}\n`, { mode: 0o600 });
  return serverUrl(password);
}

function serverUrl(password: string): string {
  return `mysql://${USER}:${encodeURIComponent(password)}@${HOST}:${PORT}/`;
}

function readSavedPassword(): string | null {
  if (!existsSync(CREDENTIALS_FILE)) return null;
  const saved = JSON.parse(readFileSync(CREDENTIALS_FILE, "utf8")) as { password?: unknown };
  return typeof saved.password === "string" ? saved.password : null;
}

async function canLogIn(password: string): Promise<boolean> {
  try {
    const conn = await mysql.createConnection({ host: HOST, port: PORT, user: USER, password });
    await conn.end();
    return true;
  } catch {
    return false;
  }
}

async function provisionUser(password: string, log: Log): Promise<void> {
  const admin = await adminConnection();
  try {
    log(`creating database user ${USER} on ${HOST}:${PORT}`);
    for (const host of ["127.0.0.1", "localhost", "::1"]) {
      await admin.query("CREATE USER IF NOT EXISTS ?@? IDENTIFIED BY ?", [USER, host, password]);
      await admin.query("ALTER USER ?@? IDENTIFIED BY ?", [USER, host, password]);
      await admin.query("GRANT ALL PRIVILEGES ON `race\\_api%`.* TO ?@?", [USER, host]);
    }
  } finally {
    await admin.end();
  }
}

async function adminConnection(): Promise<mysql.Connection> {
  const attempts: mysql.ConnectionOptions[] = [
    { host: HOST, port: PORT, user: "root", password: "" },
    { socketPath: SOCKET, user: "root" },
  ];
  const failures: string[] = [];
  for (const options of attempts) {
    try {
      return await mysql.createConnection(options);
    } catch (error) {
      failures.push(`${options.socketPath ?? `${options.host}:${options.port}`}: ${(error as Error).message}`);
    }
  }
  throw new Error(
    `A MySQL server answers on ${HOST}:${PORT}, but neither our user ${USER} nor an admin login works ` +
      `(${failures.join("; ")}). Set DATABASE_URL to a database this service may use.`,
  );
}

async function startServer(log: Log): Promise<void> {
  const mariadbd = await installedServerBinary(log);
  if (!existsSync("/var/lib/mysql/mysql")) {
    log("initialising the MariaDB data directory");
    await run("mariadb-install-db", ["--user=mysql", "--datadir=/var/lib/mysql", "--skip-test-db"]);
  }
  mkdirSync("/run/mysqld", { recursive: true });
  await run("chown", ["mysql:mysql", "/run/mysqld"]);
  log(`starting MariaDB on ${HOST}:${PORT} (log: ${SERVER_LOG})`);
  const out = openSync(SERVER_LOG, "a");
  const server = spawn(
    mariadbd,
    [
      "--user=mysql",
      `--bind-address=${HOST}`,
      `--port=${PORT}`,
      `--socket=${SOCKET}`,
      // Large imports run as one transaction; the Debian defaults are sized for a laptop.
      "--innodb-buffer-pool-size=1G",
      "--innodb-log-file-size=512M",
      "--max-allowed-packet=64M",
    ],
    { detached: true, stdio: ["ignore", out, out] },
  );
  server.unref();
  const deadline = Date.now() + 60_000;
  while (!(await answers(HOST, PORT))) {
    if (server.exitCode !== null) throw new Error(`mariadbd exited with code ${server.exitCode}; see ${SERVER_LOG}`);
    if (Date.now() > deadline) throw new Error(`MariaDB did not answer on ${HOST}:${PORT} within 60 s; see ${SERVER_LOG}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function installedServerBinary(log: Log): Promise<string> {
  return ensureDebianBinary(
    {
      package: "mariadb-server",
      binary: "/usr/sbin/mariadbd",
      notInstalled: "No MySQL server answers on 127.0.0.1:3306 and MariaDB is not installed; install mariadb-server or set DATABASE_URL.",
    },
    log,
  );
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port, timeout: 1000 });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}
