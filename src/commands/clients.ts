// `race-api clients`: the administration of API clients from the command line. Reads
// its own arguments, prints a secret only when it is made, and turns a bad value into
// one line naming it (exit 1) and a malformed command into one line of usage (exit 2).

import { parseArgs } from "node:util";
import { createClient, rotateSecret, setAllowlist, setClientOrigins, setClubOrigins, setScopes } from "../auth/clients.js";
import { InvalidAllowlistEntry } from "../auth/ip-allowlist.js";
import { InvalidOrigin, parseOrigins } from "../auth/origins.js";
import { SCOPES, UnknownScope } from "../auth/scopes.js";
import {
  ClientIdTaken,
  ClientInputInvalid,
  listClients,
  setDisabled,
  setExpiry,
  UnknownClient,
  UnknownClub,
  type ClientSummary,
} from "../store/clients.js";
import type { Pool } from "../store/pool.js";
import { printer, processIo, type CommandIo } from "./command-io.js";

const COMMANDS = {
  create:
    'create --club CLUB_UUID --scopes "SCOPE ..." [--client-id ID] [--name NAME] [--expires-at DATE_TIME|never] [--allowlist "ADDRESS_OR_CIDR ..."] [--origins "ORIGIN ..."]',
  list: "list [--club CLUB_UUID]",
  "rotate-secret": "rotate-secret CLIENT_ID",
  disable: "disable CLIENT_ID",
  enable: "enable CLIENT_ID",
  "set-expiry": "set-expiry CLIENT_ID DATE_TIME|never",
  "set-allowlist": "set-allowlist CLIENT_ID [ADDRESS_OR_CIDR ...]",
  "set-scopes": "set-scopes CLIENT_ID SCOPE [SCOPE ...]",
  "set-origins": "set-origins CLIENT_ID [ORIGIN ...]",
  "set-club-origins": "set-club-origins CLUB_UUID [ORIGIN ...]",
} as const;

type Command = keyof typeof COMMANDS;

const SCOPE_LINES = Object.entries(SCOPES)
  .map(([scope, grants]) => `  ${scope.padEnd(15)} ${grants}`)
  .join("\n");

export const CLIENTS_USAGE = `Usage: race-api clients <command> [arguments]

The API clients (OAuth client credentials) of the clubs. Changes take effect for tokens
already issued within 5 seconds.

Commands:
  create --club CLUB_UUID --scopes "SCOPE ..." [--client-id ID] [--name NAME]
         [--expires-at DATE_TIME|never] [--allowlist "ADDRESS_OR_CIDR ..."]
         [--origins "ORIGIN ..."]
                        create a client; prints its secret, this once only
  list [--club CLUB_UUID]
                        the clients of every club, or of one; never secrets
  rotate-secret CLIENT_ID
                        a new secret, printed once; tokens issued before stop working
  disable CLIENT_ID     refuse its token requests and the tokens it holds
  enable CLIENT_ID      accept it again
  set-expiry CLIENT_ID DATE_TIME|never
                        refuse it as expired from that instant on, or never
  set-allowlist CLIENT_ID [ADDRESS_OR_CIDR ...]
                        the caller addresses it accepts; no entries: any address
  set-scopes CLIENT_ID SCOPE [SCOPE ...]
                        replace its scopes
  set-origins CLIENT_ID [ORIGIN ...]
                        the web pages (origins) that may read its answers in a
                        browser (CORS), besides its club's; no entries: only the club's
  set-club-origins CLUB_UUID [ORIGIN ...]
                        the web origins every client of the club may be read from;
                        no entries: none

Scopes:
${SCOPE_LINES}

CLIENT_ID: 1 to 128 letters, digits, ".", "_", "~" or "-"; create makes up
client-<12 hex digits> when --client-id is left out.
DATE_TIME: ISO 8601 with a time zone, e.g. 2027-03-31T23:59:59Z or 2027-04-01T00:00+02:00.
ADDRESS_OR_CIDR: an IPv4 or IPv6 address or CIDR range, e.g. 10.0.0.0/8 2001:db8::/32.
ORIGIN: scheme://host[:port] of a web page, e.g. https://club.example http://localhost:5173;
no path, no wildcard. CORS lets such a page read answers: it still needs a token.
Lists (--scopes, --allowlist, --origins) are separated by spaces or commas.
`;

const TAKES_EFFECT = "takes effect for tokens already issued within 5 s";
const SHOWN_ONCE = "The secret is shown only now: store it safely. Only a hash of it is kept, so it cannot be shown again.";

/** A malformed command line: exit code 2. */
class UsageError extends Error {}

/** A well-formed command with a value that cannot be used: exit code 1. */
class InputError extends Error {}

/** Runs `race-api clients ARGS` (the arguments after `clients`) and returns the exit code. */
export async function clientsCommand(pool: Pool, args: string[], io: CommandIo = processIo): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined) {
    io.stderr.write(CLIENTS_USAGE);
    return 2;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    io.stdout.write(CLIENTS_USAGE);
    return 0;
  }
  try {
    if (!Object.hasOwn(COMMANDS, command)) throw new UsageError(`unknown clients command "${command}"; see race-api clients --help`);
    const parsed = parse(command as Command, rest);
    if (parsed === "help") {
      io.stdout.write(CLIENTS_USAGE);
      return 0;
    }
    await run(pool, command as Command, parsed, printer(io.stdout));
    return 0;
  } catch (error) {
    const failure = describeFailure(error);
    if (failure === null) throw error;
    io.stderr.write(`race-api: ${failure.message}\n`);
    return failure.exitCode;
  }
}

interface Parsed {
  values: Record<string, string | undefined>;
  positionals: string[];
}

const OPTIONS: Record<Command, readonly string[]> = {
  create: ["club", "scopes", "client-id", "name", "expires-at", "allowlist", "origins"],
  list: ["club"],
  "rotate-secret": [],
  disable: [],
  enable: [],
  "set-expiry": [],
  "set-allowlist": [],
  "set-scopes": [],
  "set-origins": [],
  "set-club-origins": [],
};

// How many positional arguments each command takes: [at least, at most].
const POSITIONALS: Record<Command, [number, number]> = {
  create: [0, 0],
  list: [0, 0],
  "rotate-secret": [1, 1],
  disable: [1, 1],
  enable: [1, 1],
  "set-expiry": [2, 2],
  "set-allowlist": [1, Infinity],
  "set-scopes": [2, Infinity],
  "set-origins": [1, Infinity],
  "set-club-origins": [1, Infinity],
};

function parse(command: Command, args: string[]): Parsed | "help" {
  const options = Object.fromEntries(OPTIONS[command].map((name) => [name, { type: "string" as const }]));
  // biome-ignore lint/suspicious/noImplicitAnyLet: TypeScript types it from parseArgs's options, assigned in the try.
  let result;
  try {
    result = parseArgs({ args, allowPositionals: true, strict: true, options: { ...options, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    throw new UsageError(`clients ${command}: ${describeParseError(error as Error & { code?: string })}`);
  }
  if (result.values.help === true) return "help";
  const { help: _help, ...values } = result.values;
  const [least, most] = POSITIONALS[command];
  if (result.positionals.length < least || result.positionals.length > most)
    throw new UsageError(`usage: race-api clients ${COMMANDS[command]}`);
  return { values: values as Record<string, string | undefined>, positionals: result.positionals };
}

function describeParseError(error: Error & { code?: string }): string {
  const option = /'(-[^' ]*)/.exec(error.message)?.[1] ?? "an option";
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `unknown option ${option}; see race-api clients --help`;
  if (error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    return error.message.includes("ambiguous")
      ? `the value of ${option} starts with "-": write ${option}=VALUE`
      : `${option} needs a value`;
  }
  return error.message;
}

type Say = (...lines: string[]) => void;

async function run(pool: Pool, command: Command, { values, positionals }: Parsed, say: Say): Promise<void> {
  const [clientId = "", ...more] = positionals;
  switch (command) {
    case "create":
      return create(pool, values, say);
    case "list":
      return list(pool, values.club, say);
    case "rotate-secret": {
      const secret = await rotateSecret(pool, clientId);
      say(
        `New secret for client ${clientId}:`,
        `  client_secret  ${secret}`,
        SHOWN_ONCE,
        "Tokens issued before the rotation stop working within 5 s.",
      );
      return;
    }
    case "disable":
      await setDisabled(pool, clientId, true);
      return say(`Client ${clientId} is disabled: its token requests are refused, and its tokens already issued within 5 s.`);
    case "enable":
      await setDisabled(pool, clientId, false);
      return say(`Client ${clientId} is enabled (${TAKES_EFFECT}).`);
    case "set-expiry": {
      const expiresAt = parseExpiry(more[0] ?? "");
      await setExpiry(pool, clientId, expiresAt);
      const past = expiresAt !== null && expiresAt.getTime() <= Date.now() ? " That is already past: it is refused as expired." : "";
      return say(
        `Client ${clientId} ${expiresAt === null ? "never expires" : `expires at ${formatDate(expiresAt)}`} (${TAKES_EFFECT}).${past}`,
      );
    }
    case "set-allowlist": {
      const entries = splitList(more);
      await setAllowlist(pool, clientId, entries);
      return say(`Client ${clientId} accepts callers from ${describeAllowlist(entries)} (${TAKES_EFFECT}).`);
    }
    case "set-scopes": {
      const scopes = splitList(more);
      await setScopes(pool, clientId, scopes);
      return say(`Client ${clientId} has the scopes ${[...new Set(scopes)].join(" ")} (${TAKES_EFFECT}).`);
    }
    case "set-origins": {
      const origins = await setClientOrigins(pool, clientId, splitList(more));
      const own = origins.length === 0 ? "its club's origins only" : `${origins.join(" ")} and its club's origins`;
      return say(`Client ${clientId} may be read by web pages on ${own} (${TAKES_EFFECT}).`);
    }
    case "set-club-origins": {
      const club = clientId;
      const origins = await setClubOrigins(pool, club, splitList(more));
      return say(
        `Every client of club ${club.toLowerCase()} may be read by web pages on ${describeOrigins(origins, "no origin")}, besides its own origins (${TAKES_EFFECT}).`,
      );
    }
  }
}

async function create(pool: Pool, values: Record<string, string | undefined>, say: Say): Promise<void> {
  const { club, scopes: scopeText } = values;
  if (club === undefined) throw new UsageError(`clients create: --club CLUB_UUID is required; see race-api clients --help`);
  if (scopeText === undefined) throw new UsageError(`clients create: --scopes "SCOPE ..." is required; see race-api clients --help`);
  const scopes = splitList([scopeText]);
  const expiresAt = values["expires-at"] === undefined ? null : parseExpiry(values["expires-at"]);
  const allowlist = splitList(values.allowlist === undefined ? [] : [values.allowlist]);
  const origins = splitList(values.origins === undefined ? [] : [values.origins]);
  const created = await createClient(pool, {
    clubUuid: club,
    clientId: values["client-id"],
    name: values.name ?? null,
    scopes,
    expiresAt,
    ipAllowlist: allowlist,
    allowedOrigins: origins,
  });
  say(
    `Created client ${created.clientId} for club ${club.toLowerCase()}:`,
    `  client_id      ${created.clientId}`,
    `  client_secret  ${created.secret}`,
    `  scopes         ${[...new Set(scopes)].join(" ")}`,
    `  expires        ${expiresAt === null ? "never" : formatDate(expiresAt)}`,
    `  allowlist      ${describeAllowlist(allowlist)}`,
    `  origins        ${describeOrigins(parseOrigins(origins), "its club's only")}`,
    SHOWN_ONCE,
  );
}

async function list(pool: Pool, club: string | undefined, say: Say): Promise<void> {
  const clients = await listClients(pool, club);
  if (clients.length === 0) return say(club === undefined ? "No clients." : `No clients for club ${club.toLowerCase()}.`);
  const now = Date.now();
  const lines: string[] = [];
  for (const group of groupByClub(clients)) {
    if (lines.length > 0) lines.push("");
    const clubOrigins = group[0]!.clubAllowedOrigins;
    lines.push(
      `${printable(group[0]!.clubName)}  ${group[0]!.clubUuid}${clubOrigins.length === 0 ? "" : `  origins: ${clubOrigins.join(" ")}`}`,
    );
    const rows = group.map((c) => [
      printable(c.clientId),
      c.name === null ? "-" : printable(c.name),
      c.disabled ? "disabled" : c.expiresAt !== null && c.expiresAt.getTime() <= now ? "expired" : "active",
      c.scopes.join(" "),
      c.expiresAt === null ? "never" : formatDate(c.expiresAt),
      c.ipAllowlist.length === 0 ? "any" : c.ipAllowlist.join(" "),
      c.allowedOrigins.length === 0 ? "club's" : c.allowedOrigins.join(" "),
      String(c.secretVersion),
      formatDate(c.createdAt, "seconds"),
      formatDate(c.updatedAt, "seconds"),
    ]);
    lines.push(
      ...table(
        ["CLIENT ID", "NAME", "STATUS", "SCOPES", "EXPIRES", "ALLOWLIST", "ORIGINS", "SECRET VERSION", "CREATED", "UPDATED"],
        rows,
      ).map((line) => `  ${line}`),
    );
  }
  say(...lines);
}

function groupByClub(clients: ClientSummary[]): ClientSummary[][] {
  const groups = new Map<string, ClientSummary[]>();
  for (const client of clients) groups.set(client.clubUuid, [...(groups.get(client.clubUuid) ?? []), client]);
  return [...groups.values()];
}

function table(headers: string[], rows: string[][]): string[] {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]!.length)));
  return [headers, ...rows].map((cells) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
}

// ISO 8601 with a time zone; seconds and fractions optional.
const DATE_TIME =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})T(?<hour>\d{2}):(?<minute>\d{2})(?::(?<second>\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](?<offsetHours>\d{2}):(?<offsetMinutes>\d{2}))$/i;

function parseExpiry(text: string): Date | null {
  if (text === "never") return null;
  const parts = DATE_TIME.exec(text)?.groups;
  const n = (name: string) => Number(parts?.[name] ?? 0);
  // Date.parse rolls 2027-02-30 over into March, so the calendar is checked here.
  const valid =
    parts !== undefined &&
    n("month") >= 1 &&
    n("month") <= 12 &&
    n("day") >= 1 &&
    n("day") <= new Date(Date.UTC(n("year"), n("month"), 0)).getUTCDate() &&
    n("hour") <= 23 &&
    n("minute") <= 59 &&
    n("second") <= 59 &&
    n("offsetHours") <= 23 &&
    n("offsetMinutes") <= 59;
  if (!valid) throw new InputError(`"${text}" is not a date-time: write ISO 8601 with a time zone, e.g. 2027-03-31T23:59:59Z, or "never"`);
  return new Date(Date.parse(text));
}

function splitList(parts: string[]): string[] {
  return parts.flatMap((part) => part.split(/[\s,]+/)).filter((item) => item !== "");
}

function describeAllowlist(entries: string[]): string {
  return entries.length === 0 ? "any address" : entries.join(" ");
}

function describeOrigins(origins: readonly string[], none: string): string {
  return origins.length === 0 ? none : origins.join(" ");
}

function formatDate(date: Date, precision: "seconds" | "exact" = "exact"): string {
  const iso = date.toISOString();
  return precision === "seconds" || iso.endsWith(".000Z") ? `${iso.slice(0, 19)}Z` : iso;
}

/** Names and ids come from imports too: control characters would break the table. */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces.
  return text.replace(/[\u0000-\u001f\u007f]/g, "?");
}

/** The line and exit code for what the user can fix; null for anything else. */
function describeFailure(error: unknown): { message: string; exitCode: number } | null {
  if (error instanceof UsageError) return { message: error.message, exitCode: 2 };
  if (
    error instanceof InputError ||
    error instanceof UnknownClient ||
    error instanceof UnknownClub ||
    error instanceof ClientIdTaken ||
    error instanceof ClientInputInvalid ||
    error instanceof UnknownScope ||
    error instanceof InvalidAllowlistEntry ||
    error instanceof InvalidOrigin
  ) {
    return { message: error.message, exitCode: 1 };
  }
  if ((error as { code?: unknown }).code === "ER_NO_SUCH_TABLE")
    return { message: "the database has no schema yet: run race-api migrate", exitCode: 1 };
  return null;
}
