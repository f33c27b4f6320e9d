// A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol, for
// tests of code that calls a language model: each test decides what the "model" answers,
// and every request that arrived is kept for assertions.

import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export const CHAT_COMPLETIONS_PATH = "/v1/chat/completions";

export interface ChatMessage {
  role: string;
  content: string;
}

export interface ChatRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The parsed JSON body; undefined when the body is not JSON. */
  body: { model?: unknown; temperature?: unknown; messages?: ChatMessage[]; [field: string]: unknown } | undefined;
  /** Resolves when the caller hangs up, e.g. because its timeout fired. */
  closed: Promise<void>;
}

/** `content`: a normal completion carrying that assistant message; otherwise exactly this status and body. */
export type ChatReply = { content: string } | { status: number; body: string; contentType?: string };

export type ChatHandler = (request: ChatRequest) => ChatReply | Promise<ChatReply>;

export interface ChatCompletionsServer {
  /** The full chat-completions URL. */
  url: string;
  /** Every request received, on any path, in arrival order. */
  requests: ChatRequest[];
  close(): Promise<void>;
}

/** The body an OpenAI-compatible server answers with. */
export function chatCompletion(content: string, model = "test-model"): object {
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

/** Answers POST /v1/chat/completions through `handler`; any other method or path gets 404. */
export async function startChatCompletionsServer(handler: ChatHandler): Promise<ChatCompletionsServer> {
  const requests: ChatRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const closed = new Promise<void>((resolve) => res.on("close", () => resolve()));
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const rawBody = Buffer.concat(chunks).toString("utf8");
        let body: ChatRequest["body"];
        try {
          body = JSON.parse(rawBody) as ChatRequest["body"];
        } catch {
          body = undefined;
        }
        const request: ChatRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, rawBody, body, closed };
        requests.push(request);

        let reply: ChatReply;
        if (request.method !== "POST" || request.path !== CHAT_COMPLETIONS_PATH) {
          reply = { status: 404, body: JSON.stringify({ error: { message: "not found" } }) };
        } else {
          try {
            reply = await handler(request);
          } catch (error) {
            reply = { status: 500, body: JSON.stringify({ error: { message: String(error) } }) };
          }
        }
        if (res.destroyed || res.writableEnded) return; // the caller gave up
        if ("content" in reply) {
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify(chatCompletion(reply.content, typeof body?.model === "string" ? body.model : undefined)));
        } else {
          res.writeHead(reply.status, { "content-type": reply.contentType ?? "application/json" }).end(reply.body);
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${CHAT_COMPLETIONS_PATH}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
