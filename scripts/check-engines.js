#!/usr/bin/env node
// Fails when an installed package's `engines.node` shuts out the Node.js line that
// package.json promises (its `engines.node` floor, e.g. ">=20" promises every Node 20
// release): a runtime dependency must accept every release of that line, a dev
// dependency at least one of them, or `npm ci` on it would warn EBADENGINE.
// Takes the project directory as its argument (default: this repository).
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import semver from "semver";

const root = resolve(process.argv[2] ?? new URL("..", import.meta.url).pathname);
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const promised = manifest.engines?.node;
const floor = promised ? semver.minVersion(promised) : null;
if (!floor) {
  console.error(`package.json must state engines.node (got ${JSON.stringify(promised)})`);
  process.exit(1);
}
// The whole line of the floor: ">=20" means 20.0.0 up to the last 20.x (in semver's
// spelling, which keeps 21's prereleases out).
const line = `>=${floor.version} <${floor.major + 1}.0.0-0`;
const lineName = `node ${floor.major} (${floor.version} and later ${floor.major}.x releases)`;

// The lockfile says which installed package is a runtime and which a dev dependency;
// the engines are read from what is installed.
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
const problems = [];
let checked = 0;
for (const [path, entry] of Object.entries(lock.packages ?? {})) {
  if (path === "" || entry.link) continue;
  const file = join(root, path, "package.json");
  // Optional packages for other platforms are in the lockfile but not installed.
  if (!existsSync(file)) continue;
  const installed = JSON.parse(readFileSync(file, "utf8"));
  const wanted = installed.engines?.node;
  checked += 1;
  if (typeof wanted !== "string" || wanted.trim() === "" || wanted.trim() === "*") continue;
  const runtime = !entry.dev && !entry.devOptional;
  const range = semver.validRange(wanted);
  const fits = range !== null && (runtime ? semver.subset(line, range) : semver.intersects(line, range));
  if (!fits)
    problems.push(`  ${installed.name}@${installed.version} (${runtime ? "runtime" : "dev"} dependency, ${path}) wants node ${wanted}`);
}

if (problems.length > 0) {
  console.error(
    `These packages shut out Node ${floor.major} (package.json promises node ${promised}; ` +
      `runtime dependencies must accept every release of ${lineName}, dev dependencies one of them):\n${problems.join("\n")}\n` +
      "Pin or override an older release in package.json, or change the promise.",
  );
  process.exitCode = 1;
} else {
  console.log(`engines: ${checked} installed packages accept ${lineName}`);
}
