import { readFileSync } from "node:fs";

/** Fails early when the soft limit on open files cannot hold `needed` sockets; `knob` is the setting that lowers the need. */
export function checkOpenFileLimit(needed: number, knob: string): void {
  let limits: string;
  try {
    limits = readFileSync("/proc/self/limits", "utf8");
  } catch {
    return; // not Linux: let the sockets tell
  }
  const soft = /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1];
  if (soft && soft !== "unlimited" && Number(soft) < needed) {
    throw new Error(`the open-file limit is ${soft}, and ${needed} are needed: raise it (ulimit -n ${needed}) or lower ${knob}`);
  }
}
