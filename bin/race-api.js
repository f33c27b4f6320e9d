#!/usr/bin/env node
// The `race-api` command. The sources are TypeScript run through tsx's loader, so
// there is no build step between a checkout and a running service.
import { register } from "tsx/esm/api";

register();
// Before anything loads http or mysql2: the trace instrumentations patch them as they load.
const { startTracingFromEnv } = await import("../src/telemetry/tracing.ts");
let stopTracing;
try {
  stopTracing = await startTracingFromEnv();
} catch (error) {
  process.stderr.write(`race-api: ${error.message}\n`);
  process.exit(1);
}
const { main } = await import("../src/cli.ts");
process.exitCode = await main(process.argv.slice(2));
// Sends the spans still waiting in the batch.
await stopTracing?.();
