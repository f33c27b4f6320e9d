// Every component schema of /api/v1, for app.addSchema: the serialisers and the OpenAPI
// document resolve `ref()`s against them. A response message's is derived from its
// descriptor (v1-schema.ts), for the body of each route and stream of the table and the
// messages they list; the problem and token answers' are written out.

import { REST_ROUTES, STREAM_ROUTES } from "./rest-routes.js";
import { problem, tokenResponse } from "./problem-and-token-schemas.js";
import { messageComponents } from "./v1-schema.js";
import type { JsonSchema } from "./json-schema-ref.js";

export type { JsonSchema } from "./json-schema-ref.js";

export const COMPONENT_SCHEMAS: readonly JsonSchema[] = [
  ...messageComponents([...REST_ROUTES, ...STREAM_ROUTES].map((route) => route.body)),
  problem,
  tokenResponse,
];
