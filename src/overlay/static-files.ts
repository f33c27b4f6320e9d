// The overlay starter at /overlay/: three static files (page, script, style) read once
// at start-up and served as they are, for a club developer to open or copy. The page
// talks to the API like any other web page; its own answers carry no data.

import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { OVERLAY_CACHE_CONTROL } from "../caching/cache-policy.js";

export const OVERLAY_PATH = "/overlay/";

const FILES = [
  { name: "", file: "index.html", type: "text/html; charset=utf-8" },
  { name: "overlay.js", file: "overlay.js", type: "text/javascript; charset=utf-8" },
  { name: "overlay.css", file: "overlay.css", type: "text/css; charset=utf-8" },
] as const;

// Only this server's own files; the API it reads may be elsewhere (#api=...). Nothing
// else is fetched: no tiles, no fonts, no CDN.
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' http: https:; base-uri 'none'; form-action 'none'; frame-ancestors *";

export async function overlayPage(app: FastifyInstance): Promise<void> {
  for (const { name, file, type } of FILES) {
    const body = readFileSync(new URL(file, import.meta.url));
    app.get(`${OVERLAY_PATH}${name}`, async (_request, reply) =>
      reply
        .type(type)
        .headers({
          "cache-control": OVERLAY_CACHE_CONTROL,
          "content-security-policy": CONTENT_SECURITY_POLICY,
          "referrer-policy": "no-referrer",
          "x-content-type-options": "nosniff",
        })
        .send(body),
    );
  }
  app.get("/overlay", async (_request, reply) => reply.redirect(OVERLAY_PATH, 301));
}
