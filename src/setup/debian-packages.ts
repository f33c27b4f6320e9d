// The one rule for programs the project brings up itself (MariaDB for the demo and the
// tests, Redis and Chromium for tests): use the one already on the machine, otherwise
// install Debian's package on first use. Nothing installed by hand is assumed to survive
// from one machine to the next, so whatever needs a program asks here.

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface DebianBinary {
  /** The Debian package that ships the program, e.g. `redis-server`. */
  package: string;
  /** Where the package installs the program. */
  binary: string;
  /** Other places a hand-made install may have put it; looked at after `binary`. */
  alsoAt?: readonly string[];
  /** The error when the program is missing and we are not root, so cannot install it. */
  notInstalled?: string;
}

/** The path of the program, installing its package first when it is missing. */
export async function ensureDebianBinary(wanted: DebianBinary, log: (message: string) => void = () => {}): Promise<string> {
  const found = [wanted.binary, ...(wanted.alsoAt ?? [])].find((path) => existsSync(path));
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new Error(wanted.notInstalled ?? `${basename(wanted.binary)} is not installed; install Debian's ${wanted.package} package.`);
  }
  log(`installing Debian's ${wanted.package} (first run on this machine)`);
  // Past execFile's default 1 MiB of output apt-get would be killed halfway through a large install.
  const options = { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, maxBuffer: 64 * 1024 * 1024 };
  // Test files run in parallel: wait for another file's install rather than fail on dpkg's lock.
  const lockWait = ["-o", "DPkg::Lock::Timeout=300"];
  const install = () => run("apt-get", [...lockWait, "install", "-y", "--no-install-recommends", wanted.package], options);
  try {
    await install();
  } catch {
    // A fresh machine has no package lists yet.
    await run("apt-get", [...lockWait, "update"], options);
    await install();
  }
  if (!existsSync(wanted.binary)) throw new Error(`Installed Debian's ${wanted.package}, but ${wanted.binary} is still missing.`);
  return wanted.binary;
}
