// LoadRecordedTracks: a start group's recorded tracks (offline loggers, phones without
// coverage) loaded in one call, before anyone could read them. The fixes are checked
// and written as AppendFixes writes them (fixes.ts), with one difference: an event whose
// tracks were never readable has no settled window, so no fix is too old. An event that
// is, or once was, published with tracking shared is refused whole.

import type { Caller } from "../auth/guard.js";
import { MAX_RECORDED_FIXES, NOTHING_SETTLED, type FixContext } from "../domain/fix-rules.js";
import { tracksReadable } from "../domain/settled-window.js";
import { ApiError } from "../errors/api-error.js";
import { lockEventSharing, recordDevice } from "../store/ingest.js";
import { inTransactionRetryingDeadlocks, type Pool } from "../store/pool.js";
import { writableGroup } from "./access.js";
import { changedDevices, checkShape, countFixes, sortFixes, writeSorted, type FixBatch, type FixCounts } from "./fixes.js";

export async function loadRecordedTracks(pool: Pool, caller: Caller, batch: FixBatch): Promise<FixCounts> {
  checkShape(batch, MAX_RECORDED_FIXES);
  const counts = await inTransactionRetryingDeadlocks(
    pool,
    async (conn) => {
      const entryIds = batch.boats.map((boat) => boat.entryId);
      const { race, group, entries } = await writableGroup(conn, caller, batch.raceId, batch.startGroupId, entryIds);
      // Held to the commit: publishing or sharing the event waits for these fixes, so no
      // reader sees a window of it before they are in.
      const sharing = await lockEventSharing(conn, race.event.id);
      if (sharing.wasReadable || tracksReadable(sharing)) throw new ApiError("TRACKS_ALREADY_SERVED");
      const context: FixContext = { nowMs: Date.now(), settledBeforeMs: NOTHING_SETTLED, gunMs: group.gunMs };
      const written = await writeSorted(conn, group.id, sortFixes(entries, batch, context));
      for (const device of changedDevices(entries, batch)) await recordDevice(conn, device.entryId, device);
      return written;
    },
    "READ COMMITTED",
  );
  countFixes(counts);
  return counts;
}
