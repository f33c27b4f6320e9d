// Fault drills under ingest load, with the acknowledged stream (PushFixes) as a platform
// keeps it open and AppendFixes calls beside it: a `race-api serve` process killed
// (SIGKILL) mid-stream, and the database stopped and started again, or killed (a crash,
// recovered by InnoDB at its next start). Afterwards every acknowledged message's fixes
// are stored, and re-sending from the first unacknowledged message (and every
// unanswered call) writes each missing fix once and counts the rest as duplicates: the
// fixes accepted over all answers are exactly the rows stored. A private MariaDB of
// this file's own, so stopping it disturbs no other test file.

import { Code, ConnectError } from "@connectrpc/connect";
import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createFixPusher, createIngestClient, type IngestClient } from "../../src/sim/ingest-client.js";
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

interface Load {
  /** In the order sent. */
  readonly outcomes: Outcome[];
  /** Stops sending and waits for every answer still due. */
  stop(): Promise<Outcome[]>;
}

/** Sends the batches one after another (AppendFixes), every `everyMs`, until `stop()`; records each answer. */
function unaryLoad(client: IngestClient, next: () => Batch, everyMs: number): Load {
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

/**
 * Pushes a batch every `everyMs` on the client's PushFixes stream without waiting for
 * answers (a new stream after one fails), until `stop()` or `next` has no more; records
 * each answer.
 */
function pushLoad(client: IngestClient, next: () => Batch | undefined, everyMs: number): Load {
  const pusher = createFixPusher(client);
  const outcomes: Outcome[] = [];
  const answered: Promise<void>[] = [];
  let running = true;
  const done = (async () => {
    for (let sent = next(); running && sent; sent = next()) {
      const outcome: Outcome = { batch: sent, accepted: 0, acked: false };
      outcomes.push(outcome);
      answered.push(
        pusher.push(sent).then(
          (answer) => {
            expect(answer.rejected).toEqual([]);
            outcome.accepted = answer.accepted;
            outcome.acked = true;
          },
          (error: unknown) => {
            outcome.error = ConnectError.from(error);
          },
        ),
      );
      await sleep(everyMs);
    }
  })();
  return {
    outcomes,
    async stop() {
      running = false;
      await done;
      await Promise.all(answered);
      await pusher.close();
      return outcomes;
    },
  };
}

/** Re-sends the batches in order on one PushFixes stream, each until it is answered; returns the fixes accepted and counted duplicate. */
async function resend(client: IngestClient, batches: readonly Batch[]): Promise<{ accepted: number; duplicates: number }> {
  const pusher = createFixPusher(client);
  let accepted = 0;
  let duplicates = 0;
  for (const sent of batches) {
    await within(
      20_000,
      async () => {
        const answer = await pusher.push(sent);
        expect(answer.rejected).toEqual([]);
        accepted += answer.accepted;
        duplicates += answer.duplicates;
      },
      250,
    );
  }
  await pusher.close();
  return { accepted, duplicates };
}

/**
 * Back after a fault: three answers acknowledged since the last failure. Not "the last three
 * sent": pushes are sent every 100 ms without waiting, so on a loaded machine the newest
 * are still unanswered at any moment.
 */
function recovered(load: Load): boolean {
  const lastFailure = load.outcomes.findLastIndex((o) => o.error !== undefined);
  return load.outcomes.slice(lastFailure + 1).filter((o) => o.acked).length >= 3;
}

/** The answers came in the order sent: every acknowledged batch comes before the first unacknowledged one of a broken stream. */
function unacknowledgedFrom(outcomes: readonly Outcome[]): number {
  const first = outcomes.findIndex((o) => !o.acked);
  return first === -1 ? outcomes.length : first;
}

describe("ingest under faults", () => {
  it("an instance killed mid-stream: every acknowledged message's fixes are stored, and re-sending from the first unacknowledged one writes each missing fix once", async () => {
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
    let m = 0;
    const pushed = pushLoad(first.client, () => streamed[m++], 50);
    await within(
      15_000,
      async () => {
        expect(pushed.outcomes.filter((o) => o.acked).length).toBeGreaterThan(10);
        expect(load.outcomes.filter((o) => o.acked).length).toBeGreaterThan(3);
      },
      20,
    );
    expect(m).toBeLessThan(streamed.length); // still streaming when the process dies
    first.server.process.kill("SIGKILL");
    await within(10_000, async () => expect(load.outcomes.some((o) => !o.acked)).toBe(true), 20);
    await within(10_000, async () => expect(pushed.outcomes.some((o) => o.error)).toBe(true), 20);
    const [outcomes, pushes] = await Promise.all([load.stop(), pushed.stop()]);

    // The messages and calls in flight were cut (ABORTED or CANCELED, as the HTTP/2 session's
    // end reaches the client) and later ones refused (UNAVAILABLE): each says "no answer,
    // send it again". Some were acknowledged before.
    const noAnswer = [Code.Aborted, Code.Canceled, Code.Unavailable];
    const firstUnacked = unacknowledgedFrom(pushes);
    expect(firstUnacked).toBeGreaterThan(10);
    for (const o of pushes.slice(firstUnacked)) {
      expect(o.acked).toBe(false);
      expect(noAnswer, o.error!.message).toContain(o.error!.code);
    }
    const acked = [...outcomes, ...pushes].filter((o) => o.acked);
    const failed = outcomes.filter((o) => !o.acked);
    expect(failed.length).toBeGreaterThan(0);
    for (const o of failed) expect(noAnswer, o.error!.message).toContain(o.error!.code);

    // Every acknowledged fix is stored.
    const stored = await storedKeys();
    for (const key of keysOf(acked.map((o) => o.batch))) expect(stored.has(key), key).toBe(true);

    // Another instance takes everything unacknowledged, from the stream's first unanswered message on (with
    // the messages never sent) and every unanswered call: each fix is written once.
    const second = await serve();
    const unacknowledged = [...streamed.slice(firstUnacked), ...failed.map((o) => o.batch)];
    const again = await resend(second.client, unacknowledged);
    expect(again.accepted + again.duplicates).toBe(fixesOf(unacknowledged));
    const after = await storedKeys();
    const sent = new Set(keysOf([...streamed, ...outcomes.map((o) => o.batch)]));
    expect(after.size - before).toBe(sent.size);
    for (const key of sent) expect(after.has(key), key).toBe(true);
    // What the answers counted as written is exactly what is there: nothing was counted (or written) twice.
    const ackedAccepted = acked.reduce((n, o) => n + o.accepted, 0);
    // The fixes committed by the dead instance without an answer are the re-send's duplicates.
    expect(ackedAccepted + again.accepted + again.duplicates).toBe(sent.size);
    second.server.process.kill("SIGTERM");
  }, 90_000);

  it.each([
    ["restarted", () => instance.stop()],
    ["crashed", () => instance.crash()],
  ])(
    "the database %s under load: messages and calls fail as unavailable, every acknowledged fix stays, and re-sending the failed ones writes each once",
    async (_, fault) => {
      const before = (await storedKeys()).size;
      const { server, client } = await serve();
      const next = recentTimes();
      const loads = [pushLoad(client, () => batch(next()), 100), unaryLoad(client, () => batch(next()), 100)];
      // A failed drill stops its loads too, or they write on into the next drill's count.
      onTestFinished(() => Promise.all(loads.map((l) => l.stop())).then(() => undefined));
      await within(10_000, async () => expect(loads.every((l) => l.outcomes.filter((o) => o.acked).length > 5)).toBe(true), 50);
      await fault();
      await sleep(2500);
      await instance.start();
      await within(60_000, async () => expect(loads.every(recovered)).toBe(true), 100);
      const [pushes, calls] = await Promise.all(loads.map((l) => l.stop()));
      const outcomes = [...pushes!, ...calls!];

      const acked = outcomes.filter((o) => o.acked);
      const failed = outcomes.filter((o) => !o.acked);
      expect(pushes!.filter((o) => !o.acked).length).toBeGreaterThan(0);
      expect(calls!.filter((o) => !o.acked).length).toBeGreaterThan(0);
      for (const o of failed) expect(o.error!.code, o.error!.message).toBe(Code.Unavailable);
      const stored = await storedKeys();
      for (const key of keysOf(acked.map((o) => o.batch))) expect(stored.has(key), key).toBe(true);
      // A failed message or call wrote nothing, unless its commit went through and only the answer was lost.
      const failedKeys = keysOf(failed.map((o) => o.batch));
      const writtenAnyway = failedKeys.filter((key) => stored.has(key));

      const again = await resend(
        client,
        failed.map((o) => o.batch),
      );
      expect(again.accepted + again.duplicates).toBe(failedKeys.length);
      expect(again.duplicates).toBe(writtenAnyway.length);
      const after = await storedKeys();
      const sent = keysOf(outcomes.map((o) => o.batch));
      expect(after.size - before).toBe(sent.length);
      expect(acked.reduce((n, o) => n + o.accepted, 0) + again.accepted + writtenAnyway.length).toBe(sent.length);
      server.process.kill("SIGTERM");
    },
    90_000,
  );
});
