// What the overlay tests share: a club's own web server holding a copy of the overlay's
// three files (another origin than the API, so every call takes the CORS path), and a
// live race of the main club to draw.

import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Scenario } from "../../src/domain/scenario.js";
import { DEMO_OPTIONS, simulateScenario, sliceScenario } from "../../src/sim/index.js";
import { CLUB, identityScenario } from "../support/api.js";

const OVERLAY_DIR = new URL("../../src/overlay/", import.meta.url);
const FILES: Record<string, [string, string]> = {
  "/": ["index.html", "text/html"],
  "/overlay.js": ["overlay.js", "text/javascript"],
  "/overlay.css": ["overlay.css", "text/css"],
};

export interface Site {
  server: Server;
  origin: string;
}

/** The overlay's files, and any `routes` of the site's own (a club's backend, say). */
export async function staticSite(
  port: number,
  routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void | Promise<void>> = {},
): Promise<Site> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const route = routes[path];
    if (route) return void route(request, response);
    const file = FILES[path];
    if (!file) return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": file[1] }).end(readFileSync(new URL(file[0], OVERLAY_DIR)));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${port}` };
}

/**
 * The identities, with the overlay client allowing `origins`, and one race of 9 boats
 * started 14 minutes ago, imported up to now and shown `delaySeconds` late (so the
 * delayed view keeps moving for that long).
 */
export function overlayScenario(origins: string[], delaySeconds: number): { scenario: Scenario; raceId: string } {
  const scenario = identityScenario();
  scenario.clients.find((client) => client.clientId === "overlay")!.allowedOrigins = origins;
  const now = Date.now();
  const race = sliceScenario(
    simulateScenario({
      seed: "overlay",
      gunMs: now - 14 * 60_000,
      startGroups: 1,
      boatsPerGroup: 9,
      laps: 2,
      legLengthM: 700,
      delaySeconds,
    }),
    null,
    now,
  );
  scenario.events = race.events.map((event) => ({ ...event, clubId: CLUB }));
  return { scenario, raceId: scenario.events[0]!.races[0]!.id };
}

/** How long before now the stale boat's phone went quiet (the analytics call a boat stale after 30 s). */
export const QUIET_FOR_MS = 3 * 60_000;

/**
 * The demo's race as `race-api demo` lays it (two start groups of 12 boats, IRC 1 and
 * IRC 2, `minutesSinceGun` after the first gun), imported up to now and shown
 * `delaySeconds` late; the first group's third boat went quiet QUIET_FOR_MS ago.
 */
export function demoLikeScenario(
  origins: string[],
  delaySeconds: number,
  minutesSinceGun: number,
): { scenario: Scenario; raceId: string; quietEntryId: string } {
  const scenario = identityScenario();
  scenario.clients.find((client) => client.clientId === "overlay")!.allowedOrigins = origins;
  const now = Date.now();
  const race = sliceScenario(simulateScenario({ ...DEMO_OPTIONS, gunMs: now - minutesSinceGun * 60_000, delaySeconds }), null, now);
  const group = race.events[0]!.races[0]!.startGroups[0]!;
  const quiet = group.tracks![2]!;
  const kept = quiet.t.findIndex((t) => t > now - QUIET_FOR_MS);
  for (const key of ["t", "lat", "lon", "sogKn", "cogDeg", "accuracyM"] as const) quiet[key]?.splice(kept);
  scenario.events = race.events.map((event) => ({ ...event, clubId: CLUB }));
  return { scenario, raceId: scenario.events[0]!.races[0]!.id, quietEntryId: quiet.entryId };
}
