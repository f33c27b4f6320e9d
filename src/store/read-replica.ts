// Where read-model queries go: to a read replica (DATABASE_READ_URL) while it answers
// and is caught up, otherwise to the primary. Writes, and reads that must see them at
// once (client state, signing keys, imports, insight leases, facts and texts), always
// take the primary pool directly; only the services' read-model queries ask here.
//
// The replica's lag is measured with a heartbeat row rather than SHOW REPLICA STATUS,
// which needs a privilege, differs between MySQL 8 and MariaDB, and says nothing
// behind a proxy (Vitess, a managed service's endpoint): every 250 ms each instance
// writes UTC_TIMESTAMP(3) into `replication_heartbeat` on the primary and reads, on
// the replica, how old the newest beat there is. That age is the lag (plus at most one
// beat period, plus any clock skew between the two hosts). A replica whose SQL thread
// stopped keeps answering, but its beat grows old, so reads move to the primary.

import type { RowDataPacket } from "mysql2/promise";
import type { Logger } from "pino";
import { createPool, POOL_WAIT_TIMEOUT, type Pool, type PoolOptions } from "./pool.js";

/** How often each instance writes the beat on the primary and measures the replica's lag. */
export const HEARTBEAT_EVERY_MS = 250;
/** A beat or a lag reading that takes longer than this has failed: the replica is not used. */
export const PROBE_TIMEOUT_MS = 1000;
/** A replica not usable yet this long after start is logged as such (a stale beat of the previous run is not news). */
const STARTUP_GRACE_MS = 5000;

const BEAT_SQL =
  "INSERT INTO replication_heartbeat (id, beat_at) VALUES (1, UTC_TIMESTAMP(3)) ON DUPLICATE KEY UPDATE beat_at = UTC_TIMESTAMP(3)";
const LAG_SQL = "SELECT TIMESTAMPDIFF(MICROSECOND, beat_at, UTC_TIMESTAMP(3)) AS lag_us FROM replication_heartbeat WHERE id = 1";

export interface ReadPools {
  /** The pool a read-model query goes to now: the replica while it is usable, otherwise the primary. */
  pool(): Pool;
  /**
   * pool(), with how far behind the primary its rows may be at most (ms): 0 on the
   * primary; on the replica its measured lag plus the time since it was measured, as
   * a replica's lag grows no faster than the clock. For rules that hold that slack.
   */
  readFrom(): { pool: Pool; behindMs: number };
  /** Undefined without a replica; otherwise whether reads go to it now, and its newest measured lag. */
  replicaState(): { inUse: boolean; lagMs: number | null } | undefined;
  /** The replica's own pool, for its figures (telemetry); undefined without a replica. */
  replicaPool(): Pool | undefined;
  /** Stops the heartbeat and closes the replica's pools (never the primary's). */
  close(): Promise<void>;
}

/** No replica: every read on the primary; no heartbeat is written. */
export function primaryReads(primary: Pool): ReadPools {
  return {
    pool: () => primary,
    readFrom: () => ({ pool: primary, behindMs: 0 }),
    replicaState: () => undefined,
    replicaPool: () => undefined,
    close: async () => {},
  };
}

export interface ReplicaSettings {
  url: string;
  /** The serving pool's options, as the primary's. */
  poolOptions: PoolOptions;
  maxLagMs: number;
  logger: Logger;
}

/** Reads on the replica at `url` while it is usable; starts on the primary until the first good lag reading. */
export function replicaReads(primary: Pool, settings: ReplicaSettings): ReadPools {
  const replica = createPool(settings.url, settings.poolOptions);
  // The lag is read on a connection of its own, so a replica pool busy with reads does
  // not look like a lagging replica (and move all of that load to the primary).
  const probe = createPool(settings.url, {
    connectionLimit: 1,
    statementTimeoutMs: PROBE_TIMEOUT_MS,
    connectTimeoutMs: PROBE_TIMEOUT_MS,
    queueLimit: 1,
  });
  return new ReplicaReads(primary, replica, probe, settings.maxLagMs, settings.logger);
}

class ReplicaReads implements ReadPools {
  private inUse = false;
  private lagMs: number | null = null;
  /** When the lag now in lagMs was read (its probe started). */
  private lagReadAtMs = 0;
  /** The state last logged; null until the first (or, when unusable, the grace period is over). */
  private announced: boolean | null = null;
  private beatFailing = false;
  private beating = false;
  private probing = false;
  private closed = false;
  private readonly startedAt = Date.now();
  private readonly timer: NodeJS.Timeout;
  private readonly onReplica: Pool;

  constructor(
    private readonly primary: Pool,
    private readonly replica: Pool,
    private readonly probe: Pool,
    private readonly maxLagMs: number,
    private readonly logger: Logger,
  ) {
    this.onReplica = withFallback(replica, primary, (error) => this.judge(false, `a read could not reach it (${errorSummary(error)})`));
    this.timer = setInterval(() => this.tick(), HEARTBEAT_EVERY_MS);
    this.timer.unref();
    this.tick();
  }

  pool(): Pool {
    return this.inUse ? this.onReplica : this.primary;
  }

  readFrom(): { pool: Pool; behindMs: number } {
    if (!this.inUse || this.lagMs === null) return { pool: this.primary, behindMs: 0 };
    return { pool: this.onReplica, behindMs: this.lagMs + (Date.now() - this.lagReadAtMs) };
  }

  replicaState(): { inUse: boolean; lagMs: number | null } {
    return { inUse: this.inUse, lagMs: this.lagMs };
  }

  replicaPool(): Pool {
    return this.replica;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.inUse = false;
    clearInterval(this.timer);
    await Promise.all([this.replica.end(), this.probe.end()]);
  }

  /** A beat and a lag reading, each unless the previous one is still under way. */
  private tick(): void {
    if (this.closed) return;
    if (!this.beating) {
      this.beating = true;
      void this.beat().finally(() => (this.beating = false));
    }
    if (!this.probing) {
      this.probing = true;
      void this.check().finally(() => (this.probing = false));
    }
  }

  private async beat(): Promise<void> {
    try {
      await this.primary.query({ sql: BEAT_SQL, timeout: PROBE_TIMEOUT_MS });
      if (this.beatFailing && !this.closed) this.logger.info("replica heartbeat: the primary takes the beat again");
      this.beatFailing = false;
    } catch (error) {
      // The replica's lag grows without beats, so reads move to the primary (which has the same trouble).
      if (!this.beatFailing && !this.closed) this.logger.warn({ err: error }, "replica heartbeat: could not write the beat on the primary");
      this.beatFailing = true;
    }
  }

  private async check(): Promise<void> {
    let lagMs: number | null;
    const startedMs = Date.now();
    try {
      lagMs = await withinTime(this.measure(), PROBE_TIMEOUT_MS);
    } catch (error) {
      this.lagMs = null;
      return this.judge(false, `its lag could not be read (${errorSummary(error)})`);
    }
    this.lagMs = lagMs;
    // From the probe's start: the replica was at least this far behind then, no further.
    this.lagReadAtMs = startedMs;
    if (lagMs === null) return this.judge(false, "no heartbeat has reached it yet");
    if (lagMs > this.maxLagMs)
      return this.judge(false, `it lags ${Math.round(lagMs)} ms, more than DATABASE_READ_MAX_LAG_MS (${this.maxLagMs})`);
    this.judge(true, `lag ${Math.round(lagMs)} ms`);
  }

  /** Age of the newest beat on the replica in ms; null when it has none. */
  private async measure(): Promise<number | null> {
    const [rows] = await this.probe.query<RowDataPacket[]>(LAG_SQL);
    const lagUs = rows[0]?.lag_us as number | string | null | undefined;
    // A replica's clock slightly behind the primary's reads as a negative age.
    return lagUs === null || lagUs === undefined ? null : Math.max(0, Number(lagUs) / 1000);
  }

  /** Uses the replica or not from now on; a change is logged once, not every beat. */
  private judge(usable: boolean, reason: string): void {
    if (this.closed) return;
    this.inUse = usable;
    if (usable === this.announced) return;
    if (usable) {
      this.logger.info({ lagMs: this.lagMs }, `read replica in use (${reason})`);
    } else if (this.announced === true) {
      this.logger.warn(`read replica left: reads go to the primary until it is caught up again, because ${reason}`);
    } else if (Date.now() - this.startedAt >= STARTUP_GRACE_MS) {
      this.logger.warn(`read replica not in use yet: reads go to the primary, because ${reason}`);
    } else {
      return; // starting: the first beats may not have reached it yet
    }
    this.announced = usable;
  }
}

type Run = (...args: unknown[]) => Promise<unknown>;

// Errors that say the replica is unreachable or going away, not that the query is
// wrong or slow: a read that got one is run again on the primary.
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "PROTOCOL_CONNECTION_LOST",
  "PROTOCOL_SEQUENCE_TIMEOUT",
  POOL_WAIT_TIMEOUT,
]);
// Too many connections, server shutdown, connection killed (MariaDB), access denied, unknown database.
const UNREACHABLE_ERRNOS = new Set([1040, 1053, 1927, 1044, 1045, 1049]);

function unreachable(error: unknown): boolean {
  const { code, errno, fatal } = (error ?? {}) as { code?: unknown; errno?: unknown; fatal?: unknown };
  return fatal === true || UNREACHABLE_CODES.has(code as string) || UNREACHABLE_ERRNOS.has(errno as number);
}

/**
 * The replica pool, except that a read it cannot reach runs on the primary instead
 * (a read is safe to repeat) and reports the failure, which moves the following reads
 * to the primary at once rather than at the next lag reading. A slow or wrong query is
 * not repeated: its error is the caller's, as on the primary.
 */
function withFallback(replica: Pool, primary: Pool, onUnreachable: (error: unknown) => void): Pool {
  const fallback = (method: "query" | "execute"): Run => {
    const onReplica = replica[method].bind(replica) as unknown as Run;
    const onPrimary = primary[method].bind(primary) as unknown as Run;
    return async (...args) => {
      try {
        return await onReplica(...args);
      } catch (error) {
        if (!unreachable(error)) throw error;
        onUnreachable(error);
        return onPrimary(...args);
      }
    };
  };
  const query = fallback("query");
  const execute = fallback("execute");
  return new Proxy(replica, {
    get: (target, property, receiver) =>
      property === "query" ? query : property === "execute" ? execute : Reflect.get(target, property, receiver),
  });
}

/** `work`'s value, or a rejection once `ms` have passed without it. */
function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function errorSummary(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return typeof code === "string" ? code : typeof message === "string" ? message : String(error);
}
