#!/usr/bin/env -S node --max-semi-space-size=64
// The `race-api` command. The sources are TypeScript run through tsx's loader, so
// there is no build step between a checkout and a running service.
// Semi-spaces of 64 MiB (V8's default is 16): a server allocates mostly short-lived
// request objects, and under the overlay load the smaller young generation, collected
// more often, gave longer tail latencies (docs/decisions.md, "Live ingest under the
// overlay load"). The flag must be given when Node starts, hence this first line;
// benches read it from here.
import { register } from "tsx/esm/api";

register();
// Before anything loads http or mysql2: the trace instrumentations patch them as they load.
const { tracingConfig } = await import("../src/composition/config.ts");
const { startTracing } = await import("../src/telemetry/tracing.ts");
let stopTracing;
try {
  const settings = tracingConfig(process.env);
  if (settings) stopTracing = await startTracing(settings);
} catch (error) {
  process.stderr.write(`race-api: ${error.message}\n`);
  process.exit(1);
}
const { main } = await import("../src/commands/cli.ts");
process.exitCode = await main(process.argv.slice(2));
// Sends the spans still waiting in the batch.
await stopTracing?.();
