// The browsable API reference at /docs: Swagger UI (@fastify/swagger-ui) rendering
// /api/v1/openapi.json. Its scripts and styles are served from the package, never
// from a CDN, and it sends the document to no online validator.

import type { FastifySwaggerUiOptions } from "@fastify/swagger-ui";
import { API_TITLE } from "../gateway/openapi.js";

export const REFERENCE_PATH = "/docs";

// A sail over a wave, and the API's name, in the top bar.
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="260" height="40" viewBox="0 0 260 40">
<path d="M16 4 L16 30 L4 30 Z" fill="#fff"/><path d="M19 8 L19 30 L31 30 Z" fill="#9ad0ff"/>
<path d="M2 34 Q9 30 16 34 T30 34" stroke="#9ad0ff" stroke-width="2" fill="none"/>
<text x="40" y="27" font-family="system-ui, sans-serif" font-size="18" font-weight="600" fill="#fff">${API_TITLE}</text>
</svg>`;

/** Seconds of a stream "Try it out" shows before closing it. */
export const STREAM_PREVIEW_SECONDS = 5;

// Swagger UI reads a whole answer before it shows it, and a stream never ends: its
// "Try it out" would wait on LOADING for good. For a stream (Accept: text/event-stream)
// the request runs through this fetch instead, which reads the stream for a few
// seconds, closes it, and hands Swagger UI what arrived, with a line saying so. A
// refusal (problem+json) is shown whole as before. Browser code, shipped as text: it
// becomes a function in the page (@fastify/swagger-ui writes functions by toString).
const STREAM_PREVIEW = `
  const accept = String((request.headers && (request.headers.Accept || request.headers.accept)) || "");
  if (!/text\\/event-stream/.test(accept) && !/\\/stream(\\?|$)/.test(request.url)) return request;
  request.userFetch = async (url, init) => {
    const stop = new AbortController();
    const response = await fetch(url, { ...init, signal: stop.signal });
    if (!response.ok || !response.body) return response;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const timer = setTimeout(() => stop.abort(), ${STREAM_PREVIEW_SECONDS * 1000});
    let text = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    } catch {
      // Closed after ${STREAM_PREVIEW_SECONDS} s: the preview is over.
    } finally {
      clearTimeout(timer);
    }
    text += ": (the reference shows the first ${STREAM_PREVIEW_SECONDS} seconds of the stream, then closes it; a client keeps reading and reconnects with Last-Event-ID)\\n";
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return request;
`;

export function referenceOptions(): FastifySwaggerUiOptions {
  return {
    routePrefix: REFERENCE_PATH,
    logo: { type: "image/svg+xml", content: Buffer.from(LOGO) },
    theme: { title: `${API_TITLE} v1 · Reference` },
    validatorUrl: false,
    uiConfig: {
      deepLinking: true,
      docExpansion: "list",
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      persistAuthorization: false,
      requestInterceptor: new Function("request", STREAM_PREVIEW) as <T>(request: T) => T,
    },
  };
}
