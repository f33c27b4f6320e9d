// Fault drills under ingest load: a `race-api serve` process killed (SIGKILL) while a
// StreamFixes call and AppendFixes calls are under way, and the database stopped and
// started again under AppendFixes load. Afterwards every acknowledged fix is stored,
// and re-sending everything that had no acknowledgement writes each missing fix once
// and counts the rest as duplicates: the fixes accepted over all answers are exactly
// the rows stored. A private MariaDB of this file's own, so stopping it disturbs no
// other test file.

import { Code, ConnectError } from "@connectrpc/connect";
import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIngestClient, type IngestClient } from "../../src/ingest-client.js";
import { importScenario } from "../../src/scenario/import.js";
import { migrate } from "../../src/store/migrate.js";
import { createPool, type Pool } from "../../src/store/pool.js";
import { secretOf } from "../support/api.js";
import { start as startCli, type Running } from "../support/cli.js";
import { INGEST_IDS as IDS, ingestScenario } from "../support/ingest-scenarios.js";
import { sleep, within } from "../support/load.js";
import { startMariaDbInstance, type MariaDbInstance } from "../support/mariadb-instance.js";

let instance: MariaDbInstance;
let admin: Pool;
const servers: Running[] = [];

beforeAll(async () => {
  instance = await startMariaDbInstance();
  admin = createPool(instance.url, { statementTimeoutMs: 0 });
  await migrate(admin);
  await importScenario(admin, ingestScenario());
}, 120_000);

afterAll(async () => {
  for (const server of servers) if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill("SIGKILL");
  await admin?.end();
  await instance?.destroy();
});

/** `race-api serve` in a process of its own, and an IngestService client of it (gRPC). */
async function serve(): Promise<{ server: Running; client: IngestClient }> {
  const server = startCli(["serve"], { DATABASE_URL: instance.url, PORT: "0", GRPC_PORT: "0", METRICS_PORT: "0", LOG_LEVEL: "info" });
  servers.push(server);
  const [, httpUrl] = await server.waitFor(/"httpUrl":"(http:\/\/[^"]+)"/);
  const [, grpcUrl] = await server.waitFor(/"grpcUrl":"(http:\/\/[^"]+)"/);
  return { server, client: createIngestClient({ url: httpUrl!, grpcUrl: grpcUrl!, clientId: "writer", clientSecret: secretOf("writer") }) };
}

type Batch = {
  raceId: string;
  startGroupId: string;
  boats: Array<{ entryId: string; t: bigint[]; lat: number[]; lon: number[]; sogKn: number[]; cogDeg: number[]; accuracyM: number[] }>;
};

/** One second of both boats of the group: one fix each at `t` (a's) and `t + 1` (b's). */
function batch(t: number): Batch {
  const boat = (entryId: string, at: number) => ({
    entryId,
    t: [BigInt(at)],
    lat: [50.7 + (at % 100_000) / 1e7],
    lon: [-1.3],
    sogKn: [5],
    cogDeg: [90],
    accuracyM: [],
  });
  return { raceId: IDS.race, startGroupId: IDS.group, boats: [boat(IDS.a, t), boat(IDS.b, t + 1)] };
}

/** Sample times 20 s behind the clock, each at least 10 ms after the last: new keys, never in the future or settled. */
function recentTimes(): () => number {
  let last = 0;
  return () => (last = Math.max(last + 10, Date.now() - 20_000));
}

const fixesOf = (batches: readonly Batch[]) => batches.reduce((n, b) => n + b.boats.reduce((m, boat) => m + boat.t.length, 0), 0);

async function storedKeys(): Promise<Set<string>> {
  const [rows] = await admin.query<RowDataPacket[]>("SELECT e.uuid, f.t FROM fixes f JOIN entries e ON e.id = f.entry_id");
  return new Set(rows.map((row) => `${row.uuid}:${row.t}`));
}

const keysOf = (batches: readonly Batch[]) => batches.flatMap((b) => b.boats.flatMap((boat) => boat.t.map((t) => `${boat.entryId}:${t}`)));

/** Every send of a batch and what came of it. */
interface Outcome {
  batch: Batch;
  accepted: number;
  acked: boolean;
  error?: ConnectError;
}

/** Sends the batches one after another (AppendFixes), every `everyMs`, until `stop()`; records each answer. */
function unaryLoad(client: IngestClient, next: () => Batch, everyMs: number) {
  const outcomes: Outcome[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const sent = next();
      const started = Date.now();
      await client.appendFixes(sent).then(
        (answer) => {
          expect(answer.rejected).toEqual([]);
          outcomes.push({ batch: sent, accepted: answer.accepted, acked: true });
        },
        (error: unknown) => outcomes.push({ batch: sent, accepted: 0, acked: false, error: ConnectError.from(error) }),
      );
      await sleep(started + everyMs - Date.now());
    }
  })();
  return {
    outcomes,
    async stop() {
      running = false;
      await done;
      return outcomes;
    },
  };
}

/** Re-sends each batch (AppendFixes) until it is answered; returns the fixes accepted and counted duplicate. */
async function resend(client: IngestClient, batches: readonly Batch[]): Promise<{ accepted: number; duplicates: number }> {
  let accepted = 0;
  let duplicates = 0;
  for (const sent of batches) {
    await within(
      20_000,
      async () => {
        const answer = await client.appendFixes(sent);
        expect(answer.rejected).toEqual([]);
        accepted += answer.accepted;
        duplicates += answer.duplicates;
      },
      250,
    );
  }
  return { accepted, duplicates };
}

describe("ingest under faults", () => {
  it("an instance killed mid-stream: every acknowledged fix is stored, and re-sending the rest writes each missing fix once", async () => {
    const before = (await storedKeys()).size;
    const first = await serve();
    // The stream's sample times a minute ago, 10 ms apart; the unary calls' 20 s ago and later.
    const base = Date.now() - 60_000;
    const streamed = Array.from({ length: 300 }, (_, m) => batch(base + m * 10));
    const load = unaryLoad(
      first.client,
      (
        (next) => () =>
          batch(next())
      )(recentTimes()),
      50,
    );
    let sentMessages = 0;
    const messages = async function* () {
      for (const message of streamed) {
        sentMessages++;
        yield message;
        await sleep(50);
      }
    };
    const stream = first.client.streamFixes(messages()).then(
      () => "answered" as const,
      (error: unknown) => ConnectError.from(error),
    );
    await within(
      15_000,
      async () => {
        expect(sentMessages).toBeGreaterThan(10);
        expect(load.outcomes.filter((o) => o.acked).length).toBeGreaterThan(3);
      },
      20,
    );
    expect(sentMessages).toBeLessThan(streamed.length); // still streaming when the process dies
    first.server.process.kill("SIGKILL");
    const streamOutcome = await stream;
    await within(10_000, async () => expect(load.outcomes.some((o) => !o.acked)).toBe(true), 20);
    const outcomes = await load.stop();

    // The stream had no answer; the calls in flight were cut (ABORTED or CANCELED, as the HTTP/2
    // session's end reaches the client) and later ones refused (UNAVAILABLE): each says "no answer,
    // send it again". Some calls were acknowledged before.
    const noAnswer = [Code.Aborted, Code.Canceled, Code.Unavailable];
    expect(streamOutcome).toBeInstanceOf(ConnectError);
    expect(noAnswer).toContain((streamOutcome as ConnectError).code);
    const acked = outcomes.filter((o) => o.acked);
    const failed = outcomes.filter((o) => !o.acked);
    expect(acked.length).toBeGreaterThan(3);
    expect(failed.length).toBeGreaterThan(0);
    for (const o of failed) expect(noAnswer, o.error!.message).toContain(o.error!.code);

    // Every acknowledged fix is stored.
    const stored = await storedKeys();
    for (const key of keysOf(acked.map((o) => o.batch))) expect(stored.has(key), key).toBe(true);

    // Another instance takes everything unacknowledged: each fix is written once.
    const second = await serve();
    const unacknowledged = [...streamed, ...failed.map((o) => o.batch)];
    const again = await resend(second.client, unacknowledged);
    expect(again.accepted + again.duplicates).toBe(fixesOf(unacknowledged));
    const after = await storedKeys();
    const sent = new Set(keysOf([...streamed, ...outcomes.map((o) => o.batch)]));
    expect(after.size - before).toBe(sent.size);
    for (const key of sent) expect(after.has(key), key).toBe(true);
    // What the answers counted as written is exactly what is there: nothing was counted (or written) twice.
    expect(acked.reduce((n, o) => n + o.accepted, 0) + again.accepted).toBeLessThanOrEqual(sent.size);
    // The fixes committed by the dead instance without an answer are the re-send's duplicates.
    expect(again.duplicates).toBe(sent.size - acked.reduce((n, o) => n + o.accepted, 0) - again.accepted);
    second.server.process.kill("SIGTERM");
  }, 90_000);

  it("the database restarted under load: calls fail as unavailable and write nothing, every acknowledged fix stays, and re-sending the failed ones writes each once", async () => {
    const before = (await storedKeys()).size;
    const { server, client } = await serve();
    const next = recentTimes();
    const load = unaryLoad(client, () => batch(next()), 100);
    await within(10_000, async () => expect(load.outcomes.filter((o) => o.acked).length).toBeGreaterThan(5), 50);
    await instance.stop();
    await sleep(2500);
    await instance.start();
    await within(30_000, async () => expect(load.outcomes.slice(-3).every((o) => o.acked)).toBe(true), 100);
    const outcomes = await load.stop();

    const acked = outcomes.filter((o) => o.acked);
    const failed = outcomes.filter((o) => !o.acked);
    expect(failed.length).toBeGreaterThan(0);
    for (const o of failed) expect(o.error!.code, o.error!.message).toBe(Code.Unavailable);
    const stored = await storedKeys();
    for (const key of keysOf(acked.map((o) => o.batch))) expect(stored.has(key), key).toBe(true);
    // A failed call wrote nothing: its fixes are not there (the database said no before committing).
    const failedKeys = keysOf(failed.map((o) => o.batch));
    const writtenAnyway = failedKeys.filter((key) => stored.has(key));

    const again = await resend(
      client,
      failed.map((o) => o.batch),
    );
    expect(again.accepted + again.duplicates).toBe(failedKeys.length);
    // Duplicates only where a commit went through but its answer was lost.
    expect(again.duplicates).toBe(writtenAnyway.length);
    const after = await storedKeys();
    const sent = keysOf(outcomes.map((o) => o.batch));
    expect(after.size - before).toBe(sent.length);
    expect(acked.reduce((n, o) => n + o.accepted, 0) + again.accepted + writtenAnyway.length).toBe(sent.length);
    server.process.kill("SIGTERM");
  }, 90_000);
});
