// A response message as the REST gateway writes it: the route's mapper, then the
// route's own 200 serialiser (fast-json-stringify, as Fastify compiles it), which also
// writes unset nullable fields as null. For comparing an RPC's answer with REST's.

import type { DescMethodUnary } from "@bufbuild/protobuf";
import Fastify from "fastify";
import { COMPONENT_SCHEMAS, type JsonSchema } from "../../src/gateway/json-schemas.js";
import { REST_ROUTES } from "../../src/gateway/rest-routes.js";
import type { RestRoute } from "../../src/gateway/rpc-call.js";

const serialisers = new Map<RestRoute, (json: unknown) => string>();

/** The serialiser Fastify compiles from `route`'s 200 schema. */
export async function serialiserFor(route: RestRoute): Promise<(json: unknown) => string> {
  const known = serialisers.get(route);
  if (known) return known;
  const app = Fastify();
  for (const schema of COMPONENT_SCHEMAS) app.addSchema(schema);
  let serialise: ((json: unknown) => string) | undefined;
  const response = (route.schema.response as Record<string, JsonSchema>)[200]!;
  app.get("/", { schema: { response: { 200: response } } }, async (_request, reply) => {
    serialise = reply.getSerializationFunction("200", "application/json") as (json: unknown) => string;
    return reply.send("");
  });
  await app.inject({ method: "GET", url: "/" });
  await app.close();
  serialisers.set(route, serialise!);
  return serialise!;
}

/** The JSON the REST route of `rpc` answers for `message`. */
export async function restJson(rpc: DescMethodUnary, message: object): Promise<unknown> {
  const route = REST_ROUTES.find((candidate) => candidate.rpc === rpc);
  if (!route) throw new Error(`no REST route for ${rpc.name}`);
  return JSON.parse((await serialiserFor(route))(route.json(message)));
}
