// The Node flags `race-api` runs with, read from the first line of bin/race-api.js, so
// a server a bench starts in a process of its own runs as `npx race-api serve` does.

import { readFileSync } from "node:fs";
import { BIN } from "../test/support/cli.js";

/** `#!/usr/bin/env -S node --max-semi-space-size=64` -> ["--max-semi-space-size=64"]. */
export function serverNodeFlags(): string[] {
  const [shebang = ""] = readFileSync(BIN, "utf8").split("\n", 1);
  return shebang.split(/\s+/).filter((word) => word.startsWith("--"));
}
