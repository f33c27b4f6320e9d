#!/usr/bin/env node
// Lints the OpenAPI document exactly as `race-api openapi` prints it (the one the
// server serves) with Spectral and the OWASP ruleset of .spectral.mjs; warnings fail.
// The document is built with an https base URL, as production serves it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), "race-api-openapi-"));
try {
  const document = execFileSync(process.execPath, [join(root, "bin/race-api.js"), "openapi"], {
    env: { ...process.env, PUBLIC_BASE_URL: "https://race-api.example" },
    encoding: "utf8",
  });
  const file = join(out, "openapi.json");
  writeFileSync(file, document);
  execFileSync(join(root, "node_modules/.bin/spectral"), ["lint", "--fail-severity=warn", "--ruleset", join(root, ".spectral.mjs"), file], {
    stdio: "inherit",
  });
} catch (error) {
  process.exitCode = typeof error.status === "number" ? error.status : 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
