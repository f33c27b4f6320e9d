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
import { callerAddress } from "./context.js";
import { inRpcSpan, type GuardedDeps } from "./guarded.js";

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

/** Whether a surface opened the call (then its RPC span, when traced, began with the opening). */
export function wasOpened(values: ContextValues): boolean {
  return values.get(opened) !== undefined;
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
 * Each guarded route's handler, opened first (a unary call in its RPC span). A refused
 * call is handed to Connect with one empty message in its encoding instead of its body,
 * and without the headers that frame a body (length, compression, timeout): whatever it
 * sent, the handler runs as for any call (metrics, traces) and answers the refusal in
 * the protocol's form, and a stream's handler is refused at its opening. Routes without
 * a call policy (reflection) are public and pass as they are.
 */
export function admittedFirst(open: CallOpener): (handler: UniversalHandler) => UniversalHandler {
  return (handler) => {
    if (!findCallPolicy(handler.method)) return handler;
    const openAndHandle = async (request: UniversalServerRequest, values: ContextValues) => {
      const outcome = await open(handler.method, request.header, values);
      if (!("refusal" in outcome)) return handler({ ...request, contextValues: values });
      const header = new Headers(request.header);
      for (const name of BODY_FRAMING) header.delete(name);
      return handler({ ...request, header, contextValues: values, body: emptyMessage(header.get("content-type") ?? "") });
    };
    const wrapped = (request: UniversalServerRequest) => {
      const values = request.contextValues ?? createContextValues();
      if (handler.method.methodKind !== "unary") return openAndHandle(request, values);
      return inRpcSpan(handler.method, request.header, values, () => openAndHandle(request, values));
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

/** One empty message as `contentType` frames it: enveloped for gRPC, gRPC-Web and Connect streams, bare for Connect unary. */
async function* emptyMessage(contentType: string): AsyncIterable<Uint8Array> {
  const payload = /[+/]json\b/.test(contentType) ? Buffer.from("{}") : Buffer.alloc(0);
  if (!/^application\/(grpc|connect\+)/.test(contentType)) return yield payload;
  const head = Buffer.alloc(5);
  head.writeUInt32BE(payload.length, 1);
  yield Buffer.concat([head, payload]);
}
