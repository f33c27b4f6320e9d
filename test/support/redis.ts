// Brings up a private Redis for tests: Debian's redis-server (installed on first use) on a
// free port of 127.0.0.1, without persistence, as a child of the calling process. Private,
// so a test may stop and restart it ("Redis goes down") without disturbing anyone else.

import { spawn, type ChildProcess } from "node:child_process";
import { connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import { ensureDebianBinary } from "../../src/setup/debian-packages.js";
import { stopProcess } from "./process.js";
import { freePort } from "./ports.js";

const HOST = "127.0.0.1";

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (and is harmless when it is already stopped). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty: nothing is persisted. */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open, calls get no answer. Resolves once it has stopped. */
  pause(): Promise<void>;
  /** Lets a paused server go on (SIGCONT); it then answers what it was sent meanwhile. */
  resume(): void;
}

export async function ensureRedisServer(log: (message: string) => void = () => {}): Promise<RedisServer> {
  const binary = await installedRedisServer(log);
  // Another process may take the free port before redis-server binds it: try another.
  let port = 0;
  let child: ChildProcess | null = null;
  for (let attempt = 1; !child; attempt++) {
    port = await freePort();
    try {
      child = await startRedis(binary, port);
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
  log(`redis-server answers on ${HOST}:${port}`);
  // A test process that ends without calling stop() must not leave a server behind.
  const killOnExit = () => child?.kill("SIGKILL");
  process.once("exit", killOnExit);

  const server: RedisServer = {
    url: `redis://${HOST}:${port}`,
    port,
    async start() {
      if (child) return;
      child = await startRedis(binary, port);
      log(`redis-server answers on ${HOST}:${port}`);
    },
    async pause() {
      if (child) await stopProcess(child);
    },
    resume() {
      child?.kill("SIGCONT");
    },
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGCONT");
      running.kill("SIGTERM");
      await exited;
    },
  };
  return server;
}

async function startRedis(binary: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    binary,
    ["--port", String(port), "--bind", HOST, "--save", "", "--appendonly", "no", "--dir", tmpdir(), "--logfile", ""],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const deadline = Date.now() + 10_000;
  while (!(await pings(port))) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`redis-server did not answer PING on ${HOST}:${port} within 10 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

// Debian's package, or one a hand-made install put under /usr/local.
function installedRedisServer(log: (message: string) => void): Promise<string> {
  return ensureDebianBinary({ package: "redis-server", binary: "/usr/bin/redis-server", alsoAt: ["/usr/local/bin/redis-server"] }, log);
}

/** True when a Redis on `port` answers PING with PONG. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: HOST, port, timeout: 1000 });
    let reply = "";
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
    socket.once("close", () => done(false));
  });
}
