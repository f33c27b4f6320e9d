// The JSON Schemas of the answers that are not a response message: the problem body
// of every failing data call, and the token endpoint's answers (RFC 6749).

import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import type { JsonSchema } from "./json-schema-ref.js";

const component = (id: string, schema: JsonSchema): JsonSchema => ({ $id: id, ...schema });

// IngestService's own codes never reach the REST surface.
const errorCodes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => !("ingestOnly" in ERROR_CODES[code]));
const PARAMS: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    name: { type: "string", maxLength: 64, description: "API_PARAM_INVALID: the parameter at fault." },
    scope: { type: "string", maxLength: 1000, description: "API_SCOPE_MISSING, API_SCOPE_INVALID: the scope at fault." },
  },
  description: "Present only for codes that carry parameters.",
};

export const problem = component("Problem", {
  type: "object",
  description: "RFC 9457 problem details. There is no title or detail: code is the contract, and type links to its documentation.",
  required: ["type", "status", "code", "traceId"],
  properties: {
    type: { type: "string", format: "uri", maxLength: 2048, description: "{errors_url}#<code>: the code's documentation." },
    status: { type: "integer", format: "int32", minimum: 400, maximum: 599 },
    code: { type: "string", enum: errorCodes },
    params: PARAMS,
    traceId: {
      type: "string",
      pattern: "^[0-9a-f]{32}$",
      minLength: 32,
      maxLength: 32,
      description: "Also the X-Trace-Id header; quote it when reporting a problem.",
    },
  },
});

const TOKEN_RESPONSE_PROPERTIES: Record<string, JsonSchema> = {
  access_token: { type: "string", maxLength: 4096, description: "A JWT (RFC 9068); send it as Authorization: Bearer." },
  token_type: { type: "string", enum: ["Bearer"] },
  expires_in: { type: "integer", format: "int32", minimum: 1, maximum: 86_400, description: "Seconds the token stays valid." },
  scope: { type: "string", maxLength: 1000, description: "The granted scopes, space-separated." },
};
export const tokenResponse = component("TokenResponse", {
  type: "object",
  required: Object.keys(TOKEN_RESPONSE_PROPERTIES),
  properties: TOKEN_RESPONSE_PROPERTIES,
});

/** Not a component: each token error answer narrows it to its own codes (route-schemas.ts). */
export const tokenError: JsonSchema = {
  type: "object",
  description: "RFC 6749 section 5.2 error, with the API's code next to it.",
  required: ["error", "code"],
  properties: {
    error: {
      type: "string",
      enum: [
        "invalid_request",
        "unsupported_grant_type",
        "invalid_client",
        "invalid_scope",
        "unauthorized_client",
        "slow_down",
        "temporarily_unavailable",
        "server_error",
      ],
    },
    code: { type: "string", enum: errorCodes },
    params: PARAMS,
  },
};
