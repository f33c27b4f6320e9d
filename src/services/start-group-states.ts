// A start group's state as the API sends it: the stored word as the enum of common.proto.

import { StartGroupState } from "../../gen/racing/v1/common_pb.js";
import type { StartGroupRecord } from "../store/races.js";

export const STORED_STATES: Record<StartGroupRecord["state"], StartGroupState> = {
  Scheduled: StartGroupState.SCHEDULED,
  Started: StartGroupState.STARTED,
  Finished: StartGroupState.FINISHED,
  Postponed: StartGroupState.POSTPONED,
  Abandoned: StartGroupState.ABANDONED,
};
