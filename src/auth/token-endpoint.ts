// POST /api/v1/oauth/token: the OAuth 2.0 client-credentials grant (RFC 6749 4.4),
// decided here from the raw HTTP parts so the REST route only translates. Errors are
// RFC 6749 bodies ({ error, code[, params] }) as DESIGN.md maps the spec's codes;
// every answer says Cache-Control: no-store.

import type { Logger } from "pino";
import { NO_STORE, PRAGMA_NO_CACHE } from "../caching/cache-policy.js";
import { ApiError, retryAfter } from "../errors/api-error.js";
import { classify } from "../errors/classify.js";
import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import { TOKEN_REQUESTS_PER_MINUTE, type TokenBucket } from "../limits/policy.js";
import type { RateLimits } from "../limits/rate-limits.js";
import { findClientState } from "../store/clients.js";
import type { Pool } from "../store/pool.js";
import { parseAllowlist } from "./ip-allowlist.js";
import { corsGrant } from "./origins.js";
import { isScope } from "./scopes.js";
import { hashSecret, verifySecret } from "./secrets.js";
import type { Tokens } from "./tokens.js";

const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

export interface TokenRequest {
  contentType: string | undefined;
  authorization: string | undefined;
  /** null when the body could not be read: over the size limit, an unparsable Content-Type, cut short. */
  body: string | null;
  /** The caller's IP address (client-address.ts). */
  address: string;
  /** The Origin header of a page's request, if any. */
  origin?: string | undefined;
}

export interface TokenAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Token endpoint answers for errors whose data-call status differs (RFC 6749 5.2 and the spec's table). */
const TOKEN_STATUS: Partial<Record<ErrorCode, number>> = { API_CLIENT_DISABLED: 400, API_CLIENT_EXPIRED: 400, API_IP_NOT_ALLOWED: 400 };
/** RFC 6749 has no code for these; registered extension values and its server_error. */
const OAUTH_ERROR: Partial<Record<ErrorCode, string>> = {
  RATE_LIMIT_EXCEEDED: "slow_down",
  API_UNAVAILABLE: "temporarily_unavailable",
  INTERNAL_ERROR: "server_error",
};

export class TokenEndpoint {
  // Compared against when the client is unknown, so unknown and wrong answer alike and in the same time.
  private readonly dummyHash = hashSecret("no client has this secret");

  constructor(private readonly deps: { pool: Pool; tokens: Tokens; limits: RateLimits; logger: Logger }) {}

  async handle(request: TokenRequest): Promise<TokenAnswer> {
    try {
      const { body, origins } = await this.grant(request);
      // A page on one of the client's origins may read its token (CORS, origins.ts).
      const cors = request.origin !== undefined && origins.includes(request.origin) ? corsGrant(request.origin) : {};
      return { status: 200, headers: { ...noStore(), ...cors }, body };
    } catch (error) {
      return this.errorAnswer(error);
    }
  }

  private async grant(request: TokenRequest): Promise<{ body: Record<string, unknown>; origins: string[] }> {
    await this.countCall("token-ip", request.address);
    const form = parseForm(request);
    const credentials = clientCredentials(request.authorization, form);
    if (form.get("grant_type") !== "client_credentials") throw new ApiError("API_GRANT_TYPE_UNSUPPORTED");
    await this.countCall("token-client", credentials.clientId);

    const state = await findClientState(this.deps.pool, credentials.clientId);
    const secretMatches = await verifySecret(credentials.secret, state?.secretHash ?? (await this.dummyHash));
    if (!state || !secretMatches) {
      throw new ApiError(
        "API_CLIENT_CREDENTIALS_INVALID",
        {},
        credentials.viaBasic ? { "www-authenticate": 'Basic realm="race-api"' } : {},
      );
    }
    if (state.disabled) throw new ApiError("API_CLIENT_DISABLED");
    if (state.expiresAt && state.expiresAt.getTime() <= Date.now()) throw new ApiError("API_CLIENT_EXPIRED");
    if (!parseAllowlist(state.ipAllowlist).allows(request.address)) throw new ApiError("API_IP_NOT_ALLOWED");

    const scopes = grantedScopes(form.get("scope"), state.scopes);
    const { token, expiresIn } = await this.deps.tokens.issue(state.clientId, scopes, state.secretVersion);
    return {
      body: { access_token: token, token_type: "Bearer", expires_in: expiresIn, scope: scopes.join(" ") },
      origins: state.allowedOrigins,
    };
  }

  private async countCall(bucket: TokenBucket, key: string): Promise<void> {
    await this.deps.limits.charge(bucket, key, TOKEN_REQUESTS_PER_MINUTE);
  }

  private errorAnswer(error: unknown): TokenAnswer {
    const tokenError = classify(error, this.deps.logger, { endpoint: "token" });
    const spec = ERROR_CODES[tokenError.code];
    const headers = { ...noStore(), ...tokenError.headers, ...retryAfter(tokenError.code) };
    const body: Record<string, unknown> = { error: oauthErrorOf(tokenError.code), code: tokenError.code };
    if (spec.params.length > 0) body.params = tokenError.params;
    return { status: TOKEN_STATUS[tokenError.code] ?? spec.status, headers, body };
  }
}

/** The RFC 6749 `error` the token endpoint answers `code` with. */
export function oauthErrorOf(code: ErrorCode): string {
  const spec = ERROR_CODES[code];
  return OAUTH_ERROR[code] ?? ("oauthError" in spec ? spec.oauthError : "invalid_request");
}

function noStore(): Record<string, string> {
  // RFC 6749 5.1: both, for HTTP/1.0 caches too.
  return { "cache-control": NO_STORE, pragma: PRAGMA_NO_CACHE };
}

function parseForm(request: TokenRequest): URLSearchParams {
  const mediaType = (request.contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== FORM_CONTENT_TYPE || request.body === null) throw new ApiError("API_TOKEN_REQUEST_INVALID");
  const form = new URLSearchParams(request.body);
  // RFC 6749 3.2: request parameters must not be included more than once.
  const names = [...form.keys()];
  if (new Set(names).size !== names.length) throw new ApiError("API_TOKEN_REQUEST_INVALID");
  return form;
}

interface Credentials {
  clientId: string;
  secret: string;
  viaBasic: boolean;
}

/**
 * HTTP Basic (RFC 6749 2.3.1: both parts form-url-decoded after base64) or form fields,
 * never both. Only the Basic scheme carries client credentials: another one (a Bearer
 * token a client sends out of habit) is not a second set of them, and is ignored.
 */
function clientCredentials(header: string | undefined, form: URLSearchParams): Credentials {
  const inBody = form.has("client_id") || form.has("client_secret");
  const authorization = header !== undefined && /^basic(?:\s|$)/i.test(header) ? header : undefined;
  if (authorization !== undefined) {
    if (inBody) throw new ApiError("API_TOKEN_REQUEST_INVALID");
    const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(authorization);
    if (!match) throw new ApiError("API_TOKEN_REQUEST_INVALID");
    const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new ApiError("API_TOKEN_REQUEST_INVALID");
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)), viaBasic: true };
  }
  const clientId = form.get("client_id");
  const secret = form.get("client_secret");
  if (!clientId || secret === null) throw new ApiError("API_CLIENT_CREDENTIALS_INVALID");
  return { clientId, secret, viaBasic: false };
}

function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    throw new ApiError("API_TOKEN_REQUEST_INVALID");
  }
}

/** The requested scopes (each one the client holds), or all of the client's when none are asked for. */
function grantedScopes(requested: string | null, held: readonly string[]): string[] {
  if (requested === null || requested.trim() === "") return held.filter(isScope);
  const asked = [...new Set(requested.split(" ").filter(Boolean))];
  const refused = asked.find((scope) => !isScope(scope) || !held.includes(scope));
  if (refused !== undefined) throw new ApiError("API_SCOPE_INVALID", { scope: refused });
  return asked;
}
