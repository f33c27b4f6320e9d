// Each answer message is serialised, hashed and compressed once: the bytes hang off
// the message object, so a cached answer (the 2-second live read, an immutable track
// window) costs a few map look-ups per request however many clients ask for it.

import { promisify } from "node:util";
import type { Transform } from "node:stream";
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from "node:zlib";
import { strongEtag } from "../caching/validators.js";

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
  /** The uncompressed bytes; a large body's are let go once compressed (see keepIdentity). */
  private identity: Representation | undefined;
  readonly etag: string;
  /** Bytes uncompressed. */
  readonly size: number;

  constructor(
    body: Buffer,
    private readonly serialize: () => string,
  ) {
    this.identity = { body, etag: strongEtag(body), encoding: "identity" };
    this.etag = this.identity.etag;
    this.size = body.length;
  }

  /** The representation for `encoding`, compressed on first use and kept. */
  representation(encoding: Encoding): Representation | Promise<Representation> {
    if (encoding === "identity") return this.uncompressed();
    let kept = this.compressed.get(encoding);
    if (!kept) {
      kept = compress(this.uncompressed().body, encoding).then((body) => {
        const made = { body, encoding, etag: variantEtag(this.etag, encoding) };
        this.compressed.set(encoding, made);
        if (!keepIdentity(this.size)) this.identity = undefined;
        return made;
      });
      this.compressed.set(encoding, kept);
    }
    return kept;
  }

  /** Every tag this content has been or could be sent with: an If-None-Match with any of them is a match. */
  tags(): readonly string[] {
    this.allTags ??= [this.etag, variantEtag(this.etag, "br"), variantEtag(this.etag, "gzip")];
    return this.allTags;
  }

  private uncompressed(): Representation {
    if (this.identity) return this.identity;
    // Serialised again (the same bytes: the message does not change), for the rare client that takes no compression.
    const made: Representation = { body: Buffer.from(this.serialize()), etag: this.etag, encoding: "identity" };
    if (keepIdentity(this.size)) this.identity = made;
    return made;
  }
}

const encodedBodies = new WeakMap<object, EncodedBody>();

/** The bytes of `message`, serialised by `serialize` the first time they are asked for (and again if a large body's are let go). */
export function encodedBody(message: object, serialize: () => string): EncodedBody {
  let encoded = encodedBodies.get(message);
  if (!encoded) {
    encoded = new EncodedBody(Buffer.from(serialize()), serialize);
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

/**
 * Bodies from this size on (a track page is megabytes) are compressed at the fastest
 * settings. Measured on a 10-minute page of 50 boats (2.6 MB of JSON numbers): brotli
 * quality 1 takes 15 ms and quality 5 93 ms for the same size (24 bytes a fix), gzip
 * level 1 25 ms against level 6's 56 ms for 5% more bytes.
 */
const LARGE_BODY_BYTES = 256 * 1024;

/**
 * Whether the uncompressed bytes stay once a compressed form is made. A kept track
 * window is held for an hour, and nearly every client takes br or gzip: its 88 bytes a
 * fix of JSON would be most of what it holds.
 */
function keepIdentity(size: number): boolean {
  return size < LARGE_BODY_BYTES;
}

function compress(body: Buffer, encoding: Exclude<Encoding, "identity">): Promise<Buffer> {
  const large = body.length >= LARGE_BODY_BYTES;
  // Smaller bodies, such as a live answer (16 KB): quality 4 compresses them as well as 5-11 in about half of 5's time.
  return encoding === "br"
    ? brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: large ? 1 : 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipAsync(body, { level: large ? 1 : 6 });
}

/** A compressing stream at the large-body settings, for a body streamed as it is made (an export: megabytes). */
export function compressingStream(encoding: Exclude<Encoding, "identity">): Transform {
  return encoding === "br" ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }) : createGzip({ level: 1 });
}
