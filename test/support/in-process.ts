// The API without a listener, for the rules HTTP adds nothing to: REST answered by
// Fastify's `inject` and the RPCs called over Connect's in-memory router transport,
// both over the same runtime (services, guard, limits, errors) the listeners serve.
// What needs a real socket (HTTP/2, streams, compression on the wire, the gRPC client)
// keeps `useApi` (api.ts).

import type { DescService } from "@bufbuild/protobuf";
import { createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { buildApp } from "../../src/composition/app.js";
import type { Scenario } from "../../src/domain/scenario.js";
import type { Runtime, RuntimeConfig } from "../../src/composition/runtime.js";
import { callContext } from "../../src/calls/context.js";
import { connectRoutes } from "../../src/calls/connect-routes.js";
import { secretOf, seedIdentities } from "./api.js";
import { useFreshDatabase, type TestDatabase } from "./database.js";
import { testRuntime } from "./runtime.js";

export interface InProcessApi {
  db: TestDatabase;
  runtime: Runtime;
  /** A token of the client `useInProcessApi` was given; "" when none. */
  token: string;
  /** A REST call through `inject`, answered as a fetch Response. */
  fetch(
    path: string,
    init?: { method?: "GET" | "POST" | "HEAD" | "OPTIONS"; headers?: Record<string, string>; body?: string },
  ): Promise<Response>;
  /** A fresh token of `clientId`, from the token endpoint through `inject`. */
  tokenFor(clientId: string, scope?: string): Promise<string>;
  /** A client of `service` over Connect's in-memory transport; calls come from `address`. */
  client<S extends DescService>(service: S, address?: string): Client<S>;
}

/** Like `useApi`: a fresh database holding `scenario`, the app built before the tests and closed after them. */
export function useInProcessApi(
  options: { scenario?: () => Scenario; client?: string; config?: Partial<RuntimeConfig> } = {},
): InProcessApi {
  const db = useFreshDatabase();
  let runtime: Runtime | undefined;
  let app: FastifyInstance | undefined;
  let token = "";
  const started = () => {
    if (!runtime || !app) throw new Error("the app is built in beforeAll");
    return { runtime, app };
  };

  const fetchInProcess: InProcessApi["fetch"] = async (path, init = {}) => {
    const answer = await started().app.inject({
      method: init.method ?? "GET",
      url: path,
      headers: init.headers ?? {},
      ...(init.body === undefined ? {} : { payload: init.body }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(name, String(one));
    }
    // A 204 or 304 has no body, and Response refuses one.
    const body = answer.statusCode === 204 || answer.statusCode === 304 ? null : answer.rawPayload;
    return new Response(body, { status: answer.statusCode, headers });
  };

  const tokenFor: InProcessApi["tokenFor"] = async (clientId, scope) => {
    const form = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: secretOf(clientId) });
    if (scope !== undefined) form.set("scope", scope);
    const response = await fetchInProcess("/api/v1/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    if (response.status !== 200) throw new Error(`token for ${clientId}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { access_token: string }).access_token;
  };

  beforeAll(async () => {
    await seedIdentities(db, options.scenario?.());
    runtime = await testRuntime(db, options.config);
    app = await buildApp(runtime);
    await app.ready();
    if (options.client) token = await tokenFor(options.client);
  });
  afterAll(async () => {
    await app?.close();
    await runtime?.close();
  });

  return {
    db,
    get runtime() {
      return started().runtime;
    },
    get token() {
      return token;
    },
    fetch: fetchInProcess,
    tokenFor,
    client(service, address = "127.0.0.1") {
      // What the listeners hand every call (calls/context.ts): the caller's address and a trace id.
      const routes = connectRoutes(started().runtime);
      const transport = createRouterTransport((router) => {
        routes(router);
        // Before the call is opened (admission.ts), as the listeners' contextValues option does.
        const handlers = router.handlers.map((handler) =>
          Object.assign(
            (request: Parameters<typeof handler>[0]) => handler({ ...request, contextValues: callContext(address, undefined) }),
            handler,
          ),
        );
        router.handlers.splice(0, router.handlers.length, ...handlers);
      });
      return createClient(service, transport);
    },
  };
}
