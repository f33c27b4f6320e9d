// How a long-running command learns it should stop.

/** Resolves on the first SIGTERM or SIGINT; a second one ends the process at once. */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.once(signal, () => process.exit(130));
      resolve(signal);
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
}
