// An answer's bytes made once: the ETag of each representation, compression that
// round-trips, a large body's uncompressed bytes let go once it is compressed and made
// again, the same, for a client that takes no compression.

import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { chooseEncoding, encodedBody } from "../../src/gateway/encoded-body.js";

/** A track-like JSON body of about `bytes`, and how often it was serialised. */
function counted(bytes: number) {
  const json = JSON.stringify({ t: Array.from({ length: Math.ceil(bytes / 14) }, (_, i) => 1_764_000_000_000 + i * 1000) });
  const counter = { calls: 0 };
  const serialize = () => {
    counter.calls++;
    return json;
  };
  return { json, counter, serialize };
}

describe("an encoded body", () => {
  it("keeps a small body's bytes: serialised once for every representation", async () => {
    const { json, counter, serialize } = counted(20_000);
    const encoded = encodedBody({}, serialize);
    const br = await encoded.representation("br");
    const identity = await encoded.representation("identity");
    expect(brotliDecompressSync(br.body).toString()).toBe(json);
    expect(identity.body.toString()).toBe(json);
    expect(counter.calls).toBe(1);
  });

  it("lets a large body's bytes go once compressed, and makes the same bytes again when asked", async () => {
    const { json, counter, serialize } = counted(600_000);
    const message = {};
    const encoded = encodedBody(message, serialize);
    expect(encoded.size).toBe(Buffer.byteLength(json));
    const br = await encoded.representation("br");
    expect(counter.calls).toBe(1);
    const identity = await encoded.representation("identity");
    expect(counter.calls).toBe(2);
    expect(identity.body.toString()).toBe(json);
    expect(identity.etag).toBe(encoded.etag);
    const gzip = await encoded.representation("gzip");
    expect(gunzipSync(gzip.body).toString()).toBe(json);
    expect(brotliDecompressSync(br.body).toString()).toBe(json);
    expect([br.etag, gzip.etag]).toEqual([`${encoded.etag.slice(0, -1)}-br"`, `${encoded.etag.slice(0, -1)}-gzip"`]);
    // The compressed forms stay: asked again, they are the same objects, not made anew.
    expect(encoded.representation("br")).toBe(br);
    expect(encodedBody(message, serialize)).toBe(encoded);
  });

  it("is sent compressed only from 1 KiB, in the client's preferred encoding", () => {
    expect(chooseEncoding("gzip, br", 1023)).toBe("identity");
    expect(chooseEncoding("gzip;q=1, br;q=0.5", 4096)).toBe("gzip");
    expect(chooseEncoding("br;q=0, gzip;q=0", 4096)).toBe("identity");
    expect(chooseEncoding(undefined, 4096)).toBe("identity");
  });
});
