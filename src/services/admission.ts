// Authentication first, on every RPC and every protocol: a call is admitted (the guard,
// then one charge against its bucket) when it opens, from its headers alone, before a
// byte of its request is read or decoded. `admittedFirst` opens every Connect, gRPC and
// gRPC-Web call around its route's handler; the REST gateway opens its calls before it
// reads their parameters. Handlers take the admission the call opened with
// (`openingAdmission`, used by guarded.ts and guarded-stream.ts).

import type { DescMethod } from "@bufbuild/protobuf";
import { createContextKey, createContextValues, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerRequest } from "@connectrpc/connect/protocol";
import type { Caller } from "../auth/guard.js";
import { corsGrant } from "../auth/origins.js";
import { findCallPolicy, type CallPolicy } from "./call-policies.js";
import { callerAddress, traceId } from "./context.js";
import { rpcError, type GuardedDeps } from "./guarded.js";

/** A call let in (its caller, and the headers its answer carries: CORS grant, rate-limit standing), or what refused it. */
export type Admission = { caller: Caller; headers: Record<string, string> } | { refusal: unknown };

/** Opens a call of `method`: its admission, also kept in `values` for the handler. */
export type CallOpener = (method: DescMethod, header: Pick<Headers, "get">, values: ContextValues) => Promise<Admission>;

const opened = createContextKey<Admission | undefined>(undefined, { description: "the admission the call opened with" });

/** The guard, then one call against the client's bucket. Throws the refusal. */
export async function admission(deps: GuardedDeps, policy: CallPolicy, header: Pick<Headers, "get">, values: ContextValues) {
  const caller = await deps.guard.authorize(header.get("authorization"), values.get(callerAddress), policy.scope);
  // A page on one of the client's origins may read the answer (CORS); any other page may not.
  const origin = header.get("origin");
  const cors = origin !== null && caller.origins.has(origin) ? corsGrant(origin) : {};
  const limit = await deps.limits.charge(policy.bucket, caller.clientId, caller.limits[policy.bucket]);
  return { caller, headers: { ...cors, ...limit } };
}

export function callOpener(deps: GuardedDeps): CallOpener {
  return async (method, header, values) => {
    let outcome: Admission;
    try {
      outcome = await admission(deps, findCallPolicy(method)!, header, values);
    } catch (refusal) {
      outcome = { refusal };
    }
    values.set(opened, outcome);
    return outcome;
  };
}

/**
 * The caller the call opened with, its headers set on the answer; a refusal is thrown.
 * A call no surface opened (a handler called directly) is admitted now.
 */
export async function openingAdmission(deps: GuardedDeps, policy: CallPolicy, context: HandlerContext): Promise<Caller> {
  const outcome = context.values.get(opened) ?? (await admission(deps, policy, context.requestHeader, context.values));
  if ("refusal" in outcome) throw outcome.refusal;
  for (const [name, value] of Object.entries(outcome.headers)) context.responseHeader.set(name, value);
  return outcome.caller;
}

/**
 * Each guarded route's handler, opened first. A refused call is handed to Connect with a
 * body that fails with the refusal when read and without the headers that frame the
 * body (length, compression, timeout): whatever it sent, a unary call answers the
 * refusal in its protocol's form, and a stream's handler cannot read a message. Routes
 * without a call policy (reflection) are public and pass as they are.
 */
export function admittedFirst(open: CallOpener, logger: GuardedDeps["logger"]): (handler: UniversalHandler) => UniversalHandler {
  return (handler) => {
    if (!findCallPolicy(handler.method)) return handler;
    const wrapped = async (request: UniversalServerRequest) => {
      const values = request.contextValues ?? createContextValues();
      const outcome = await open(handler.method, request.header, values);
      if (!("refusal" in outcome)) return handler({ ...request, contextValues: values });
      const error = rpcError(outcome.refusal, values.get(traceId), logger, handler.method.name);
      const header = new Headers(request.header);
      for (const name of BODY_FRAMING) header.delete(name);
      return handler({ ...request, header, contextValues: values, body: failing(error) });
    };
    return Object.assign(wrapped, handler);
  };
}

/** Request headers that describe the body; a refused call's body is never read, so they go with it. */
const BODY_FRAMING = [
  "content-length",
  "content-encoding",
  "connect-content-encoding",
  "grpc-encoding",
  "connect-timeout-ms",
  "grpc-timeout",
];

function failing(error: Error): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
  };
}
