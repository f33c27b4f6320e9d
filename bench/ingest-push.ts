// How the ingest benchmarks send fix batches over the acknowledged stream: `streams`
// PushFixes streams kept open, batches dealt round-robin, each stream answering its own
// in order, so up to `streams` batches are being committed at once (the server takes one
// message at a time per stream) and any more wait, pipelined, behind them.

import type { PushFixesResponse } from "../gen/racing/v1/ingest_pb.js";
import { createFixPusher, type IngestClient, type PushedBatch } from "../src/sim/ingest-client.js";

export interface PushSender {
  /** Resolves with the batch's answer once committed. */
  send(batch: PushedBatch): Promise<PushFixesResponse>;
  close(): Promise<void>;
}

export function pushSender(client: IngestClient, streams: number): PushSender {
  const pushers = Array.from({ length: streams }, () => createFixPusher(client));
  let next = 0;
  return {
    send: (batch) => pushers[next++ % pushers.length]!.push(batch),
    close: async () => {
      await Promise.all(pushers.map((pusher) => pusher.close()));
    },
  };
}
