// Freezing a server process for "hung host" tests.

import type { ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";

/**
 * SIGSTOP, then wait until the kernel shows every thread of the process stopped:
 * kill() returns before a multi-threaded process has stopped, and a thread running on
 * another core may still answer a request sent right after.
 */
export async function stopProcess(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  child.kill("SIGSTOP");
  const deadline = Date.now() + 5000;
  for (;;) {
    const tasks = await readdir(`/proc/${pid}/task`);
    const states = await Promise.all(
      tasks.map(async (task) => /\) (\w)/.exec(await readFile(`/proc/${pid}/task/${task}/stat`, "utf8"))?.[1]),
    );
    if (states.every((state) => state === "T")) return;
    if (Date.now() > deadline) throw new Error(`process ${pid} did not stop: thread states ${states.join("")}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
