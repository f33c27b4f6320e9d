// `race-api demo`: a local database, a simulated race already a few minutes past its
// gun, API credentials, and a running server, with commands to paste. The race so far
// is imported; from then on it is fed live through IngestService over gRPC by a
// tracking:write client of the demo's own, as a club's tracking platform would feed it.
// Ctrl-C stops it cleanly.

import { randomBytes } from "node:crypto";
import { pino } from "pino";
import type { Config } from "../composition/config.js";
import { importScenario } from "../scenario/import.js";
import type { Scenario } from "../domain/scenario.js";
import { createRuntime, servingPoolOptions } from "../composition/runtime.js";
import { OVERLAY_PATH } from "../overlay/static-files.js";
import { startServer } from "../composition/server.js";
import { createIngestClient } from "../sim/ingest-client.js";
import { startFeed, type FeedTotals } from "../sim/feed.js";
import { DEMO_OPTIONS, simulateScenario } from "../sim/simulate.js";
import { sliceScenario } from "../sim/slice.js";
import { createDatabase, dropDatabase, resolveDatabaseUrl } from "../setup/database.js";
import { migrate } from "../store/migrate.js";
import { createPool } from "../store/pool.js";
import { untilStopSignal } from "./stop-signal.js";

const DEMO_DATABASE = "race_api_demo";
// The second start group goes 5 minutes after the first: both are racing when the demo opens.
const MINUTES_SINCE_GUN = 8;
const DEMO_CLIENT_ID = "demo-overlay";
const DEMO_SCOPES = ["tracking:read", "events:read", "results:read"];
const FEED_CLIENT_ID = "demo-feed";

export async function runDemo(config: Config): Promise<number> {
  const say = (line: string) => console.log(line);
  // Request logs would drown the instructions; LOG_LEVEL turns them on.
  const log = pino({ level: process.env.LOG_LEVEL ? config.logLevel : "warn" });

  say("Preparing the database ...");
  const url = await resolveDatabaseUrl(config.databaseUrl, DEMO_DATABASE, say);
  const now = Date.now();
  if (!config.databaseUrl) {
    // The local demo database is the demo's own: start each run from a clean slate.
    await dropDatabase(url);
    await createDatabase(url);
  }
  const pool = createPool(url, servingPoolOptions(config));
  try {
    await migrate(pool);
    // A configured database may hold earlier demo runs: a new seed gives this run its own ids.
    const race = simulateScenario({
      ...DEMO_OPTIONS,
      ...(config.databaseUrl ? { seed: `demo-${now}` } : {}),
      gunMs: now - MINUTES_SINCE_GUN * 60_000,
    });
    const clientSecret = randomBytes(24).toString("base64url");
    const feedSecret = randomBytes(24).toString("base64url");
    race.clients = [
      { clientId: DEMO_CLIENT_ID, clientSecret, clubId: race.clubs[0]!.id, name: "Demo overlay", scopes: DEMO_SCOPES },
      { clientId: FEED_CLIENT_ID, clientSecret: feedSecret, clubId: race.clubs[0]!.id, name: "Demo live feed", scopes: ["tracking:write"] },
    ];

    say("Loading the demo club, event and the race so far ...");
    await importScenario(pool, sliceScenario(race, null, now));
    const runtime = await createRuntime(config, pool, log);
    const server = await startServer(config, runtime);
    const client = createIngestClient({ url: server.httpUrl, grpcUrl: server.grpcUrl, clientId: FEED_CLIENT_ID, clientSecret: feedSecret });
    const feed = startFeed(client, race, {
      fromMs: now,
      pushFixes: true,
      onError: (error) => log.error({ err: error }, "live feed call failed"),
    });
    const overlayToken = await fetchToken(server.httpUrl, clientSecret);
    say(instructions(race, clientSecret, server.httpUrl, server.grpcUrl, overlayToken));

    const signal = await untilStopSignal();
    say(`\n${signal}: stopping the live feed and the server ...`);
    await feed.stop();
    say(feedSummary(feed.totals));
    await server.close();
    await runtime.close();
    say("Stopped.");
    return 0;
  } finally {
    await pool.end();
  }
}

/** A token of the demo client, fetched the way any client does, for the overlay's URL. */
async function fetchToken(httpUrl: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${httpUrl}/api/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: DEMO_CLIENT_ID, client_secret: clientSecret }),
  });
  if (!response.ok) throw new Error(`demo token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

function instructions(race: Scenario, clientSecret: string, httpUrl: string, grpcUrl: string, overlayToken: string): string {
  const event = race.events[0]!;
  const liveRace = event.races[0]!;
  const groups = liveRace.startGroups.map((g) => `${g.name} (gun ${g.startTimeUtc}, ${g.entryIds.length} boats)`).join(", ");
  const firstGroup = liveRace.startGroups[0]!;
  const windowOpens = new Date(Date.parse(firstGroup.startTimeUtc!) - 5 * 60_000).toISOString();
  return `
Race tracking API demo is running. Ctrl-C stops it.

  REST, Connect, gRPC-Web  ${httpUrl}
  gRPC (h2c)               ${grpcUrl}

  Club   ${race.clubs[0]!.name} (${race.clubs[0]!.id})
  Event  ${event.name} (${event.id})
  Race   ${liveRace.name} (${liveRace.id}), live: ${groups}

  API client   client_id ${DEMO_CLIENT_ID}
               client_secret ${clientSecret}
               scopes ${DEMO_SCOPES.join(" ")}

  Live feed    every second, each start group's new fixes, wind, live order, finishes and state
               through IngestService over gRPC (${grpcUrl}) as client_id ${FEED_CLIENT_ID} (scope tracking:write)

Overlay (a browser, or an OBS/vMix browser source at 1920x1080; the token in the
fragment lasts an hour and never reaches a server log; lang= any of en de fr es it nb tr ru el):
  ${httpUrl}${OVERLAY_PATH}#race=${liveRace.id}&lang=en&token=${overlayToken}
or, to run past the hour (the page fetches its own tokens as ${DEMO_CLIENT_ID}):
  ${httpUrl}${OVERLAY_PATH}#race=${liveRace.id}&lang=en&client=${DEMO_CLIENT_ID}&secret=${clientSecret}

Try:
  TOKEN=$(curl -s -u ${DEMO_CLIENT_ID}:${clientSecret} -d grant_type=client_credentials ${httpUrl}/api/v1/oauth/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
  curl -s -H "Authorization: Bearer $TOKEN" ${httpUrl}/api/v1/events
  curl -s -H "Authorization: Bearer $TOKEN" ${httpUrl}/api/v1/events/${event.id}/live
  curl -s -H "Authorization: Bearer $TOKEN" ${httpUrl}/api/v1/races/${liveRace.id}/live
  curl -s -H "Authorization: Bearer $TOKEN" "${httpUrl}/api/v1/races/${liveRace.id}/live/insights?lang=en"
  curl -s -H "Authorization: Bearer $TOKEN" "${httpUrl}/api/v1/races/${liveRace.id}/track?startGroupId=${firstGroup.id}&since=${windowOpens}"
  curl -s -H "Authorization: Bearer $TOKEN" "${httpUrl}/api/v1/races/${liveRace.id}/analytics?startGroupId=${firstGroup.id}"
  curl -s -H "Authorization: Bearer $TOKEN" -OJ "${httpUrl}/api/v1/races/${liveRace.id}/track/export?startGroupId=${firstGroup.id}&format=gpx"
  curl -sN -H "Authorization: Bearer $TOKEN" "${httpUrl}/api/v1/races/${liveRace.id}/live/stream?from=${firstGroup.startTimeUtc}&speed=10"
  npx buf curl --http2-prior-knowledge -H "Authorization: Bearer $TOKEN" ${grpcUrl}/racing.v1.EventService/ListEvents
  npx buf curl --http2-prior-knowledge --list-methods ${grpcUrl}
  curl -s ${httpUrl}/readyz
Error codes: ${httpUrl}/docs/errors
`;
}

function feedSummary(totals: FeedTotals): string {
  const rejected = Object.entries(totals.rejected).map(([reason, n]) => `${n} ${reason}`);
  const errors = Object.entries(totals.errors).map(([code, n]) => `${n} ${code}`);
  return `Live feed: ${totals.calls} calls, ${totals.accepted} fixes accepted, ${totals.duplicates} duplicates, rejected: ${rejected.join(", ") || "none"}, failed calls: ${errors.join(", ") || "none"}`;
}
