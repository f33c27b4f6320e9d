// Calls a service implementation in-process, exactly as the Connect and gRPC
// listeners would (same guard, same errors, same response headers), but with no
// serialisation and no network hop.

import {
  create,
  type DescMessage,
  type DescMethod,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { FastifyRequest, FastifySchema } from "fastify";
import type { AddressResolver } from "../auth/client-address.js";
import { callContext } from "../calls/context.js";
import type { Services } from "../calls/connect-routes.js";
import { RequestHeaders, ResponseHeaders } from "./record-headers.js";
import { dataRouteSchema, type DataRouteDocs } from "./route-schemas.js";
import { v1Body } from "./v1-json.js";
import { componentName } from "./v1-schema.js";

export type UnaryHandler<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  context: HandlerContext,
) => Promise<MessageInitShape<O>> | MessageInitShape<O>;

export type Query = Record<string, unknown>;

/**
 * A REST path mapped onto one unary RPC. Its answer is the v1 JSON of the response
 * message (v1-json.ts), and its schema, which validates, serialises and documents it,
 * is derived from the same descriptor.
 */
export interface RestRouteSpec<I extends DescMessage, O extends DescMessage> extends Omit<DataRouteDocs, "rpc" | "body"> {
  path: string;
  rpc: DescMethodUnary<I, O>;
  /** The response's message field written as the whole body (as grpc-gateway's response_body); unset: the response itself. */
  responseBody?: Exclude<keyof MessageShape<O>, "$typeName" | "$unknown"> & string;
  implementation: (services: Services) => UnaryHandler<I, O>;
  /** Adjusts the raw query before the schema validates it. */
  normalizeQuery?: (query: Query) => void;
  /** Path and query, validated by the schema, as the request message; throws ApiError API_PARAM_INVALID when a value cannot be one. */
  request: (request: FastifyRequest) => MessageInitShape<I>;
  /** Writes that JSON as the 200 body; by default the serialiser compiled from the route's response schema. */
  stringify?: (json: unknown) => string;
}

/** A route with its message types applied, so routes of different RPCs fit in one table. */
export interface RestRoute {
  path: string;
  rpc: DescMethodUnary;
  /** The message the body is the v1 JSON of. */
  body: DescMessage;
  schema: FastifySchema;
  normalizeQuery?: (query: Query) => void;
  /** The answer message of the call, or the RPC's ConnectError. */
  call(services: Services, request: FastifyRequest, context: HandlerContext): Promise<object>;
  /** The answer message as the spec's JSON. */
  json(message: object): unknown;
  stringify?: (json: unknown) => string;
}

export function restRoute<I extends DescMessage, O extends DescMessage>(spec: RestRouteSpec<I, O>): RestRoute {
  const body = v1Body(spec.rpc.output, spec.responseBody);
  return {
    path: spec.path,
    rpc: spec.rpc as DescMethodUnary,
    body: body.desc,
    schema: dataRouteSchema({ ...spec, rpc: spec.rpc as DescMethodUnary, body: componentName(body.desc) }),
    ...(spec.normalizeQuery ? { normalizeQuery: spec.normalizeQuery } : {}),
    ...(spec.stringify ? { stringify: spec.stringify } : {}),
    async call(services, request, context) {
      const input = create(spec.rpc.input, spec.request(request));
      // A message the service returns as such (a cached answer) is kept as it is.
      return create(spec.rpc.output, await spec.implementation(services)(input, context));
    },
    json: body.json,
  };
}

/**
 * The handler context of a REST call. A plain object rather than Connect's
 * createHandlerContext, which links abort controllers per call: the gateway awaits
 * a unary handler in the request itself, so there is nothing to abort; a stream
 * passes the signal that fires when its client leaves. Its headers are records
 * (record-headers.ts), not WHATWG Headers: nothing is copied per request.
 */
export function restCallContext(
  method: DescMethod,
  request: FastifyRequest,
  resolveAddress: AddressResolver,
  signal: AbortSignal = NEVER_ABORTED,
): RestCallContext {
  return {
    service: method.parent,
    method,
    protocolName: "rest",
    requestMethod: request.method,
    url: request.url,
    signal,
    timeoutMs: noTimeout,
    requestHeader: new RequestHeaders(request.headers),
    responseHeader: new ResponseHeaders(),
    responseTrailer: new ResponseHeaders(),
    values: callContext(resolveAddress(request.raw), request.headers.traceparent),
  };
}

/** A REST call's context: the headers the call set are a record the gateway sends as it is. */
export interface RestCallContext extends HandlerContext {
  responseHeader: ResponseHeaders;
}

const NEVER_ABORTED = new AbortController().signal;
// Module-level: a function made per call costs a closure (and, under tsx, a __name call) each request.
const noTimeout = () => undefined;
