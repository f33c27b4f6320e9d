// A steady stream of concurrent HTTP requests for fault drills and read-count tests:
// a few workers each send one request after another (round-robin over the given
// requests) until stopped, and every answer or failure is recorded with its timing.

export interface LoadRequest {
  /** A label the assertions group samples by, e.g. "live" or "track". */
  name: string;
  url: string;
  headers?: Record<string, string>;
}

export interface Sample {
  name: string;
  url: string;
  /** Epoch ms when the request was sent and when its whole body had arrived (or it failed). */
  startedAt: number;
  endedAt: number;
  /** null when no HTTP answer came: a refused or reset connection, or no answer within the timeout. */
  status: number | null;
  /** Why no answer came (`error.cause.code` or the message). */
  error?: string;
  headers: Headers | null;
  body: string;
}

export interface Load {
  /** Every sample so far, in the order the answers arrived. */
  readonly samples: Sample[];
  /** Stops sending; resolves once the requests in flight have ended. */
  stop(): Promise<Sample[]>;
}

export interface LoadOptions {
  workers: number;
  /** Pause of each worker between its requests (default 10 ms), so a 2-core machine keeps some breath. */
  pauseMs?: number;
  /** A request without an answer after this long counts as failed (default 15 s). */
  timeoutMs?: number;
}

export function startLoad(requests: LoadRequest[], options: LoadOptions): Load {
  if (requests.length === 0) throw new Error("startLoad needs at least one request");
  const samples: Sample[] = [];
  let stopped = false;
  const pauseMs = options.pauseMs ?? 10;
  const timeoutMs = options.timeoutMs ?? 15_000;

  const worker = async (index: number) => {
    for (let round = 0; !stopped; round++) {
      const request = requests[(index + round * options.workers) % requests.length]!;
      samples.push(await send(request, timeoutMs));
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  const running = Promise.all(Array.from({ length: options.workers }, (_, i) => worker(i)));

  return {
    samples,
    async stop() {
      stopped = true;
      await running;
      return samples;
    },
  };
}

async function send(request: LoadRequest, timeoutMs: number): Promise<Sample> {
  const startedAt = Date.now();
  try {
    const response = await fetch(request.url, { headers: request.headers ?? {}, signal: AbortSignal.timeout(timeoutMs) });
    const body = await response.text();
    return {
      name: request.name,
      url: request.url,
      startedAt,
      endedAt: Date.now(),
      status: response.status,
      headers: response.headers,
      body,
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return {
      name: request.name,
      url: request.url,
      startedAt,
      endedAt: Date.now(),
      status: null,
      error: cause?.code ?? (error as Error).message,
      headers: null,
      body: "",
    };
  }
}

/** Samples by status ("error" when there was no answer), e.g. `{ 200: 412, 503: 96 }`: a readable failure message. */
export function statusCounts(samples: Sample[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const sample of samples) {
    const key = sample.status === null ? `error ${sample.error}` : String(sample.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Resolves once `check` passes; retries every `everyMs` and rethrows its last failure after `ms`. */
export async function within(ms: number, check: () => Promise<void>, everyMs = 200): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
