// The one check in front of every data call, REST and RPC alike: who is calling
// (bearer token), whether that client may call now (secret version, disabled,
// expiry, IP allowlist) and whether the token grants the call's scope (a call
// without a scope, like the scope list, needs only a valid token).

import { ApiError } from "../errors/api-error.js";
import { clubLimits, type DataBucket } from "../limits/policy.js";
import type { ClientStates } from "./client-states.js";
import { SCOPES, type Scope } from "./scopes.js";
import type { Tokens } from "./tokens.js";

/** The scopes in SCOPES order, listed once rather than per call. */
const SCOPE_ORDER = Object.keys(SCOPES) as Scope[];

export interface Caller {
  clientId: string;
  clubId: number;
  clubUuid: string;
  /** Scopes the call may use: the token's scopes the client still holds, in SCOPES order. */
  scopes: Scope[];
  /** Requests per minute of the club's data buckets. */
  limits: Record<DataBucket, number>;
  /** Web origins whose pages may read this client's answers (CORS, origins.ts). */
  origins: ReadonlySet<string>;
}

export class Guard {
  constructor(
    private readonly tokens: Tokens,
    private readonly clients: ClientStates,
  ) {}

  /**
   * @param authorization the Authorization header, if any
   * @param address the caller's IP address (see client-address.ts)
   * @param scope the scope the call needs; null: any valid token will do
   */
  async authorize(authorization: string | null | undefined, address: string, scope: Scope | null): Promise<Caller> {
    const token = bearerToken(authorization);
    if (token === null) throw new ApiError("API_TOKEN_MISSING");
    const claims = await this.tokens.verify(token);
    const client = await this.clients.get(claims.clientId);
    // A rotation bumps the secret version: tokens issued before it are dead.
    if (!client || client.state.secretVersion !== claims.secretVersion) throw new ApiError("API_TOKEN_INVALID");
    const { state } = client;
    if (state.disabled) throw new ApiError("API_CLIENT_DISABLED");
    if (state.expiresAt && state.expiresAt.getTime() <= Date.now()) throw new ApiError("API_CLIENT_EXPIRED");
    if (!client.allowlist.allows(address)) throw new ApiError("API_IP_NOT_ALLOWED");
    // Scopes taken from the client since the token was issued are gone at once.
    const granted = SCOPE_ORDER.filter((s) => claims.scopes.includes(s) && state.scopes.includes(s));
    if (scope !== null && !granted.includes(scope)) throw new ApiError("API_SCOPE_MISSING", { scope });
    return {
      clientId: state.clientId,
      clubId: state.clubId,
      clubUuid: state.clubUuid,
      scopes: granted,
      limits: clubLimits(state),
      origins: client.origins,
    };
  }
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 6750 2.1). */
function bearerToken(authorization: string | null | undefined): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? "");
  return match ? match[1]! : null;
}
