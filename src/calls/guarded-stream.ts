// The rules of every Watch stream, in one place: the same guard as a unary call, one
// call against the client's bucket for opening, a bounded number of open streams per
// client, the guard run again every second while open (a revoked credential ends the
// stream with the guard's code within the 5 s the client state may be stale), and a
// clean end for everyone when the server shuts down.

import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { Caller } from "../auth/guard.js";
import { ApiError, TRACE_ID_HEADER } from "../errors/api-error.js";
import { callPolicy } from "./call-policies.js";
import { traceId } from "./context.js";
import { SubscriptionStalled, type FeedEvent, type FeedSubscription } from "./feeds.js";
import { admit, authorize, rpcError, type GuardedDeps } from "./guarded.js";
import { openingAdmission } from "./admission.js";
import { openStreams, rateLimited } from "../telemetry/metrics.js";

/** How often an open stream runs the guard again. */
const RECHECK_MS = 1000;

/** Open streams per client on this instance, and every open subscription, for shutdown. */
export class OpenStreams {
  private readonly perClient = new Map<string, number>();
  private readonly open = new Set<FeedSubscription<unknown>>();
  private readonly onShutdown = new Set<() => void>();

  /** `refusedAs`: the rate_limited metric's bucket label of a refusal. */
  constructor(
    readonly maxPerClient: number,
    private readonly refusedAs = "streams",
  ) {}

  /** Takes one of the client's stream slots; RATE_LIMIT_EXCEEDED when all are in use. */
  take(clientId: string): () => void {
    const count = this.perClient.get(clientId) ?? 0;
    if (count >= this.maxPerClient) {
      rateLimited.inc({ bucket: this.refusedAs });
      throw new ApiError("RATE_LIMIT_EXCEEDED");
    }
    this.perClient.set(clientId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.perClient.get(clientId) ?? 1) - 1;
      if (left === 0) this.perClient.delete(clientId);
      else this.perClient.set(clientId, left);
    };
  }

  track(subscription: FeedSubscription<unknown>): () => void {
    this.open.add(subscription);
    openStreams.inc();
    return () => {
      if (this.open.delete(subscription)) openStreams.dec();
    };
  }

  /** Has `end` called by endAll, until the returned function is: for streams that are no Watch stream (PushFixes). */
  whileOpen(end: () => void): () => void {
    this.onShutdown.add(end);
    return () => this.onShutdown.delete(end);
  }

  /** Ends every open stream cleanly: clients reconnect, to another instance if this one is going. */
  endAll(): void {
    for (const subscription of this.open) subscription.end();
    for (const end of this.onShutdown) end();
  }

  get size(): number {
    return this.open.size;
  }
}

export type StreamDeps = GuardedDeps & { streams: OpenStreams };

/**
 * The messages of a client-streaming or bidirectional call, each with the caller it
 * was admitted as. The call was admitted when it opened (admission.ts), whatever it
 * then carries: a refused call ends here before a message is read, an empty one is
 * charged once. Each message is admitted again as it arrives (the guard, one charge),
 * so a client disabled mid-call stops and the bucket counts messages.
 */
export async function* admittedMessages<I>(
  deps: GuardedDeps,
  method: DescMethod,
  context: HandlerContext,
  messages: AsyncIterable<I>,
): AsyncGenerator<{ message: I; caller: Caller }> {
  const policy = callPolicy(method);
  await openingAdmission(deps, policy, context);
  for await (const message of messages) yield { message, caller: await admit(deps, policy, context) };
}

/** Produces a server-streaming call's messages for an admitted caller. */
export type DownloadHandler<I, O> = (request: I, caller: Caller, context: HandlerContext) => AsyncGenerator<O>;

/**
 * A server-streaming handler that produces its own messages (an export's file) under
 * its call policy: admitted when it opens (one charge), holding one of the client's
 * `slots` until it ends however it ends (done, failed, or the client gone), its errors
 * on the one error path.
 */
export function guardedDownload<I, O>(
  deps: GuardedDeps,
  method: DescMethod,
  slots: OpenStreams,
  handler: DownloadHandler<I, O>,
): (request: I, context: HandlerContext) => AsyncGenerator<O> {
  const policy = callPolicy(method);
  return async function* (request, context) {
    const trace = context.values.get(traceId);
    context.responseHeader.set(TRACE_ID_HEADER, trace);
    let release = () => {};
    try {
      const caller = await openingAdmission(deps, policy, context);
      release = slots.take(caller.clientId);
      yield* handler(request, caller, context);
    } catch (error) {
      throw rpcError(error, trace, deps.logger, method.name);
    } finally {
      release();
    }
  };
}

/** Opens the stream for an authorised caller: checks what the call itself needs (the race) and subscribes. */
export type StreamOpener<I, T> = (request: I, caller: Caller, context: HandlerContext) => Promise<FeedSubscription<T>>;

/**
 * A server-streaming handler for `method` under its call policy: `open` runs after the
 * guard, `recheck` (the call's own visibility rule) runs with the guard every second,
 * and each feed event becomes a message through `message`.
 */
export function guardedStream<I, T, O>(
  deps: StreamDeps,
  method: DescMethod,
  open: StreamOpener<I, T>,
  recheck: (request: I, caller: Caller) => Promise<unknown>,
  message: (event: FeedEvent<T>) => O,
): (request: I, context: HandlerContext) => AsyncGenerator<O> {
  const policy = callPolicy(method);
  return async function* (request, context) {
    const trace = context.values.get(traceId);
    context.responseHeader.set(TRACE_ID_HEADER, trace);
    let subscription: FeedSubscription<T>;
    let release: () => void;
    try {
      const caller = await openingAdmission(deps, policy, context);
      release = deps.streams.take(caller.clientId);
      try {
        subscription = await open(request, caller, context);
      } catch (error) {
        release();
        throw error;
      }
    } catch (error) {
      throw rpcError(error, trace, deps.logger, method.name);
    }

    const untrack = deps.streams.track(subscription as FeedSubscription<unknown>);
    const recheckTimer = setInterval(() => {
      authorize(deps, policy, context)
        .then((caller) => recheck(request, caller))
        .catch((error: unknown) => {
          // Only the caller's own refusals end the stream; a database hiccup does not.
          if (error instanceof ApiError) subscription.fail(error);
        });
    }, RECHECK_MS);
    const onAbort = () => subscription.end();
    context.signal.addEventListener("abort", onAbort);
    if (context.signal.aborted) onAbort();
    try {
      for await (const event of subscription) yield message(event);
    } catch (error) {
      if (error instanceof SubscriptionStalled) throw new ConnectError(error.message, Code.ResourceExhausted);
      throw rpcError(error, trace, deps.logger, method.name);
    } finally {
      clearInterval(recheckTimer);
      context.signal.removeEventListener("abort", onAbort);
      untrack();
      release();
    }
  };
}
