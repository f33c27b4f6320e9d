// A Server-Sent Events client for tests: opens the stream with fetch and hands out
// what arrives, one event or comment at a time, parsed as the SSE spec reads it.

export interface SseMessage {
  /** `event:`; undefined for a comment. */
  event?: string;
  id?: string;
  data?: string;
  /** The text of a comment line (`: heartbeat`). */
  comment?: string;
  /** When it arrived (epoch ms). */
  receivedAt: number;
}

export interface SseStream {
  response: Response;
  /** The next event or comment; rejects when none comes within `timeoutMs` or the stream ends. */
  next(timeoutMs?: number): Promise<SseMessage>;
  /** The next message that is an event (skipping heartbeats). */
  nextEvent(timeoutMs?: number): Promise<SseMessage>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: controller.signal });
  const queue: SseMessage[] = [];
  const waiters: Array<() => void> = [];
  let done = false;
  const notify = () => {
    for (const wake of waiters.splice(0)) wake();
  };

  const ended = (async () => {
    if (!response.ok || !response.body) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message = parse(block);
          if (message) queue.push(message);
        }
        notify();
      }
    } catch {
      // Aborted by close().
    } finally {
      done = true;
      notify();
    }
  })();

  async function next(timeoutMs = 10_000): Promise<SseMessage> {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0) {
      if (done) throw new Error("the stream ended");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`nothing arrived within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return queue.shift()!;
  }

  return {
    response,
    next,
    async nextEvent(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const message = await next(Math.max(1, deadline - Date.now()));
        if (message.event !== undefined) return message;
      }
    },
    ended,
    close: () => controller.abort(),
  };
}

function parse(block: string): SseMessage | null {
  const message: SseMessage = { receivedAt: Date.now() };
  let fields = 0;
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) {
      message.comment = line.slice(1).trim();
      fields++;
      continue;
    }
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (name === "event" || name === "id") message[name] = value;
    else if (name === "data") message.data = message.data === undefined ? value : `${message.data}\n${value}`;
    else continue;
    fields++;
  }
  // A block of only `retry:` carries nothing for the test.
  return fields > 0 ? message : null;
}
