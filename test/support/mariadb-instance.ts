// A private MariaDB server for tests that stop, freeze or restart the database: its own
// temporary data directory and port, so the server other test files share is never touched.
// Two of them can form a replication pair (startReplicatedPair): a primary with its
// binary log and a replica that follows it by GTID.

import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { stopProcess } from "./process.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import mysql, { type RowDataPacket } from "mysql2/promise";
import { ensureLocalServer } from "../../src/setup/local-mariadb.js";
import { freePort } from "./ports.js";

const run = promisify(execFile);

const MARIADBD = "/usr/sbin/mariadbd";
const DATABASE = "race_api_test";
const USER = "race_api";
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 60_000;
// Small enough for a test machine; the redo log size is given to the installer too, so it never resizes.
const SERVER_OPTIONS = [
  "--innodb-buffer-pool-size=32M",
  "--innodb-log-file-size=16M",
  "--skip-log-bin",
  "--performance-schema=OFF",
  "--skip-name-resolve",
];

export interface MariaDbOptions {
  /** `server_id`: a primary and its replica need different ones. Default: the server's own (1). */
  serverId?: number;
  /** A binary log in row format, as a replication primary writes. Default: none. */
  binaryLog?: boolean;
  /** `read_only`, as on a replica: only replication and privileged users write. */
  readOnly?: boolean;
}

export interface MariaDbInstance {
  /** `mysql://race_api:<password>@127.0.0.1:<port>/race_api_test`; the user may do anything on this server. */
  readonly url: string;
  readonly port: number;
  /** Clean shutdown (SIGTERM); resolves once the process has exited. */
  stop(): Promise<void>;
  /** SIGKILL, as a crashed host: no clean shutdown, InnoDB recovers at the next start. Resolves once the process is gone. */
  crash(): Promise<void>;
  /** Starts the server again on the same port and data directory; resolves once it answers. */
  start(): Promise<void>;
  /** SIGSTOP: the server keeps its sockets but answers nothing, like a hung host. Resolves once every thread has stopped. */
  freeze(): Promise<void>;
  /** SIGCONT after `freeze`. */
  thaw(): void;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
  /** Runs one statement as root, through the private socket (replication set-up, users). */
  admin(sql: string, values?: unknown[]): Promise<RowDataPacket[]>;
}

export async function startMariaDbInstance(options: MariaDbOptions = {}): Promise<MariaDbInstance> {
  if (!existsSync(MARIADBD)) await ensureLocalServer(); // installs Debian's mariadb-server
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), "race-api-mariadb-"));
  // Its own temporary directory: servers bootstrapping side by side in a shared /tmp
  // have been seen to lose each other's temporary tables.
  const tmp = join(dir, "tmp");
  await mkdir(tmp);
  // mariadbd drops to the mysql user when started as root; that user must own its files.
  if (asRoot) await run("chown", ["mysql:mysql", dir, tmp]);
  const dataDir = join(dir, "data");
  const socket = join(dir, "mysqld.sock");
  const logFile = join(dir, "mariadbd.log");
  const userOption = asRoot ? ["--user=mysql"] : [];
  const serverOptions = [
    ...SERVER_OPTIONS.filter((option) => !(options.binaryLog && option === "--skip-log-bin")),
    ...(options.binaryLog ? [`--log-bin=${join(dir, "binlog")}`, "--binlog-format=ROW"] : []),
    ...(options.serverId === undefined ? [] : [`--server-id=${options.serverId}`]),
    ...(options.readOnly ? ["--read-only"] : []),
  ];
  // "normal" gives root@localhost an empty password; it is reachable only through the
  // socket in our private directory once the TCP root accounts are dropped below.
  await run("mariadb-install-db", [
    "--no-defaults",
    `--datadir=${dataDir}`,
    `--tmpdir=${tmp}`,
    ...userOption,
    "--auth-root-authentication-method=normal",
    "--skip-test-db",
    ...SERVER_OPTIONS,
  ]);
  const port = await freePort();
  const password = randomBytes(12).toString("hex");

  let server: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const killOnExit = () => server?.kill("SIGKILL");
  process.once("exit", killOnExit);

  const start = async () => {
    if (server) return;
    const log = openSync(logFile, "a");
    const child = spawn(
      MARIADBD,
      [
        "--no-defaults",
        `--datadir=${dataDir}`,
        `--tmpdir=${tmp}`,
        `--port=${port}`,
        "--bind-address=127.0.0.1",
        `--socket=${socket}`,
        `--pid-file=${join(dir, "mariadbd.pid")}`,
        ...userOption,
        ...serverOptions,
      ],
      { stdio: ["ignore", log, log] },
    );
    closeSync(log);
    server = child;
    exited = new Promise((resolve) => child.once("exit", () => resolve()));
    void exited.then(() => {
      if (server === child) server = null;
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`mariadbd exited at start:\n${tail(logFile)}`);
      if (await answers(socket)) return;
      if (Date.now() > deadline) throw new Error(`mariadbd did not answer within ${START_TIMEOUT_MS} ms:\n${tail(logFile)}`);
      await sleep(50);
    }
  };

  const stop = async () => {
    const child = server;
    if (!child) return;
    child.kill("SIGCONT"); // a frozen server would never see the SIGTERM
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  const crash = async () => {
    const child = server;
    if (!child) return;
    child.kill("SIGKILL");
    await exited;
  };

  const destroy = async () => {
    await stop();
    process.removeListener("exit", killOnExit);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await start();
    const root = await mysql.createConnection({ socketPath: socket, user: "root" });
    try {
      await root.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      await root.query("CREATE USER ?@'127.0.0.1' IDENTIFIED BY ?", [USER, password]);
      await root.query("GRANT ALL PRIVILEGES ON *.* TO ?@'127.0.0.1' WITH GRANT OPTION", [USER]);
      await root.query("DROP USER IF EXISTS 'root'@'127.0.0.1', 'root'@'::1'");
    } finally {
      await root.end();
    }
  } catch (error) {
    await destroy();
    throw error;
  }

  return {
    url: `mysql://${USER}:${password}@127.0.0.1:${port}/${DATABASE}`,
    port,
    start,
    stop,
    crash,
    freeze: async () => {
      const child = server;
      if (!child?.pid) return;
      await stopProcess(child);
    },
    thaw: () => void server?.kill("SIGCONT"),
    destroy,
    admin: async (sql, values) => {
      const root = await mysql.createConnection({ socketPath: socket, user: "root" });
      try {
        const [rows] = await root.query<RowDataPacket[]>(sql, values);
        return rows;
      } finally {
        await root.end();
      }
    },
  };
}

export interface ReplicatedPair {
  /** Binary log on, server_id 1; `url` is the database the API and its imports use. */
  primary: MariaDbInstance;
  /** server_id 2, read-only, replicating every change the primary makes after the pair was set up. */
  replica: MariaDbInstance;
  /** A user of the replica that may only SELECT the test database: any write sent there fails. */
  readerUrl: string;
  /** Resolves once the replica has applied everything the primary has logged so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * A primary and a replica following it by GTID. Each server made its own test database
 * and user when it started; replication begins after that (at the primary's current
 * GTID position), so from then on every change on the primary, the migrations
 * included, reaches the replica.
 */
export async function startReplicatedPair(): Promise<ReplicatedPair> {
  const started = await Promise.allSettled([
    startMariaDbInstance({ serverId: 1, binaryLog: true }),
    startMariaDbInstance({ serverId: 2, readOnly: true }),
  ]);
  const destroyAll = () => Promise.all(started.map((result) => (result.status === "fulfilled" ? result.value.destroy() : undefined)));
  const [primaryStart, replicaStart] = started;
  if (primaryStart!.status === "rejected" || replicaStart!.status === "rejected") {
    await destroyAll();
    throw primaryStart!.status === "rejected" ? primaryStart!.reason : (replicaStart as PromiseRejectedResult).reason;
  }
  const primary = primaryStart!.value;
  const replica = replicaStart!.value;
  const replicationPassword = randomBytes(12).toString("hex");
  const readerPassword = randomBytes(12).toString("hex");
  try {
    await primary.admin("CREATE USER 'replication'@'127.0.0.1' IDENTIFIED BY ?", [replicationPassword]);
    await primary.admin("GRANT REPLICATION SLAVE ON *.* TO 'replication'@'127.0.0.1'");
    const [{ position }] = (await primary.admin("SELECT @@GLOBAL.gtid_binlog_pos AS position")) as [{ position: string }];
    await replica.admin("CREATE USER 'race_reader'@'127.0.0.1' IDENTIFIED BY ?", [readerPassword]);
    await replica.admin(`GRANT SELECT ON ${DATABASE}.* TO 'race_reader'@'127.0.0.1'`);
    await replica.admin("SET GLOBAL gtid_slave_pos = ?", [position]);
    await replica.admin(
      `CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = ${primary.port}, MASTER_USER = 'replication', MASTER_PASSWORD = ?, MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1`,
      [replicationPassword],
    );
    await replica.admin("START SLAVE");
  } catch (error) {
    await destroyAll();
    throw error;
  }
  const caughtUp = async (timeoutMs = 30_000) => {
    const [{ position }] = (await primary.admin("SELECT @@GLOBAL.gtid_binlog_pos AS position")) as [{ position: string }];
    const [{ reached }] = (await replica.admin("SELECT MASTER_GTID_WAIT(?, ?) AS reached", [position, timeoutMs / 1000])) as [
      { reached: number },
    ];
    if (Number(reached) !== 0) {
      const [status] = await replica.admin("SHOW SLAVE STATUS");
      throw new Error(
        `the replica did not reach ${position} within ${timeoutMs} ms: IO ${status?.Slave_IO_Running}, SQL ${status?.Slave_SQL_Running}, ${status?.Last_Error || status?.Last_IO_Error || "no error"}`,
      );
    }
  };
  return {
    primary,
    replica,
    readerUrl: `mysql://race_reader:${readerPassword}@127.0.0.1:${replica.port}/${DATABASE}`,
    caughtUp,
    destroy: async () => void (await destroyAll()),
  };
}

async function answers(socket: string): Promise<boolean> {
  try {
    const conn = await mysql.createConnection({ socketPath: socket, user: "root", connectTimeout: 1000 });
    await conn.end();
    return true;
  } catch {
    return false;
  }
}

function tail(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").slice(-20).join("\n") : "(no log)";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
