// What the guard knows of each API client, re-read from the database at most every
// 5 seconds: a disable, expiry, allowlist, scope change or secret rotation made on
// any instance bites everywhere within 5 s, at one query per client per 5 s.

import { LRUCache } from "lru-cache";
import { findClientState, type ClientState } from "../store/clients.js";
import type { Pool } from "../store/pool.js";
import { parseAllowlist, type IpAllowlist } from "./ip-allowlist.js";

export const CLIENT_STATE_MAX_AGE_MS = 5000;

export interface KnownClient {
  state: ClientState;
  allowlist: IpAllowlist;
}

export class ClientStates {
  private readonly cache = new LRUCache<string, { client: KnownClient | null }>({ max: 100_000, ttl: CLIENT_STATE_MAX_AGE_MS });
  private readonly loading = new Map<string, Promise<KnownClient | null>>();

  constructor(private readonly pool: Pool) {}

  /** The client as stored at most 5 s ago; null when it does not exist. */
  async get(clientId: string): Promise<KnownClient | null> {
    const cached = this.cache.get(clientId);
    if (cached) return cached.client;
    let load = this.loading.get(clientId);
    if (!load) {
      load = this.load(clientId).finally(() => this.loading.delete(clientId));
      this.loading.set(clientId, load);
    }
    return load;
  }

  private async load(clientId: string): Promise<KnownClient | null> {
    const state = await findClientState(this.pool, clientId);
    const client = state ? { state, allowlist: parseAllowlist(state.ipAllowlist) } : null;
    this.cache.set(clientId, { client });
    return client;
  }
}
