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
    },
  };
}
