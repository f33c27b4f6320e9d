import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Each file has its own database and listeners, so files run in parallel. Most of a
    // file's time is spent waiting on MariaDB, a child process or a timer, so more
    // workers than cores: vitest's default (cores - 1) is one worker on a 2-core machine,
    // and 6 ran the suite faster than 4. `--maxWorkers N` overrides it (docs/decisions.md,
    // "A faster suite").
    maxWorkers: 6,
    // The timeouts cover a first run that installs and starts MariaDB.
    testTimeout: 60_000,
    hookTimeout: 300_000,
    pool: "forks",
  },
});
