// ScopeService: the scopes of the API and which of them the caller holds. Any valid
// token may ask (the guard runs with no scope): a client finds out what it may call.

import type { ServiceImpl } from "@connectrpc/connect";
import { ScopeService } from "../../gen/racing/v1/scopes_pb.js";
import { SCOPES, type Scope } from "../auth/scopes.js";
import { SCOPES_CACHE_CONTROL } from "../caching/cache-policy.js";
import { guarded, type GuardedDeps } from "../calls/guarded.js";

export function scopeService(deps: GuardedDeps): ServiceImpl<typeof ScopeService> {
  return {
    listScopes: guarded(deps, ScopeService.method.listScopes, async (_request, caller, context) => {
      context.responseHeader.set("cache-control", SCOPES_CACHE_CONTROL);
      return {
        scopes: (Object.entries(SCOPES) as Array<[Scope, string]>).map(([name, description]) => ({
          name,
          description,
          granted: caller.scopes.includes(name),
        })),
      };
    }),
  };
}
