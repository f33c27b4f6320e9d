// STUB: replaced by the track endpoint's implementation.
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { TrackService } from "../../gen/racing/v1/track_pb.js";
import { guarded } from "./guarded.js";
import type { ServiceDeps } from "./routes.js";

export function trackService(deps: ServiceDeps): ServiceImpl<typeof TrackService> {
  return {
    getTrackPage: guarded(deps, { scope: "tracking:read", bucket: "tracking" }, async () => {
      throw new ConnectError("not yet", Code.Unimplemented);
    }),
  };
}
