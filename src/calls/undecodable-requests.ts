// What a Connect, gRPC-Web or gRPC caller hears when its request message cannot be
// decoded. Connect-ES reports a protobuf body it cannot parse as INTERNAL ("parse
// binary: illegal tag: field no 1 wire type 7"), which tells the client to retry what
// can never succeed, in the parser's own words. It decodes before any interceptor runs,
// so the answer is corrected on its way out: INVALID_ARGUMENT (HTTP 400 on Connect)
// with a plain sentence naming the message type, on every protocol's error form.

import type { UniversalHandler, UniversalServerResponse } from "@connectrpc/connect/protocol";

/** Connect-ES's own words for a request it could not decode (serialization, compression, envelope). */
const INTERNAL_DECODE_FAILURES = ["parse binary:", "decompression failed", "received compressed envelope"];
const CODE_INTERNAL = 13;
const CODE_INVALID_ARGUMENT = 3;

/**
 * The UTF-8 that protobuf JSON requires (RFC 8259): a request that is not is refused, not
 * repaired. Connect-ES's JSON serialisation takes this decoder, though its options' type omits it.
 */
export const STRICT_JSON_OPTIONS = { textDecoder: new TextDecoder("utf-8", { fatal: true }) };

/**
 * Whether a framework error (one without our ErrorInfo) is a request that did not
 * decode: any INVALID_ARGUMENT it raises (JSON, compression), or one of its INTERNALs above.
 */
function isDecodeFailure(code: number, message: string, hasDetails: boolean): boolean {
  if (hasDetails) return false;
  if (code === CODE_INVALID_ARGUMENT) return true;
  return code === CODE_INTERNAL && INTERNAL_DECODE_FAILURES.some((prefix) => message.startsWith(prefix));
}

const CONNECT_CODES: Record<string, number> = { internal: CODE_INTERNAL, invalid_argument: CODE_INVALID_ARGUMENT };

/** `handler` with its decode failures answered as INVALID_ARGUMENT, whatever the protocol. */
export function withUndecodableAsInvalidArgument(handler: UniversalHandler): UniversalHandler {
  const plain = `the request is not a valid ${handler.method.input.typeName} message`;
  const wrapped = async (request: Parameters<UniversalHandler>[0]): Promise<UniversalServerResponse> => {
    const response = await handler(request);
    const contentType = response.header?.get("content-type") ?? "";
    if (contentType.startsWith("application/grpc-web"))
      return { ...response, body: mapChunks(response.body, (chunk) => grpcWebTrailer(chunk, plain)) };
    if (contentType.startsWith("application/grpc"))
      return { ...response, body: afterBody(response.body, () => grpcTrailer(response.trailer, plain)) };
    if (contentType.startsWith("application/connect+"))
      return { ...response, body: mapChunks(response.body, (chunk) => connectEndStream(chunk, plain)) };
    if (response.status === 400 || response.status === 500) return connectUnary(response, plain);
    return response;
  };
  return Object.assign(wrapped, handler);
}

/** Connect unary: the error is the whole (uncompressed, small) JSON body and the HTTP status. */
async function connectUnary(response: UniversalServerResponse, plain: string): Promise<UniversalServerResponse> {
  if (!response.body || response.header?.has("content-encoding")) return response;
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  const error = parseJson(bytes) as { code?: string; message?: string; details?: unknown[] } | undefined;
  if (!error || !isDecodeFailure(CONNECT_CODES[error.code ?? ""] ?? -1, error.message ?? "", (error.details?.length ?? 0) > 0)) {
    return { ...response, body: oneChunk(bytes) };
  }
  const body = Buffer.from(JSON.stringify({ code: "invalid_argument", message: plain }));
  const header = new Headers(response.header);
  header.set("content-length", String(body.length));
  return { ...response, status: 400, header, body: oneChunk(body) };
}

/** gRPC: the status travels in the trailers, filled in once the body has ended. */
function grpcTrailer(trailer: Headers | undefined, plain: string): void {
  if (!trailer) return;
  const code = Number(trailer.get("grpc-status"));
  const message = decodeURIComponent(trailer.get("grpc-message") ?? "");
  if (!isDecodeFailure(code, message, trailer.has("grpc-status-details-bin"))) return;
  trailer.set("grpc-status", String(CODE_INVALID_ARGUMENT));
  trailer.set("grpc-message", encodeURIComponent(plain));
}

/** gRPC-Web: the trailers are the body's last frame (flag 0x80), as HTTP/1 header lines. */
function grpcWebTrailer(chunk: Uint8Array, plain: string): Uint8Array {
  const frame = uncompressedFrame(chunk, 0x80);
  if (!frame) return chunk;
  const lines = Buffer.from(frame).toString("utf8").split("\r\n").filter(Boolean);
  const field = (name: string) =>
    lines
      .find((line) => line.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim();
  const code = Number(field("grpc-status"));
  if (!isDecodeFailure(code, decodeURIComponent(field("grpc-message") ?? ""), field("grpc-status-details-bin") !== undefined)) return chunk;
  const kept = lines.filter((line) => !/^grpc-(status|message):/i.test(line));
  return envelope(
    0x80,
    Buffer.from(
      [`grpc-status: ${CODE_INVALID_ARGUMENT}`, `grpc-message: ${encodeURIComponent(plain)}`, ...kept]
        .map((line) => `${line}\r\n`)
        .join(""),
    ),
  );
}

/** Connect streams: the error is the JSON of the end-of-stream frame (flag 0x02). */
function connectEndStream(chunk: Uint8Array, plain: string): Uint8Array {
  const frame = uncompressedFrame(chunk, 0x02);
  if (!frame) return chunk;
  const end = parseJson(frame) as { error?: { code?: string; message?: string; details?: unknown[] }; metadata?: unknown } | undefined;
  const error = end?.error;
  if (!error || !isDecodeFailure(CONNECT_CODES[error.code ?? ""] ?? -1, error.message ?? "", (error.details?.length ?? 0) > 0))
    return chunk;
  return envelope(0x02, Buffer.from(JSON.stringify({ ...end, error: { code: "invalid_argument", message: plain } })));
}

/** The payload of `chunk` when it is exactly one uncompressed frame carrying `flag`. */
function uncompressedFrame(chunk: Uint8Array, flag: number): Uint8Array | undefined {
  if (chunk.length < 5 || (chunk[0]! & flag) === 0 || (chunk[0]! & 0x01) !== 0) return undefined;
  const length = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length).readUInt32BE(1);
  return length === chunk.length - 5 ? chunk.subarray(5) : undefined;
}

function envelope(flags: number, payload: Buffer): Uint8Array {
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    return undefined;
  }
}

async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

async function* mapChunks(body: AsyncIterable<Uint8Array> | undefined, map: (chunk: Uint8Array) => Uint8Array): AsyncIterable<Uint8Array> {
  if (!body) return;
  for await (const chunk of body) yield map(chunk);
}

async function* afterBody(body: AsyncIterable<Uint8Array> | undefined, then: () => void): AsyncIterable<Uint8Array> {
  try {
    if (body) yield* body;
  } finally {
    then();
  }
}
