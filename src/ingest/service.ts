// IngestService: the club's tracking platform writes into the read model. Every call
// goes through the same guard as reads (scope tracking:write, the ingest bucket);
// each RPC is one transaction on the primary (fixes.ts, recorded-tracks.ts,
// records.ts, scenario.ts). StreamFixes commits each message as it arrives and answers
// once, with the sums, when the client half-closes; PushFixes (push-fixes.ts)
// answers each message as it commits.

import { create } from "@bufbuild/protobuf";
import { ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  AppendFixesResponseSchema,
  IngestService,
  LoadRecordedTracksResponseSchema,
  StreamFixesResponseSchema,
  type StreamFixesRequest,
} from "../../gen/racing/v1/ingest_pb.js";
import { ApiError, TRACE_ID_HEADER } from "../errors/api-error.js";
import type { Pool } from "../store/pool.js";
import { traceId } from "../calls/context.js";
import { admittedMessages, type OpenStreams } from "../calls/guarded-stream.js";
import { guarded, rpcError, type GuardedDeps } from "../calls/guarded.js";
import { FixTally, fullAnswer } from "./fix-answers.js";
import { appendFixes } from "./fixes.js";
import { pushFixes } from "./push-fixes.js";
import { loadRecordedTracks } from "./recorded-tracks.js";
import { writeCourse, writeEvent, writeFinish, writeLiveOrder, writeRace, writeResults, writeStartGroup, writeWind } from "./records.js";
import { applyScenario } from "./scenario.js";

export type IngestDeps = GuardedDeps & { pool: Pool; streams: OpenStreams };

export function ingestService(deps: IngestDeps): ServiceImpl<typeof IngestService> {
  const { pool } = deps;
  return {
    appendFixes: guarded(deps, IngestService.method.appendFixes, async (request, caller) =>
      create(AppendFixesResponseSchema, fullAnswer(await appendFixes(pool, caller, request))),
    ),
    loadRecordedTracks: guarded(deps, IngestService.method.loadRecordedTracks, async (request, caller) =>
      create(LoadRecordedTracksResponseSchema, new FixTally().add(await loadRecordedTracks(pool, caller, request)).answer()),
    ),
    streamFixes: (requests, context) => streamFixes(deps, requests, context),
    pushFixes: pushFixes(deps),
    recordWind: guarded(deps, IngestService.method.recordWind, (request, caller) => writeWind(pool, caller, request)),
    recordLiveOrder: guarded(deps, IngestService.method.recordLiveOrder, (request, caller) => writeLiveOrder(pool, caller, request)),
    recordFinish: guarded(deps, IngestService.method.recordFinish, (request, caller) => writeFinish(pool, caller, request)),
    updateStartGroup: guarded(deps, IngestService.method.updateStartGroup, (request, caller) => writeStartGroup(pool, caller, request)),
    setCourse: guarded(deps, IngestService.method.setCourse, (request, caller) => writeCourse(pool, caller, request)),
    updateRace: guarded(deps, IngestService.method.updateRace, (request, caller) => writeRace(pool, caller, request)),
    updateEvent: guarded(deps, IngestService.method.updateEvent, (request, caller) => writeEvent(pool, caller, request)),
    publishResults: guarded(deps, IngestService.method.publishResults, (request, caller) => writeResults(pool, caller, request)),
    applyScenario: guarded(deps, IngestService.method.applyScenario, async (request, caller) => {
      const summary = await applyScenario(pool, caller, request.events);
      return { events: summary.events, entries: summary.entries, races: summary.races, startGroups: summary.startGroups };
    }),
  };
}

/**
 * The call is admitted when it opens, then each message again (admittedMessages:
 * guard and bucket, so a client disabled meanwhile stops), and each message is
 * committed on its own; a failing message ends the call, its field names prefixed with
 * `messages[m].` so the client knows which one wrote nothing.
 */
async function streamFixes(deps: IngestDeps, requests: AsyncIterable<StreamFixesRequest>, context: HandlerContext) {
  const trace = context.values.get(traceId);
  context.responseHeader.set(TRACE_ID_HEADER, trace);
  const total = new FixTally();
  // A server shutting down ends the call once the message under way is committed: the
  // answer is UNAVAILABLE, so the client sends the whole call again (to another
  // instance), and what was committed comes back as duplicates.
  let stopping: () => void = () => {};
  const shutdown = new Promise<typeof SHUTDOWN>((resolve) => (stopping = () => resolve(SHUTDOWN)));
  const forget = deps.streams.whileOpen(stopping);
  const messages = admittedMessages(deps, IngestService.method.streamFixes, context, requests);
  try {
    for (let m = 0; ; m++) {
      const next = await Promise.race([shutdown, messages.next()]);
      if (next === SHUTDOWN) throw new ApiError("API_UNAVAILABLE");
      if (next.done) break;
      const { message: request, caller } = next.value;
      const counts = await appendFixes(deps.pool, caller, request).catch((error: unknown) => {
        throw error instanceof ApiError && error.code === "API_PARAM_INVALID"
          ? new ApiError(error.code, { name: `messages[${m}].${error.params.name}` })
          : error;
      });
      total.add(counts);
    }
  } catch (error) {
    // Connect's own word on the request stream (a message that does not decode, or over 8 MiB) stands.
    if (error instanceof ConnectError) throw error;
    throw rpcError(error, trace, deps.logger, context.method.name);
  } finally {
    forget();
  }
  return create(StreamFixesResponseSchema, total.answer());
}

const SHUTDOWN = Symbol("shutdown");
