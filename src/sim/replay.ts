// Plays a simulated race into the database as its clock advances: every second, the
// data whose time has come is imported through the same importer as a file, so the
// live endpoints move exactly as they would with a real tracking feed.

import { importScenario } from "../scenario/import.js";
import type { Scenario } from "../domain/scenario.js";
import type { Pool } from "../store/pool.js";
import { sliceScenario } from "./slice.js";

export interface Replay {
  /** Stops ticking and waits for an import under way. */
  stop(): Promise<void>;
}

const TICK_MS = 1000;

/** Starts appending `race`'s data after `fromMs`; the caller imported everything up to it. */
export function startReplay(pool: Pool, race: Scenario, fromMs: number, onError: (error: unknown) => void): Replay {
  let importedUpTo = fromMs;
  let inFlight: Promise<void> | null = null;
  const tick = () => {
    if (inFlight) return; // a slow import is not overtaken by the next tick
    const now = Date.now();
    // Clients were imported once up front; re-importing them would re-verify secrets every second.
    const slice = { ...sliceScenario(race, importedUpTo, now), clients: [] };
    inFlight = importScenario(pool, slice)
      .then(() => {
        importedUpTo = now;
      }, onError)
      .finally(() => {
        inFlight = null;
      });
  };
  const timer = setInterval(tick, TICK_MS);
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
