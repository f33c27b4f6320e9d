// A club with ingest clients and a race to feed, and helpers to call IngestService
// in-process (Connect's in-memory transport over the real service implementation).

import { Code, createClient, createRouterTransport, ConnectError, type Client } from "@connectrpc/connect";
import { ErrorInfoSchema, RetryInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { IngestService } from "../../gen/racing/v1/ingest_pb.js";
import type { Runtime } from "../../src/composition/runtime.js";
import type { Scenario } from "../../src/domain/scenario.js";
import { CLUB, CO_HOST_CLUB, OTHER_CLUB, secretOf } from "./api.js";
import { entry, MINUTE, sharedEvent, uuid } from "./race-scenarios.js";

export const NOW = Date.now();
export const GUN = Math.floor(NOW / 1000) * 1000 - 10 * MINUTE;

export const INGEST_IDS = {
  event: uuid("e4000000", 1),
  race: uuid("a4000000", 1),
  group: uuid("b4000000", 1),
  /** A group of the same race without a gun. */
  noGun: uuid("b4000000", 2),
  /** A group whose gun is 10 minutes ahead: its capture window opens in 5. */
  later: uuid("b4000000", 4),
  /** In the group. */
  a: uuid("d4000000", 1),
  b: uuid("d4000000", 2),
  /** An entry of the event, not of the group. */
  outsider: uuid("d4000000", 3),
  /** Another club's race, and its group and entry. */
  otherEvent: uuid("e4000000", 2),
  otherRace: uuid("a4000000", 2),
  otherGroup: uuid("b4000000", 3),
  otherEntry: uuid("d4000000", 4),
  /** An event of the club, co-hosted by CO_HOST_CLUB. */
  coHostedEvent: uuid("e4000000", 3),
} as const;

/** Clients (secret `${clientId}-secret`): a writer, a reader, a writer of the co-host and of another club. */
export const INGEST_CLIENTS = {
  writer: { clubId: CLUB, scopes: ["tracking:write"] },
  reader: { clubId: CLUB, scopes: ["tracking:read", "events:read", "results:read"] },
  coHostWriter: { clubId: CO_HOST_CLUB, scopes: ["tracking:write", "tracking:read"] },
  otherWriter: { clubId: OTHER_CLUB, scopes: ["tracking:write", "tracking:read"] },
} as const;

export function ingestScenario(delaySeconds = 0): Scenario {
  const { event, race, group, noGun, a, b, outsider } = INGEST_IDS;
  return {
    format: "race-scenario/v1",
    clubs: [
      { id: CLUB, name: "Main Club" },
      { id: CO_HOST_CLUB, name: "Co-host Club" },
      { id: OTHER_CLUB, name: "Other Club" },
    ],
    clients: Object.entries(INGEST_CLIENTS).map(([clientId, c]) => ({
      clientId,
      clientSecret: secretOf(clientId),
      clubId: c.clubId,
      scopes: [...c.scopes],
    })),
    events: [
      sharedEvent(event, CLUB, {
        delaySeconds,
        coHostClubIds: [CO_HOST_CLUB],
        entries: [entry(a, "GBR 1", "Alpha"), entry(b, "GBR 2", "Bravo"), entry(outsider, "GBR 3", "Charlie")],
        races: [
          {
            id: race,
            raceNo: 1,
            name: "Race 1",
            isLive: true,
            startGroups: [
              { id: group, name: "Fleet A", state: "Started", startTimeUtc: new Date(GUN).toISOString(), entryIds: [a, b] },
              { id: noGun, name: "Fleet B", state: "Scheduled", startTimeUtc: null, entryIds: [a, b] },
              {
                id: INGEST_IDS.later,
                name: "Fleet C",
                state: "Scheduled",
                startTimeUtc: new Date(GUN + 20 * MINUTE).toISOString(),
                entryIds: [a, b],
              },
            ],
          },
        ],
      }),
      sharedEvent(INGEST_IDS.otherEvent, OTHER_CLUB, {
        entries: [entry(INGEST_IDS.otherEntry, "USA 1", "Other")],
        races: [
          {
            id: INGEST_IDS.otherRace,
            raceNo: 1,
            name: "Other race",
            isLive: true,
            startGroups: [
              {
                id: INGEST_IDS.otherGroup,
                name: "Other",
                state: "Started",
                startTimeUtc: new Date(GUN).toISOString(),
                entryIds: [INGEST_IDS.otherEntry],
              },
            ],
          },
        ],
      }),
    ],
  };
}

/** IngestService of `runtime` through Connect's in-memory transport. */
export function ingestClient(runtime: Runtime): Client<typeof IngestService> {
  return createClient(
    IngestService,
    createRouterTransport((router) => router.service(IngestService, runtime.services.ingest)),
  );
}

/** One boat's fixes at 1 Hz from `fromMs`, `n` of them, on a line heading north. */
export function boatFixes(
  entryId: string,
  fromMs: number,
  n: number,
  extra: { sogKn?: number[]; cogDeg?: number[]; accuracyM?: number[] } = {},
) {
  const t = Array.from({ length: n }, (_, i) => BigInt(fromMs + i * 1000));
  return {
    entryId,
    t,
    lat: t.map((_, i) => 50.7 + i * 0.0001),
    lon: t.map(() => -1.3),
    sogKn: extra.sogKn ?? t.map(() => 5.5),
    cogDeg: extra.cogDeg ?? t.map(() => 10),
    accuracyM: extra.accuracyM ?? [],
  };
}

export interface Refusal {
  code: string;
  reason: string | undefined;
  metadata: Record<string, string>;
  retryDelaySeconds: number | undefined;
}

/** The ConnectError a call failed with, as its code and its ErrorInfo and RetryInfo details. */
export async function refusal(call: Promise<unknown>): Promise<Refusal> {
  try {
    await call;
  } catch (error) {
    const e = ConnectError.from(error);
    const info = e.findDetails(ErrorInfoSchema)[0];
    const retry = e.findDetails(RetryInfoSchema)[0];
    return {
      code: Code[e.code],
      reason: info?.reason,
      metadata: { ...info?.metadata },
      retryDelaySeconds: retry?.retryDelay ? Number(retry.retryDelay.seconds) : undefined,
    };
  }
  throw new Error("the call succeeded");
}

export const paramInvalid = (name: string) => ({
  code: "InvalidArgument",
  reason: "API_PARAM_INVALID",
  metadata: { name },
  retryDelaySeconds: undefined,
});
