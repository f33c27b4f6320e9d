// `race-api feed`: drives any running server with a simulated race through
// IngestService, as a club's tracking platform would: sets the race up with
// ApplyScenario (an event of the client's own club), then streams its fixes, wind,
// live order, finishes, state and results in real time or faster, and reports what
// the server answered. Needs no database, only the server's URL and a tracking:write
// client.

import { fromJson } from "@bufbuild/protobuf";
import { ListValueSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { parseArgs } from "node:util";
import { CLIENT_OPTIONS, clientOptions, parseCommandLine, UsageError } from "./client-options.js";
import { printer, processIo, type CommandIo } from "./command-io.js";
import { createIngestClient } from "../sim/ingest-client.js";
import type { Scenario } from "../domain/scenario.js";
import { isUuid } from "../domain/uuid.js";
import { PRESTART_MS } from "../sim/boats.js";
import { fastForward, MAX_SPEED } from "../sim/fast-forward.js";
import { groupsOf, startFeed, type Feed, type FixesAck } from "../sim/feed.js";
import { simulateScenario } from "../sim/simulate.js";
import { sliceScenario } from "../sim/slice.js";
import { untilStopSignal } from "./stop-signal.js";

export const FEED_USAGE = `Usage: race-api feed --url URL --club-id CLUB_UUID --client-id ID [options]

Feeds a simulated race into a running server through IngestService, as a club's
tracking platform would: creates the event, its entries and the race with
ApplyScenario, then sends every second each start group's new fixes (AppendFixes),
wind, live order, phone finishes, state and results, until the race is over.

Required:
  --url URL             the server's base URL (token endpoint; IngestService over Connect)
  --club-id CLUB_UUID   the client's club: the event is created as that club's
  --client-id ID        an API client of that club with the scope tracking:write;
                        its secret in --client-secret or RACE_API_CLIENT_SECRET
Options:
  --grpc-url URL        send to the gRPC listener (h2c or TLS) instead of Connect,
                        the fixes on one PushFixes stream (AppendFixes otherwise)
  --speed N             play the race N times faster than real time, 1-${MAX_SPEED} (default 1):
                        every time is compressed, so boats cover ground N times
                        faster than the speed they report
  --groups N            start groups (default 2), 5 minutes apart
  --boats N             boats per start group (default 12)
  --laps N              windward-leeward rounds (default 2)
  --leg-length M        start line to windward mark in metres, 500 or more (default 2400)
  --delay-seconds S     the event's delay, 0-600 (default 0)
  --seed TEXT           the same seed makes the same race and ids (default: new each run)

The gun of the first group is 5 minutes (divided by the speed) after the start: the
boats' pre-start comes first. Ctrl-C stops the feed; the race stays as fed.
`;

const PROGRESS_EVERY_MS = 10_000;

export async function feedCommand(args: string[], io: CommandIo = processIo): Promise<number> {
  const say = printer(io.stdout);
  const options = parseCommandLine("feed", FEED_USAGE, io.stderr, () => parseOptions(args, io.env));
  if (!options) return 2;
  const client = createIngestClient(options);
  const startMs = Date.now();
  const race = feedRace(options, startMs);
  const event = race.events[0]!;
  const liveRace = event.races[0]!;

  // The set-up: everything up to now (the course, the first wind readings), no fixes.
  const setUp = sliceScenario(race, null, startMs);
  for (const group of groupsOf(setUp)) delete group.tracks;
  try {
    await client.applyScenario({ events: fromJson(ListValueSchema, JSON.parse(JSON.stringify(setUp.events))) });
  } catch (error) {
    io.stderr.write(`race-api feed: setting the race up failed: ${describe(error)}\n`);
    return 1;
  }
  say(
    `Event ${event.name} (${event.id}), race ${liveRace.name} (${liveRace.id}) of club ${options.clubId}, at ${options.speed}x real time from ${new Date(startMs).toISOString()}:`,
  );
  for (const group of liveRace.startGroups) say(`  ${group.name} (${group.id}): ${group.entryIds.length} boats, gun ${group.startTimeUtc}`);

  const acks: number[] = [];
  let lastError = "";
  const feed: Feed = startFeed(client, race, {
    fromMs: startMs,
    // On gRPC, the fixes go on one acknowledged stream, as a platform sends them.
    pushFixes: options.grpcUrl !== undefined,
    onFixesAcked: (ack: FixesAck) => acks.push(ack.ackedMs - ack.sentMs),
    onError: (error) => (lastError = describe(error)),
  });
  const progress = setInterval(
    () => say(`${new Date().toISOString()} ${summary(feed, acks)}${lastError ? `; last error: ${lastError}` : ""}`),
    PROGRESS_EVERY_MS,
  );
  const fed = new AbortController();
  const outcome = await Promise.race([feed.finished.then(() => "finished" as const), untilStopSignal(fed.signal)]);
  fed.abort();
  clearInterval(progress);
  await feed.stop();
  say(`${outcome === "finished" ? "Race fed to its end" : `${outcome}: stopped`}: ${summary(feed, acks)}`);
  return 0;
}

/**
 * The race the command feeds when started at `startMs`: its first fixes (the boats'
 * pre-start) come 2 s of race time later, the gun 5 minutes after them.
 */
export function feedRace(options: Omit<FeedCommandOptions, "url" | "grpcUrl" | "clientId" | "clientSecret">, startMs: number): Scenario {
  const simulated = simulateScenario({
    seed: options.seed,
    gunMs: startMs + FIRST_FIX_AFTER_START_MS + PRESTART_MS,
    startGroups: options.groups,
    boatsPerGroup: options.boats,
    laps: options.laps,
    legLengthM: options.legLengthM,
    delaySeconds: options.delaySeconds,
  });
  for (const event of simulated.events) event.clubId = options.clubId;
  return fastForward(simulated, startMs, options.speed);
}

/** Race time from the start to the first fixes: the set-up carries none. */
export const FIRST_FIX_AFTER_START_MS = 2000;

interface FeedCommandOptions {
  url: string;
  grpcUrl?: string;
  clubId: string;
  clientId: string;
  clientSecret: string;
  speed: number;
  seed: string;
  groups: number;
  boats: number;
  laps: number;
  legLengthM: number;
  delaySeconds: number;
}

function parseOptions(args: string[], env: NodeJS.ProcessEnv): FeedCommandOptions {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      ...CLIENT_OPTIONS,
      "club-id": { type: "string" },
      speed: { type: "string" },
      groups: { type: "string" },
      boats: { type: "string" },
      laps: { type: "string" },
      "leg-length": { type: "string" },
      "delay-seconds": { type: "string" },
      seed: { type: "string" },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const client = clientOptions(values, env);
  const clubId = values["club-id"];
  if (clubId === undefined || !isUuid(clubId))
    throw new UsageError(`--club-id must be the club's UUID, got ${JSON.stringify(clubId ?? "")}`);
  const options: FeedCommandOptions = {
    ...client,
    clubId,
    speed: number("--speed", values.speed, 1, 1, MAX_SPEED),
    seed: values.seed ?? `feed-${startId()}`,
    groups: number("--groups", values.groups, 2, 1, 20, true),
    boats: number("--boats", values.boats, 12, 1, 500, true),
    laps: number("--laps", values.laps, 2, 1, 10, true),
    legLengthM: number("--leg-length", values["leg-length"], 2400, 500, 20_000),
    delaySeconds: number("--delay-seconds", values["delay-seconds"], 0, 0, 600, true),
  };
  return options;
}

function number(name: string, value: string | undefined, fallback: number, min: number, max: number, whole = false): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < min || n > max || (whole && !Number.isInteger(n))) {
    throw new UsageError(`${name} must be ${whole ? "a whole number" : "a number"} from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function startId(): string {
  return new Date().toISOString().replace(/\D/g, "").slice(0, 17);
}

function summary(feed: Feed, acks: number[]): string {
  const t = feed.totals;
  const rejected = Object.entries(t.rejected).map(([reason, n]) => `${n} ${reason}`);
  const errors = Object.entries(t.errors).map(([code, n]) => `${n} ${code}`);
  const sorted = [...acks].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted.length === 0 ? "-" : String(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
  return (
    `${t.calls} calls, fixes ${t.accepted} accepted, ${t.duplicates} duplicates, rejected ${rejected.join(", ") || "none"}; ` +
    `failed calls ${errors.join(", ") || "none"}; AppendFixes ack p50 ${at(50)} ms, p99 ${at(99)} ms`
  );
}

/** The error's code and message (which names the reason and the field at fault). */
function describe(error: unknown): string {
  const e = ConnectError.from(error);
  return `${Code[e.code]}: ${e.rawMessage}`;
}
