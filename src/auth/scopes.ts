// The scopes of the API: the one list a client's scopes, a token request's `scope`
// and each endpoint's requirement are checked against.

export const SCOPES = {
  "tracking:read": "race live, live insights and track history",
  "events:read": "the events list and event live status",
  "results:read": "event and race results",
  "tracking:write":
    "write the club's own race data: positions, wind, live order, finishes, race state and events (live ingest over gRPC and Connect, not REST)",
} as const;

export type Scope = keyof typeof SCOPES;

export function isScope(s: string): s is Scope {
  return Object.hasOwn(SCOPES, s);
}

export class UnknownScope extends Error {
  constructor(readonly scope: string) {
    super(`unknown scope "${scope}" (scopes: ${Object.keys(SCOPES).join(", ")})`);
    this.name = "UnknownScope";
  }
}

/** Checks every name; duplicates are dropped, the first occurrence keeps its place. */
export function parseScopes(names: readonly string[]): Scope[] {
  const scopes = new Set<Scope>();
  for (const name of names) {
    if (!isScope(name)) throw new UnknownScope(name);
    scopes.add(name);
  }
  return [...scopes];
}
