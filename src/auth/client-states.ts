// What the guard knows of each API client, re-read from the database at most every
// `maxAgeMs` (5 s unless configured): a disable, expiry, allowlist, scope change or
// secret rotation made on any instance bites everywhere within it, at one query per
// client per interval.

import { SharedRead } from "../caching/shared-read.js";
import { findClientState, type ClientState } from "../store/clients.js";
import type { Pool } from "../store/pool.js";
import { parseAllowlist, type IpAllowlist } from "./ip-allowlist.js";

export interface KnownClient {
  state: ClientState;
  allowlist: IpAllowlist;
  /** Web origins whose pages may read its answers (its own and its club's). */
  origins: ReadonlySet<string>;
}

export class ClientStates {
  private readonly clients: SharedRead<{ client: KnownClient | null }>;

  constructor(
    private readonly pool: Pool,
    maxAgeMs: number,
  ) {
    this.clients = new SharedRead({ name: "client_state", ttlMs: maxAgeMs, max: 100_000 });
  }

  /** The client as stored at most `maxAgeMs` ago; null when it does not exist. */
  async get(clientId: string): Promise<KnownClient | null> {
    return (await this.clients.get(clientId, () => this.load(clientId))).client;
  }

  private async load(clientId: string): Promise<{ client: KnownClient | null }> {
    const state = await findClientState(this.pool, clientId);
    return { client: state ? { state, allowlist: parseAllowlist(state.ipAllowlist), origins: new Set(state.allowedOrigins) } : null };
  }
}
