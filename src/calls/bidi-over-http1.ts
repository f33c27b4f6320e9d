// What a caller hears when it opens a two-way stream (PushFixes, reflection) over
// HTTP/1.1, which cannot carry one. Connect-ES answers 505 HTTP Version Not Supported
// with `Connection: close` and no body; the body added here says why and where to go,
// in the Connect error form, for a person reading it in curl or a log.

import type { UniversalHandler, UniversalServerResponse } from "@connectrpc/connect/protocol";

/** `handler` with a sentence in its 505 answers. */
export function withBidiNeedsHttp2(handler: UniversalHandler): UniversalHandler {
  if (handler.method.methodKind !== "bidi_streaming") return handler;
  const body = Buffer.from(
    JSON.stringify({
      code: "unimplemented",
      message: `${handler.requestPath.slice(1)} is a two-way stream and needs HTTP/2: gRPC, or Connect over HTTP/2 on the gRPC port`,
    }),
  );
  const wrapped = async (request: Parameters<UniversalHandler>[0]): Promise<UniversalServerResponse> => {
    const response = await handler(request);
    if (response.status !== 505) return response;
    const header = new Headers(response.header);
    header.set("content-type", "application/json");
    header.set("content-length", String(body.length));
    return { ...response, header, body: oneChunk(body) };
  };
  return Object.assign(wrapped, handler);
}

async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}
