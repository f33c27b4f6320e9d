// The baseline of the endpoint benchmarks: a bare Fastify route that sends fixed bytes
// with fixed headers and does nothing else, in a process of its own so that it shares
// an event loop with nothing (not the API, not the bench). Started by `startBareRoute`;
// run as a child, it takes the body and headers over IPC and answers with its port.

import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import Fastify from "fastify";

interface Setup {
  body: string;
  headers: Record<string, string>;
}

export interface BareRoute {
  url: string;
  close(): Promise<void>;
}

/** A child process serving `body` with `headers` on GET /bare; resolves once it listens. */
export async function startBareRoute(body: Buffer, headers: Record<string, string>): Promise<BareRoute> {
  const child = fork(fileURLToPath(import.meta.url), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  child.send({ body: body.toString("base64"), headers } satisfies Setup);
  const [port] = (await once(child, "message")) as [number];
  return {
    url: `http://127.0.0.1:${port}/bare`,
    close: () => stop(child),
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}

async function serve(setup: Setup): Promise<void> {
  const body = Buffer.from(setup.body, "base64");
  const bare = Fastify();
  bare.get("/bare", (_request, reply) => reply.headers(setup.headers).send(body));
  await bare.listen({ host: "127.0.0.1", port: 0 });
  process.send!((bare.server.address() as { port: number }).port);
  process.once("SIGTERM", () => void bare.close().then(() => process.exit(0)));
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once("message", (setup: Setup) => void serve(setup));
}
