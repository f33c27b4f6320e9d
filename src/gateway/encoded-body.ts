// Each answer message is serialised, hashed and compressed once: the bytes hang off
// the message object, so a cached answer (the 2-second live read, an immutable track
// window) costs a few map look-ups per request however many clients ask for it.

import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { strongEtag } from "./http-cache.js";

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Smaller bodies are not worth compressing (headers alone are a few hundred bytes). */
export const COMPRESS_FROM_BYTES = 1024;

export type Encoding = "br" | "gzip" | "identity";

export interface Representation {
  body: Buffer;
  etag: string;
  encoding: Encoding;
}

export class EncodedBody {
  /** A compression under way, then its result: once made, a representation is handed out as it is, not awaited. */
  private readonly compressed = new Map<Encoding, Representation | Promise<Representation>>();
  private allTags: readonly string[] | undefined;

  constructor(readonly identity: Representation) {}

  /** The representation for `encoding`, compressed on first use and kept. */
  representation(encoding: Encoding): Representation | Promise<Representation> {
    if (encoding === "identity") return this.identity;
    let kept = this.compressed.get(encoding);
    if (!kept) {
      kept = compress(this.identity.body, encoding).then((body) => {
        const made = { body, encoding, etag: variantEtag(this.identity.etag, encoding) };
        this.compressed.set(encoding, made);
        return made;
      });
      this.compressed.set(encoding, kept);
    }
    return kept;
  }

  /** Every tag this content has been or could be sent with: an If-None-Match with any of them is a match. */
  tags(): readonly string[] {
    this.allTags ??= [this.identity.etag, variantEtag(this.identity.etag, "br"), variantEtag(this.identity.etag, "gzip")];
    return this.allTags;
  }
}

const encodedBodies = new WeakMap<object, EncodedBody>();

/** The bytes of `message`, serialised by `serialize` the first time they are asked for. */
export function encodedBody(message: object, serialize: () => string): EncodedBody {
  let encoded = encodedBodies.get(message);
  if (!encoded) {
    const body = Buffer.from(serialize());
    encoded = new EncodedBody({ body, etag: strongEtag(body), encoding: "identity" });
    encodedBodies.set(message, encoded);
  }
  return encoded;
}

/** The client's preferred encoding we offer (br, then gzip), per its Accept-Encoding q-values. */
export function chooseEncoding(acceptEncoding: string | undefined, size: number): Encoding {
  if (!acceptEncoding || size < COMPRESS_FROM_BYTES) return "identity";
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name) weights.set(name, q === undefined ? 1 : Number(q));
  }
  const weight = (name: string) => weights.get(name) ?? weights.get("*") ?? 0;
  const best = (["br", "gzip"] as const).filter((name) => weight(name) > 0).sort((a, b) => weight(b) - weight(a))[0];
  return best ?? "identity";
}

/** A strong validator per representation (RFC 9110 8.8.3): compressed bytes are other bytes. */
function variantEtag(etag: string, encoding: Exclude<Encoding, "identity">): string {
  return `${etag.slice(0, -1)}-${encoding}"`;
}

function compress(body: Buffer, encoding: Exclude<Encoding, "identity">): Promise<Buffer> {
  // Quality 5 compresses JSON nearly as well as 11 at a small fraction of the time.
  return encoding === "br"
    ? brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipAsync(body, { level: 6 });
}
