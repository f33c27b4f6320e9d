// The {errors_url} page: one anchor per error code (`/docs/errors#RACE_NOT_FOUND`),
// saying when it happens and what a client should do, rendered from the error table.

import { ERROR_CODES, type ErrorCodeSpec } from "../errors/codes.js";
import { REFERENCE_PATH } from "./reference.js";

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export function errorsPage(): string {
  const rows = Object.entries(ERROR_CODES as Record<string, ErrorCodeSpec>).map(([code, spec]) => {
    const extra = [
      spec.params.length > 0 ? `<p>Parameters: ${spec.params.map((p) => `<code>params.${escapeHtml(p)}</code>`).join(", ")}.</p>` : "",
      spec.retryAfterSeconds ? `<p>Header: <code>Retry-After: ${spec.retryAfterSeconds}</code> (seconds).</p>` : "",
      spec.oauthError ? `<p>Token endpoint: <code>error=${escapeHtml(spec.oauthError)}</code>.</p>` : "",
    ].join("");
    return `<section id="${code}">
  <h2><a href="#${code}">${code}</a> <span class="status">HTTP ${spec.status}</span></h2>
  <p><strong>When:</strong> ${escapeHtml(spec.when)}</p>
  <p><strong>What to do:</strong> ${escapeHtml(spec.remedy)}</p>
  ${extra}
</section>`;
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Error codes · Race Tracking API v1</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24; }
  h1 { font-size: 1.6rem; } h2 { font-size: 1.1rem; margin-bottom: .2rem; }
  h2 a { color: inherit; text-decoration: none; font-family: ui-monospace, monospace; }
  section { border-top: 1px solid #d0d7de; padding: .6rem 0; } section:target { background: #fff8c5; }
  .status { color: #57606a; font-weight: normal; margin-left: .5rem; }
  code { font-family: ui-monospace, monospace; background: #f6f8fa; padding: 0 .2rem; }
</style>
</head>
<body>
<h1>Error codes of the Race Tracking API v1</h1>
<p>Every endpoint, parameter, answer and header is in the <a id="api-reference" href="${REFERENCE_PATH}">API reference</a>
(machine-readable: <a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a>).</p>
<p>Every failing response under <code>/api/v1</code> other than the token endpoint is
<code>application/problem+json</code> with <code>type</code> (this page, anchored at the code),
<code>status</code>, <code>code</code>, <code>params</code> when the code has parameters, and
<code>traceId</code>. Clients branch on <code>code</code>. The token endpoint answers RFC 6749
bodies: <code>{"error": ..., "code": ...}</code>. Over Connect and gRPC the code is the
<code>reason</code> of a <code>google.rpc.ErrorInfo</code> detail (domain <code>race-api</code>),
its params the metadata, with a <code>google.rpc.RetryInfo</code> for 429 and 503.</p>
<p><code>Retry-After</code> is always a whole number of seconds. For 429 and 503 wait exactly that long;
for 500 retry up to 3 attempts in total with backoff of 1 s, 2 s and 4 s.</p>
${rows.join("\n")}
</body>
</html>
`;
}
