#!/usr/bin/env node
// The `race-api` command. The sources are TypeScript run through tsx's loader, so
// there is no build step between a checkout and a running service.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli.ts");
process.exitCode = await main(process.argv.slice(2));
