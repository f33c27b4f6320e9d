// STUB: replaced by the live endpoint's implementation.
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { RaceLiveService } from "../../gen/racing/v1/race_live_pb.js";
import { guarded } from "./guarded.js";
import type { ServiceDeps } from "./routes.js";

export function raceLiveService(deps: ServiceDeps): ServiceImpl<typeof RaceLiveService> {
  return {
    getRaceLive: guarded(deps, { scope: "tracking:read", bucket: "tracking" }, async () => {
      throw new ConnectError("not yet", Code.Unimplemented);
    }),
  };
}
