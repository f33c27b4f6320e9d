// How a long-running command learns it should stop.

/**
 * Resolves on the first SIGTERM or SIGINT; a second one ends the process at once.
 * `done` aborted: the work ended first, and the signals are left to others again
 * (a command run inside a longer-lived process, such as a test's, leaves no listener).
 */
export function untilStopSignal(done?: AbortSignal): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      forget();
      process.once(signal, () => process.exit(130));
      resolve(signal);
    };
    const forget = () => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    done?.addEventListener("abort", forget, { once: true });
  });
}
