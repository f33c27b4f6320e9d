// What a command reads and writes besides its arguments: the environment and its two
// output streams. The process's own when run as `race-api`; a test hands its own to
// run a command in its process and read what it printed.

export interface Output {
  write(text: string): unknown;
}

export interface CommandIo {
  env: NodeJS.ProcessEnv;
  stdout: Output;
  stderr: Output;
}

export const processIo: CommandIo = { env: process.env, stdout: process.stdout, stderr: process.stderr };

/** Writes `lines` to `out`, one per line. */
export function printer(out: Output): (...lines: string[]) => void {
  return (...lines) => out.write(`${lines.join("\n")}\n`);
}
