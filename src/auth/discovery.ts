// What an OAuth client or a resource server discovers about our authorization server:
// the RFC 8414 metadata document and the JWK Set of the token signing keys, so that
// internal services can verify access tokens themselves.

import type { JWK } from "jose";
import type { KeyRing } from "./key-ring.js";
import { SCOPES } from "./scopes.js";

export const METADATA_PATH = "/.well-known/oauth-authorization-server";
export const JWKS_PATH = "/.well-known/jwks.json";
export const TOKEN_PATH = "/api/v1/oauth/token";

export const JWKS_CONTENT_TYPE = "application/jwk-set+json";

export interface AuthorizationServerMetadata {
  issuer: string;
  token_endpoint: string;
  jwks_uri: string;
  grant_types_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  scopes_supported: string[];
  response_types_supported: string[];
  service_documentation: string;
}

/** RFC 8414 section 2, for an issuer that is the service's public base URL (the tokens' `iss`). */
export function authorizationServerMetadata(publicBaseUrl: string): AuthorizationServerMetadata {
  return {
    issuer: publicBaseUrl,
    token_endpoint: `${publicBaseUrl}${TOKEN_PATH}`,
    jwks_uri: `${publicBaseUrl}${JWKS_PATH}`,
    grant_types_supported: ["client_credentials"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    // The one scope table: a scope added there is advertised here.
    scopes_supported: Object.keys(SCOPES),
    // Required by RFC 8414; there is no authorization endpoint, so no response type.
    response_types_supported: [],
    service_documentation: `${publicBaseUrl}/docs`,
  };
}

/** RFC 7517 section 5: the public keys that verify tokens now, each with its kid, alg and use. */
export async function jwkSet(keys: KeyRing): Promise<{ keys: JWK[] }> {
  return { keys: await keys.publicJwks() };
}
