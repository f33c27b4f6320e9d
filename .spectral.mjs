// Lints the OpenAPI document of /api/v1 (npm run lint:openapi): Spectral's OpenAPI
// rules and the OWASP API Security Top 10 (2023) ruleset. Where a rule does not fit
// this API, it is narrowed or turned off here with the reason (docs/decisions.md).
import { oas } from "@stoplight/spectral-rulesets";
import owasp from "@stoplight/spectral-owasp-ruleset";

/**
 * raceId, eventId and lang take any value by the spec: an unknown or malformed id is
 * a 404, an unknown language is en; a length limit would turn either into a 400.
 */
const ANY_VALUE = ["raceId", "eventId", "lang"];

/** The schemas of `type` in what a client sends, parameters named in `exempt` aside. */
const requestSide = (type, exempt = ANY_VALUE) => [
  `$.paths[*][*].parameters[?(@.schema && @.schema.type == '${type}' && ${exempt.map((name) => `@.name != '${name}'`).join(" && ")})].schema`,
  `$.paths[*][*].requestBody.content[*].schema.properties[?(@ && @.type == '${type}')]`,
];
const owaspRule = (name) => owasp.rules[name];

export default {
  extends: [oas, owasp],
  rules: {
    // Resource limits guard against what clients send (OWASP API4:2023). Answers are
    // ours: their bounds are documented where the spec sets them, and a boat name
    // or a track array has no honest fixed maximum.
    "owasp:api4:2023-string-limit": { ...owaspRule("owasp:api4:2023-string-limit"), given: requestSide("string") },
    // An unknown Last-Event-ID only means "send the newest": it has a length, not a pattern.
    "owasp:api4:2023-string-restricted": {
      ...owaspRule("owasp:api4:2023-string-restricted"),
      given: requestSide("string", [...ANY_VALUE, "last-event-id"]),
    },
    "owasp:api4:2023-array-limit": { ...owaspRule("owasp:api4:2023-array-limit"), given: requestSide("array") },
    "owasp:api4:2023-integer-limit": { ...owaspRule("owasp:api4:2023-integer-limit"), given: requestSide("integer") },
    // RateLimit headers come with every answer of a call that counted against a
    // client's bucket. A 401 or 403 is decided before the client is known, and the
    // token endpoint and this document are not data calls.
    "owasp:api4:2023-rate-limit": {
      ...owaspRule("owasp:api4:2023-rate-limit"),
      given:
        "$.paths[?(@property != '/api/v1/oauth/token' && @property != '/api/v1/openapi.json')][*].responses[?(@property.match(/^(2|400|404|429)/))]",
    },
    // Client credentials issue no refresh tokens (RFC 6749 section 4.4.3): a client
    // asks for a new access token, which lives an hour.
    "owasp:api2:2023-short-lived-access-tokens": "off",
  },
  overrides: [
    {
      // The token endpoint is where credentials are presented, with HTTP Basic or form fields.
      files: ["**#/paths/~1api~1v1~1oauth~1token"],
      rules: { "owasp:api2:2023-write-restricted": "off" },
    },
    {
      // The document is public, like any API reference.
      files: ["**#/paths/~1api~1v1~1openapi.json"],
      rules: {
        "owasp:api2:2023-read-restricted": "off",
        "owasp:api4:2023-rate-limit-responses-429": "off",
        "owasp:api8:2023-define-error-responses-401": "off",
        "owasp:api8:2023-define-error-validation": "off",
      },
    },
  ],
};
