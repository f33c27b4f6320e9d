// An API started in the bench's process on a pool of its own, whose SELECTs are counted
// in the client: Com_select is the whole database server's, and other work (tests) may
// share it.

import { pino } from "pino";
import type { Config } from "../src/composition/config.js";
import { createRuntime, type Runtime, servingPoolOptions } from "../src/composition/runtime.js";
import { type RunningServer, startServer } from "../src/composition/server.js";
import { createPool } from "../src/store/pool.js";

export interface CountedApi {
  api: RunningServer;
  runtime: Runtime;
  /** The API's own SELECTs so far. */
  selects(): number;
  close(): Promise<void>;
}

export async function startCountedApi(url: string, config: Config): Promise<CountedApi> {
  const pool = createPool(url, servingPoolOptions(config));
  let selects = 0;
  for (const method of ["query", "execute"] as const) {
    const original = (pool[method] as (...args: unknown[]) => Promise<unknown>).bind(pool);
    (pool as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const first = args[0];
      const sql = typeof first === "string" ? first : ((first as { sql?: string } | null)?.sql ?? "");
      // The live read's unions start with a parenthesis; Com_select counts them once each.
      if (/^[\s(]*(select|with)\b/i.test(sql)) selects++;
      return original(...args);
    };
  }
  const runtime = await createRuntime(config, pool, pino({ level: "silent" }));
  const api = await startServer(config, runtime);
  return {
    api,
    runtime,
    selects: () => selects,
    close: async () => {
      await api.close();
      await runtime.close();
      await pool.end();
    },
  };
}
