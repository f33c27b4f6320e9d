// Runs the `race-api` command two ways: the real bin (bin/race-api.js) as a child
// process, as a program of its own (through its first line, the Node flags on it
// included, as `npx race-api` does), once per command; and the same `main` in this
// process, its output captured, for the variants (a bin start costs a second of CPU).

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../../bin/race-api.js", import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end in this process: `main` with `env` over this process's environment. */
export async function runMain(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  // Loaded here: files that only spawn the bin need none of it.
  const { main } = await import("../../src/commands/cli.js");
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    env: { ...process.env, ...env },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/** Runs a command to its end in a child process, through bin/race-api.js. */
export function raceApi(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  const child = start(args, env);
  return finished(child.process).then((code) => ({ code, stdout: child.stdout(), stderr: child.stderr() }));
}

export interface Running {
  process: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout, or rejects if the process ends first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

export function start(args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(BIN, args, { env: { ...process.env, ...env } });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = finished(child);
  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const deadline = Date.now() + timeoutMs;
        const poll = () => {
          const match = out.match(pattern);
          if (match) return resolve(match);
          if (child.exitCode !== null || Date.now() > deadline) {
            return reject(new Error(`no ${pattern} in output (exit ${child.exitCode}):\n${out}\n${err}`));
          }
          setTimeout(poll, 50);
        };
        poll();
      });
    },
    stop(signal) {
      child.kill(signal);
      return exited;
    },
  };
}

function finished(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}
