// What the guard knows of each API client, re-read from the database at most every
// 5 seconds: a disable, expiry, allowlist, scope change or secret rotation made on
// any instance bites everywhere within 5 s, at one query per client per 5 s.

import { SharedRead } from "../shared-read.js";
import { findClientState, type ClientState } from "../store/clients.js";
import type { Pool } from "../store/pool.js";
import { parseAllowlist, type IpAllowlist } from "./ip-allowlist.js";

export const CLIENT_STATE_MAX_AGE_MS = 5000;

export interface KnownClient {
  state: ClientState;
  allowlist: IpAllowlist;
  /** Web origins whose pages may read its answers (its own and its club's). */
  origins: ReadonlySet<string>;
}

export class ClientStates {
  private readonly clients = new SharedRead<{ client: KnownClient | null }>({
    name: "client_state",
    ttlMs: CLIENT_STATE_MAX_AGE_MS,
    max: 100_000,
  });

  constructor(private readonly pool: Pool) {}

  /** The client as stored at most 5 s ago; null when it does not exist. */
  async get(clientId: string): Promise<KnownClient | null> {
    return (await this.clients.get(clientId, () => this.load(clientId))).client;
  }

  private async load(clientId: string): Promise<{ client: KnownClient | null }> {
    const state = await findClientState(this.pool, clientId);
    return { client: state ? { state, allowlist: parseAllowlist(state.ipAllowlist), origins: new Set(state.allowedOrigins) } : null };
  }
}
