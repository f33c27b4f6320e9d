// Headless Chromium for tests that look at a page the way a reader does: Debian's chromium
// (installed on first use), driven by playwright-core, which cannot fetch a browser of its
// own here.

import { chromium, type Browser } from "playwright-core";
import { ensureDebianBinary } from "../../src/setup/debian-packages.js";

// Root needs --no-sandbox. The rest keeps Chromium from reaching out (updates, sync, field
// trials, QUIC probes) from a machine whose network is closed: left on, it floods it with
// requests that can only fail.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * A browser with a fresh, empty profile: launch() makes one in a temp dir and removes it
 * on close() (it refuses a --user-data-dir of ours). Close it in afterAll.
 */
export async function launchChromium(log: (message: string) => void = () => {}): Promise<Browser> {
  const executablePath = await ensureDebianBinary({ package: "chromium", binary: "/usr/bin/chromium" }, log);
  return chromium.launch({ executablePath, headless: true, args: ARGS });
}
