import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Each file has its own database and listeners, so files run in parallel; the
    // timeouts cover a first run that installs and starts MariaDB.
    testTimeout: 60_000,
    hookTimeout: 300_000,
    pool: "forks",
  },
});
