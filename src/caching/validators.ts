// Validators of data answers: a strong ETag of the exact body bytes (or, for an
// export, of what decides its bytes), and If-None-Match (lists, `*`, weak comparison
// per RFC 9110 13.1.2) answered with 304.

import { createHash } from "node:crypto";

export function strongEtag(body: string | Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}

export function matchesIfNoneMatch(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => opaque(tag) === opaque(etag));
}
