// The feed of bench/load.ts, in a process of its own, as a club's tracking platform is
// a program of its own: an acknowledgement's time is then the service's and the
// network's, not also the waits of the bench's event loop (the freshness probe, the
// counters, the garbage of twenty races held in memory). Each race's feed starts at its
// own moment within the second, as independent platforms send; fed from one process in
// step, every call of a second would queue behind the others' encoding, and one stall
// would delay them all.

import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Scenario } from "../src/domain/scenario.js";
import { createIngestClient } from "../src/sim/ingest-client.js";
import { startFeed, type Feed } from "../src/sim/feed.js";
import { simulateScenario } from "../src/sim/index.js";

/** Race `r` of a bench run started at `nowMs`: the bench imports it, the feed process feeds it. */
export function benchRace(r: number, nowMs: number, groups: number, boats: number): Scenario {
  return simulateScenario({
    seed: `bench-load-${r}`,
    gunMs: nowMs - 20 * 60_000,
    startGroups: groups,
    boatsPerGroup: boats,
    delaySeconds: 0,
  });
}

export interface FeedPlan {
  nowMs: number;
  races: number;
  groups: number;
  boats: number;
  /** Race r goes to instance r % instances.length, with the tracking:write client of club r % feeders.length. */
  instances: Array<{ url: string; grpcUrl: string }>;
  feeders: Array<{ clientId: string; clientSecret: string }>;
}

/** One AppendFixes answered: when, how long after it was sent, and one fix of it for the freshness probe. */
export interface FeedAck {
  race: number;
  ackedMs: number;
  ms: number;
  startGroupId: string;
  entryId: string | undefined;
  t: number | undefined;
}

/** Every race's feed so far, and the process's CPU time. */
export interface FeedCounts {
  calls: number;
  accepted: number;
  failed: number;
  rejected: number;
  cpuMs: number;
}

type ToFeed = { type: "start"; plan: FeedPlan } | { type: "counts" } | { type: "stop" };
type FromFeed =
  | { type: "started" }
  | { type: "ack"; ack: FeedAck }
  | { type: "error"; message: string }
  | { type: "counts"; counts: FeedCounts }
  | { type: "stopped" };

const ROLE_VARIABLE = "LOAD_FEED";

/** The feed process, seen from the bench. */
export class FeedProcess {
  private readonly waiting: Array<(message: FromFeed) => void> = [];

  private constructor(
    private readonly child: ChildProcess,
    onAck: (ack: FeedAck) => void,
    onError: (message: string) => void,
  ) {
    child.on("message", (message: FromFeed) => {
      if (message.type === "ack") onAck(message.ack);
      else if (message.type === "error") onError(message.message);
      else this.waiting.shift()?.(message);
    });
  }

  /** Forks the process and resolves once every feed has started. */
  static async start(plan: FeedPlan, onAck: (ack: FeedAck) => void, onError: (message: string) => void): Promise<FeedProcess> {
    const child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, [ROLE_VARIABLE]: "1" },
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const feed = new FeedProcess(child, onAck, onError);
    await feed.ask({ type: "start", plan });
    return feed;
  }

  async counts(): Promise<FeedCounts> {
    const answer = await this.ask({ type: "counts" });
    if (answer.type !== "counts") throw new Error(`the feed process answered ${answer.type} to counts`);
    return answer.counts;
  }

  /** Stops every feed, waits for the calls under way, and lets the process end. */
  async stop(): Promise<void> {
    if (!this.child.connected) return;
    await this.ask({ type: "stop" });
    this.child.disconnect();
  }

  private ask(message: ToFeed): Promise<FromFeed> {
    return new Promise((resolve, reject) => {
      const exited = () => reject(new Error(`the feed process exited (${this.child.exitCode}) before it answered ${message.type}`));
      this.child.once("exit", exited);
      this.waiting.push((answer) => {
        this.child.off("exit", exited);
        resolve(answer);
      });
      this.child.send(message);
    });
  }
}

function runFeedProcess(): void {
  const send = (message: FromFeed) => process.send?.(message);
  const feeds: Feed[] = [];
  const timers: NodeJS.Timeout[] = [];
  const start = (plan: FeedPlan) => {
    const clients = plan.instances.map((instance) =>
      plan.feeders.map((feeder) => createIngestClient({ url: instance.url, grpcUrl: instance.grpcUrl, ...feeder })),
    );
    for (let r = 0; r < plan.races; r++) {
      const race = benchRace(r, plan.nowMs, plan.groups, plan.boats);
      const client = clients[r % plan.instances.length]![r % plan.feeders.length]!;
      // Its first tick sends what the race sailed since nowMs; each tick after, one second more.
      const begin = () =>
        feeds.push(
          startFeed(client, race, {
            fromMs: plan.nowMs,
            pushFixes: true,
            onError: (error) => send({ type: "error", message: String((error as Error).message ?? error).slice(0, 160) }),
            onFixesAcked: (ack) => {
              const [entryId, t] = [...ack.newestT][0] ?? [];
              const fields = { ackedMs: ack.ackedMs, ms: ack.ackedMs - ack.sentMs, startGroupId: ack.startGroupId };
              send({ type: "ack", ack: { race: r, ...fields, entryId, t } });
            },
          }),
        );
      timers.push(setTimeout(begin, Math.floor((r * 1000) / plan.races)));
    }
  };
  const counts = (): FeedCounts => {
    const sum = (pick: (feed: Feed) => number) => feeds.reduce((n, feed) => n + pick(feed), 0);
    const values = (record: Record<string, number>) => Object.values(record).reduce((n, v) => n + v, 0);
    const cpu = process.cpuUsage();
    return {
      calls: sum((f) => f.totals.calls),
      accepted: sum((f) => f.totals.accepted),
      failed: sum((f) => values(f.totals.errors)),
      rejected: sum((f) => values(f.totals.rejected)),
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
  };
  process.on("message", (message: ToFeed) => {
    if (message.type === "start") {
      start(message.plan);
      send({ type: "started" });
    } else if (message.type === "counts") send({ type: "counts", counts: counts() });
    else {
      for (const timer of timers) clearTimeout(timer);
      void Promise.all(feeds.map((feed) => feed.stop())).then(() => send({ type: "stopped" }));
    }
  });
  process.once("disconnect", () => process.exit(0));
}

if (process.env[ROLE_VARIABLE]) runFeedProcess();
