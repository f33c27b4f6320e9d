// Wraps every data RPC in the rules that apply to all of them, in one place: the
// admission the call opened with (admission.ts: the guard, the client's rate-limit
// bucket and its headers), and the one error path (typed errors become ConnectErrors; a
// database that does not answer becomes API_UNAVAILABLE; anything else is logged and
// becomes INTERNAL_ERROR with the same trace id, never a driver message).

import type { DescMethod } from "@bufbuild/protobuf";
import { ConnectError, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import type { Logger } from "pino";
import type { Caller, Guard } from "../auth/guard.js";
import { TRACE_ID_HEADER, toConnectError } from "../errors/api-error.js";
import { classify } from "../errors/classify.js";
import type { RateLimits } from "../limits/rate-limits.js";
import { callPolicy, type CallPolicy } from "./call-policies.js";
import { markActiveSpanFailed, rpcSpan, tracingOn } from "../telemetry/tracing.js";
import { admission, openingAdmission, wasOpened } from "./admission.js";
import { callerAddress, traceId } from "./context.js";

export interface GuardedDeps {
  guard: Guard;
  limits: RateLimits;
  logger: Logger;
}

export type GuardedHandler<I, O> = (request: I, caller: Caller, context: HandlerContext) => Promise<O>;

/** The RPC `method` under its call policy (call-policies.ts). */
export function guarded<I, O>(
  deps: GuardedDeps,
  method: DescMethod,
  handler: GuardedHandler<I, O>,
): (request: I, context: HandlerContext) => Promise<O> {
  const policy = callPolicy(method);
  const call = async (request: I, context: HandlerContext): Promise<O> => {
    const trace = context.values.get(traceId);
    context.responseHeader.set(TRACE_ID_HEADER, trace);
    try {
      return await handler(request, await openingAdmission(deps, policy, context), context);
    } catch (error) {
      if (tracingOn) markActiveSpanFailed(error);
      throw rpcError(error, trace, deps.logger, method.name);
    }
  };
  // A call opened by a surface runs in the span its opening started (admission.ts).
  return (request, context) =>
    wasOpened(context.values)
      ? call(request, context)
      : inRpcSpan(method, context.requestHeader, context.values, () => call(request, context));
}

/**
 * `work` in the RPC span of `method` when tracing is on, from the call's opening on, so
 * the guard's queries are the call's too; the call's trace id becomes the span's (the
 * incoming traceparent's when valid).
 */
export function inRpcSpan<T>(method: DescMethod, header: Pick<Headers, "get">, values: ContextValues, work: () => Promise<T>): Promise<T> {
  if (!tracingOn) return work();
  return rpcSpan(method, header.get("traceparent"), (spanTraceId) => {
    values.set(traceId, spanTraceId);
    return work();
  });
}

/** The guard and one call against the client's bucket again, now (a stream's later messages, its recheck). */
export async function admit(deps: GuardedDeps, policy: CallPolicy, context: HandlerContext): Promise<Caller> {
  const { caller, headers } = await admission(deps, policy, context.requestHeader, context.values);
  for (const [name, value] of Object.entries(headers)) context.responseHeader.set(name, value);
  return caller;
}

/** The guard alone: who calls, and whether they may make this call now. */
export function authorize(deps: GuardedDeps, policy: CallPolicy, context: HandlerContext): Promise<Caller> {
  return deps.guard.authorize(context.requestHeader.get("authorization"), context.values.get(callerAddress), policy.scope);
}

/**
 * The one error path: what a data call (unary or stream) of the RPC `rpc` answers for
 * `error` (errors/classify.ts). A ConnectError is already an RPC's answer (a refusal
 * read from a refused call's body, a message Connect could not decode) and stays as it is.
 */
export function rpcError(error: unknown, trace: string, logger: Logger, rpc: string): ConnectError {
  if (error instanceof ConnectError) return error;
  return toConnectError(classify(error, logger, { traceId: trace, rpc }), trace);
}
