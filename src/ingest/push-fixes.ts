// PushFixes: batches of fixes on one two-way stream, each answered with its sequence
// once committed. The call is admitted when it opens, before any message is read
// (admission.ts), and again for each message (the bucket counts both). Messages are
// taken one at a time, so answers leave in the order the messages came. A message's
// own refusal (the call's errors in call-policies.ts: malformed, another club's race)
// is answered in its place and the stream goes on; whatever the next message would
// meet as well (the guard, the bucket, the database) ends the call, and the messages
// not yet answered wrote nothing. A server shutting down ends the stream (OK) once the
// message under way is answered.

import { create } from "@bufbuild/protobuf";
import { ConnectError, type HandlerContext } from "@connectrpc/connect";
import { IngestService, PushFixesResponseSchema, type PushFixesRequest, type PushFixesResponse } from "../../gen/racing/v1/ingest_pb.js";
import type { Caller } from "../auth/guard.js";
import { ApiError, errorInfo, TRACE_ID_HEADER } from "../errors/api-error.js";
import type { Pool } from "../store/pool.js";
import { callPolicy } from "../calls/call-policies.js";
import { traceId } from "../calls/context.js";
import { FixTally } from "./fix-answers.js";
import type { OpenStreams } from "../calls/guarded-stream.js";
import { openingAdmission } from "../calls/admission.js";
import { admit, rpcError, type GuardedDeps } from "../calls/guarded.js";
import { appendFixes } from "./fixes.js";

export function pushFixes(deps: GuardedDeps & { pool: Pool; streams: OpenStreams }) {
  const policy = callPolicy(IngestService.method.pushFixes);
  const ownErrors = new Set(policy.errors);
  /** One message's answer: its counts, or the refusal of the message as a whole. */
  const acknowledge = async (caller: Caller, request: PushFixesRequest): Promise<PushFixesResponse> => {
    try {
      const counts = await appendFixes(deps.pool, caller, request);
      return create(PushFixesResponseSchema, { sequence: request.sequence, ...new FixTally().add(counts).answer() });
    } catch (error) {
      if (!(error instanceof ApiError && ownErrors.has(error.code))) throw error;
      return create(PushFixesResponseSchema, { sequence: request.sequence, error: errorInfo(error) });
    }
  };
  return async function* (requests: AsyncIterable<PushFixesRequest>, context: HandlerContext): AsyncGenerator<PushFixesResponse> {
    const trace = context.values.get(traceId);
    context.responseHeader.set(TRACE_ID_HEADER, trace);
    // As for Watch streams: the client goes on from its next sequence, elsewhere.
    let stopping: () => void = () => {};
    const shutdown = new Promise<typeof SHUTDOWN>((resolve) => (stopping = () => resolve(SHUTDOWN)));
    const forget = deps.streams.whileOpen(stopping);
    const messages = requests[Symbol.asyncIterator]();
    try {
      await openingAdmission(deps, policy, context);
      for (;;) {
        const next = await Promise.race([shutdown, messages.next()]);
        if (next === SHUTDOWN || next.done) return;
        const caller = await admit(deps, policy, context);
        yield await acknowledge(caller, next.value);
      }
    } catch (error) {
      // Connect's own word on the request stream (a message that does not decode, or over 8 MiB) stands.
      if (error instanceof ConnectError) throw error;
      throw rpcError(error, trace, deps.logger, context.method.name);
    } finally {
      forget();
    }
  };
}

const SHUTDOWN = Symbol("shutdown");
