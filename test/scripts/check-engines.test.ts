// scripts/check-engines.js, the `npm test` check that every installed package accepts
// the Node.js line package.json promises: on made-up installs, and on this one.

import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const script = new URL("../../scripts/check-engines.js", import.meta.url).pathname;

interface Installed {
  name: string;
  node?: string;
  dev?: boolean;
  /** In the lockfile only, as an optional package of another platform. */
  absent?: boolean;
}

/** A project directory with a lockfile and node_modules holding `packages`. */
function project(promise: string | undefined, packages: Installed[]): string {
  const dir = mkdtempSync(join(tmpdir(), "race-api-engines-"));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "p", version: "1.0.0", ...(promise ? { engines: { node: promise } } : {}) }),
  );
  const entries: Record<string, object> = { "": { name: "p", version: "1.0.0" } };
  for (const item of packages) {
    const path = `node_modules/${item.name}`;
    entries[path] = { version: "1.0.0", ...(item.dev ? { dev: true } : {}), ...(item.absent ? { optional: true } : {}) };
    if (item.absent) continue;
    mkdirSync(join(dir, path), { recursive: true });
    writeFileSync(
      join(dir, path, "package.json"),
      JSON.stringify({ name: item.name, version: "1.0.0", ...(item.node ? { engines: { node: item.node } } : {}) }),
    );
  }
  writeFileSync(join(dir, "package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages: entries }));
  return dir;
}

async function check(dir?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...(dir ? [dir] : [])]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("check-engines", () => {
  it("passes this repository's install", async () => {
    const { code, stdout } = await check();
    expect(code).toBe(0);
    expect(stdout).toMatch(/^engines: \d+ installed packages accept node 20 \(20\.6\.0 and later 20\.x releases\)/);
  });

  it("fails on a runtime dependency that wants a newer Node, and names it", async () => {
    const dir = project(">=20", [
      { name: "content-disposition", node: ">=22" },
      { name: "fine", node: ">=18" },
    ]);
    const { code, stderr } = await check(dir);
    expect(code).toBe(1);
    expect(stderr).toContain("content-disposition@1.0.0 (runtime dependency, node_modules/content-disposition) wants node >=22");
    expect(stderr).not.toContain("fine@");
  });

  it("wants a runtime dependency to accept every release of the line, not just the newest", async () => {
    const { code, stderr } = await check(project(">=20", [{ name: "late", node: "^20.19.0 || >=22.12.0" }]));
    expect(code).toBe(1);
    expect(stderr).toContain("late@1.0.0 (runtime dependency");
  });

  it("accepts ranges that skip an odd release line", async () => {
    const { code } = await check(
      project(">=20", [
        { name: "glob", node: "18 || 20 || >=22" },
        { name: "lru", node: "20 || >=22" },
        { name: "any", node: "*" },
        { name: "none" },
      ]),
    );
    expect(code).toBe(0);
  });

  it("wants a dev dependency to accept some release of the line", async () => {
    expect((await check(project(">=20", [{ name: "vite", node: "^20.19.0 || >=22.12.0", dev: true }]))).code).toBe(0);
    const { code, stderr } = await check(project(">=20", [{ name: "newer-tool", node: ">=22", dev: true }]));
    expect(code).toBe(1);
    expect(stderr).toContain("newer-tool@1.0.0 (dev dependency");
  });

  it("fails on an engines value that is not a range", async () => {
    const { code, stderr } = await check(project(">=20", [{ name: "odd", node: "node twenty" }]));
    expect(code).toBe(1);
    expect(stderr).toContain("odd@1.0.0");
  });

  it("skips optional packages of other platforms, which are not installed", async () => {
    expect((await check(project(">=20", [{ name: "binding-darwin", node: ">=22", absent: true }]))).code).toBe(0);
  });

  it("follows the promise of package.json", async () => {
    expect((await check(project(">=22", [{ name: "content-disposition", node: ">=22" }]))).code).toBe(0);
    const { code, stderr } = await check(project(undefined, []));
    expect(code).toBe(1);
    expect(stderr).toContain("package.json must state engines.node");
  });
});
