// The `race-api` command line: parses arguments, runs one command, and turns any
// failure into a one-line message and an exit code.

import { parseArgs } from "node:util";
import { pino, type Logger } from "pino";
import { CLIENTS_USAGE, clientsCommand } from "./clients.js";
import { printer, processIo, type CommandIo } from "./command-io.js";
import { FEED_USAGE, feedCommand } from "./feed.js";
import { KEYS_USAGE, keysCommand } from "./keys.js";
import { ConfigError, loadConfig, type Config } from "../composition/config.js";
import { buildApp } from "../composition/app.js";
import { runDemo } from "./demo.js";
import { importScenarioFile, ScenarioRejected } from "../scenario/import.js";
import { createRuntime, servingPoolOptions } from "../composition/runtime.js";
import { startServer } from "../composition/server.js";
import { untilStopSignal } from "./stop-signal.js";
import { UPLOAD_GPX_USAGE, uploadGpxCommand } from "./upload-gpx.js";
import { resolveDatabaseUrl } from "../setup/database.js";
import { migrate } from "../store/migrate.js";
import { createPool, type Pool, type PoolOptions } from "../store/pool.js";

const USAGE = `Usage: race-api <command> [arguments]

Commands:
  serve           serve REST, Connect and gRPC-Web on HOST:PORT and gRPC (h2c) on GRPC_PORT
  migrate         create or upgrade the database schema
  import FILE     load a race-scenario/v1 file (validated whole, one transaction, idempotent);
                  refuses to change track windows already served as immutable unless
                  --override-settled is given (then it writes and lists what it changed)
  clients ...     create, list and change API clients (race-api clients --help)
  keys ...        list, rotate and retire the token signing keys (race-api keys --help)
  demo            local database, a simulated live race, credentials and a server: try it out
  feed ...        feed a simulated race into a running server through IngestService,
                  in real time or faster (race-api feed --help)
  upload-gpx ...  load a boat's GPX recording into a start group of a running server
                  before the event is published and shared (race-api upload-gpx --help)
  openapi         print the OpenAPI 3.1 document of /api/v1 (needs no database)

Without DATABASE_URL the commands use a local MariaDB on 127.0.0.1:3306, installing and
starting Debian's mariadb-server when none answers. Every variable: docs/operations.md.
`;

/** Database used when DATABASE_URL is unset, per command. */
const LOCAL_DATABASE = "race_api";
/** mysql2 pools connect on first use; building the app uses none. */
const NEVER_CONNECTED_DATABASE = "mysql://unused@127.0.0.1:1/unused";

/**
 * Runs the command `argv` names and returns its exit code. `io`: the process's own
 * environment and streams; a test passes its own. `serve` and `demo` log to the
 * process's stdout whatever `io` says: they are tested as the processes they are.
 */
export async function main(argv: string[], io: CommandIo = processIo): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: { help: { type: "boolean", short: "h" }, "override-settled": { type: "boolean" } },
  });
  const [command, ...rest] = positionals;
  const ownUsage: Record<string, string> = { clients: CLIENTS_USAGE, keys: KEYS_USAGE, feed: FEED_USAGE, "upload-gpx": UPLOAD_GPX_USAGE };
  if (values.help && command !== undefined && Object.hasOwn(ownUsage, command)) {
    io.stdout.write(ownUsage[command]!); // before loadConfig: help needs no database
    return 0;
  }
  if (values.help || command === undefined || command === "help") {
    io.stdout.write(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  try {
    const config = loadConfig(io.env);
    switch (command) {
      case "serve":
        return await serve(config);
      case "migrate":
        return await withPool(config, logger(config, io), async (pool) => {
          const report = await migrate(pool);
          printer(io.stdout)(
            report.applied.length > 0
              ? `applied migrations ${report.applied.join(", ")}; schema at version ${report.current}`
              : `schema is up to date (version ${report.current})`,
          );
        });
      case "import":
        return await importFile(config, rest, values["override-settled"] === true, io);
      case "demo":
        return await runDemo(config);
      case "feed":
        // Its own options, and no database: it talks to a server.
        return await feedCommand(argv.slice(argv.indexOf(command) + 1), io);
      case "upload-gpx":
        // Its own options, and no database: it talks to a server.
        return await uploadGpxCommand(argv.slice(argv.indexOf(command) + 1), io);
      case "openapi":
        return await printOpenApiDocument(config, io);
      case "clients":
        // Its own options: everything after the word, not the loosely parsed positionals.
        return await withPool(config, logger(config, io), async (pool) => {
          await migrate(pool);
          return clientsCommand(pool, argv.slice(argv.indexOf(command) + 1), io);
        });
      case "keys":
        return await withPool(config, logger(config, io), async (pool) => {
          await migrate(pool);
          return keysCommand(pool, rest, io);
        });
      default:
        io.stderr.write(`race-api: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ScenarioRejected) {
      io.stderr.write(`race-api: ${error.message}\n`);
      return 1;
    }
    io.stderr.write(`race-api: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}

async function serve(config: Config): Promise<number> {
  const log = serverLogger(config);
  await withPool(config, log, (pool) => migrate(pool).then(() => 0));
  return withPool(
    config,
    log,
    async (pool) => {
      const runtime = await createRuntime(config, pool, log);
      const server = await startServer(config, runtime);
      log.flush(); // the "listening" line now, not within the second: scripts wait for it
      const signal = await untilStopSignal();
      log.info({ signal }, "shutting down: finishing in-flight requests");
      await server.close();
      await runtime.close();
    },
    servingPoolOptions(config),
  );
}

async function importFile(config: Config, args: string[], override: boolean, io: CommandIo): Promise<number> {
  const [file, ...extra] = args;
  if (file === undefined || extra.length > 0) {
    io.stderr.write("race-api: usage: race-api import [--override-settled] FILE\n");
    return 2;
  }
  return withPool(config, logger(config, io), async (pool) => {
    await migrate(pool);
    const started = performance.now();
    const summary = await importScenarioFile(pool, file, override ? "override" : "keep");
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    for (const path of summary.settledOverrides) {
      io.stderr.write(
        `race-api: warning: ${path} changed track windows that may have been served as immutable; ` +
          "clients keep their copies, and a running instance serves its own for up to an hour\n",
      );
    }
    printer(io.stdout)(
      `imported ${file} in ${seconds} s: ${summary.clubs} clubs, ${summary.clients} clients (${summary.secretRotations} secret rotations), ` +
        `${summary.events} events, ${summary.entries} entries, ${summary.races} races, ${summary.startGroups} start groups, ${summary.fixes} fixes`,
    );
  });
}

/** The document the server serves at /api/v1/openapi.json, from an app that never listens nor queries. */
async function printOpenApiDocument(config: Config, io: CommandIo): Promise<number> {
  const pool = createPool(NEVER_CONNECTED_DATABASE, { connectionLimit: 1 });
  // No replica either: nothing is queried, so no heartbeat is written.
  const runtime = await createRuntime({ ...config, databaseReadUrl: undefined }, pool, pino({ level: "silent" }));
  const app = await buildApp(runtime);
  try {
    await app.ready();
    io.stdout.write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
    return 0;
  } finally {
    await app.close();
    await runtime.close();
    await pool.end();
  }
}

/**
 * Runs `work` with a pool on the configured database. Administrative work (migrations,
 * imports, client changes) has no statement time limit; serving passes its own limits.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a command's work returns nothing or its exit code.
type PoolWork = (pool: Pool) => Promise<void | number>;

async function withPool(config: Config, log: Logger, work: PoolWork, options: PoolOptions = { statementTimeoutMs: 0 }): Promise<number> {
  const url = await resolveDatabaseUrl(config.databaseUrl, LOCAL_DATABASE, (message) => log.info(message));
  const pool = createPool(url, { connectionLimit: config.databasePoolSize, ...options });
  try {
    return (await work(pool)) ?? 0;
  } finally {
    await pool.end();
  }
}

function logger(config: Config, io: CommandIo): Logger {
  return pino({ level: config.logLevel }, io.stdout);
}

/**
 * The server's log: a line per request. Lines are gathered into writes of 4 KiB, or
 * written after at most 1 s, instead of one write(2) per line: measured under the
 * 2,000-client mix, those writes were 3% of an instance's time on the event loop. The
 * lines still in the buffer are written when the process exits (pino flushes on exit).
 */
function serverLogger(config: Config): Logger {
  return pino({ level: config.logLevel }, pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 }));
}
