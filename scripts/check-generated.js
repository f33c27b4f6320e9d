#!/usr/bin/env node
// Fails when gen/ is not what `buf generate` makes from proto/ right now: generates
// into a temporary directory and compares file by file.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), "race-api-gen-"));
try {
  // buf finds the local protoc-gen-es plugin on PATH.
  const bin = join(root, "node_modules/.bin");
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  execFileSync(join(bin, "buf"), ["generate", "-o", out], { cwd: root, env, stdio: "inherit" });
  const fresh = files(join(out, "gen"));
  const committed = files(join(root, "gen"));
  const stale = [...new Set([...fresh.keys(), ...committed.keys()])].filter((path) => fresh.get(path) !== committed.get(path)).sort();
  if (stale.length > 0) {
    console.error(`gen/ is stale against proto/ (run npm run generate):\n${stale.map((path) => `  gen/${path}`).join("\n")}`);
    process.exitCode = 1;
  } else {
    console.log(`gen/ is up to date (${committed.size} files)`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}

function files(dir) {
  const result = new Map();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    result.set(relative(dir, path), readFileSync(path, "utf8"));
  }
  return result;
}
