// One log line per request, written when its answer is out: method, URL, status and
// time, the access log an operator reads. Fastify's default writes two (one when the
// request comes in, without its outcome); at 2,000 clients that was 2,000 lines a
// second per instance that said nothing the second line did not.

import { LogController, type FastifyReply, type FastifyRequest } from "fastify";

export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, "request errored");
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
  }
}
