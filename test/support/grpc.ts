// Calls through a real @grpc/grpc-js client, encoding with the generated protobuf-es
// schemas: the interop proof that our h2c listener speaks plain gRPC.

import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import {
  WatchRaceLiveRequestSchema,
  WatchRaceLiveResponseSchema,
  type WatchRaceLiveRequest,
  type WatchRaceLiveResponse,
} from "../../gen/racing/v1/race_live_pb.js";

export function grpcClient(url: string): grpc.Client {
  return new grpc.Client(url.replace(/^http:\/\//, ""), grpc.credentials.createInsecure());
}

/** Sends all requests on one bidi stream, half-closes, and collects every response. */
export function bidi<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  path: string,
  input: I,
  output: O,
  requests: MessageInitShape<I>[],
): Promise<MessageShape<O>[]> {
  return new Promise((resolve, reject) => {
    const responses: MessageShape<O>[] = [];
    const call = client.makeBidiStreamRequest(
      path,
      (message: MessageShape<I>) => Buffer.from(toBinary(input, message)),
      (bytes: Buffer) => fromBinary(output, bytes),
    );
    call.on("data", (message: MessageShape<O>) => responses.push(message));
    call.on("error", reject);
    call.on("end", () => resolve(responses));
    for (const request of requests) call.write(create(input, request));
    call.end();
  });
}

/** A bidi call driven step by step: write, read the next response, half-close, and how it ended. */
export interface BidiCall<I extends DescMessage, O extends DescMessage> {
  write(request: MessageInitShape<I>): void;
  /** Writes bytes as one message as they are: for messages that do not decode. */
  writeRaw(bytes: Buffer): void;
  /** The next response; rejects when the call ends before one comes. */
  next(): Promise<MessageShape<O>>;
  end(): void;
  /** Resolves when the call ends: null for OK, else grpc-js's ServiceError. */
  readonly ended: Promise<grpc.ServiceError | null>;
}

export function openBidi<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  path: string,
  input: I,
  output: O,
  metadata: grpc.Metadata = new grpc.Metadata(),
): BidiCall<I, O> {
  const call = client.makeBidiStreamRequest(
    path,
    (message: MessageShape<I> | Buffer) => (Buffer.isBuffer(message) ? message : Buffer.from(toBinary(input, message))),
    (bytes: Buffer) => fromBinary(output, bytes),
    metadata,
  );
  const received: MessageShape<O>[] = [];
  const waiting: Array<{ resolve: (m: MessageShape<O>) => void; reject: (e: Error) => void }> = [];
  let outcome: grpc.ServiceError | null | undefined;
  const ended = new Promise<grpc.ServiceError | null>((resolve) => {
    call.on("error", (error: grpc.ServiceError) => {
      outcome = error;
      resolve(error);
    });
    call.on("status", (status: grpc.StatusObject) => {
      if (status.code === grpc.status.OK) {
        outcome = null;
        resolve(null);
      }
    });
  });
  void ended.then(() => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the call ended: ${outcome?.message ?? "OK"}`));
  });
  call.on("data", (message: MessageShape<O>) => {
    const w = waiting.shift();
    if (w) w.resolve(message);
    else received.push(message);
  });
  return {
    write: (request) => call.write(create(input, request)),
    writeRaw: (bytes) => call.write(bytes),
    next: () => {
      const message = received.shift();
      if (message) return Promise.resolve(message);
      if (outcome !== undefined) return Promise.reject(new Error(`the call ended: ${outcome?.message ?? "OK"}`));
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    end: () => call.end(),
    ended,
  };
}

/** One unary call; resolves with the response or rejects with grpc-js's ServiceError. */
export function unary<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  path: string,
  input: I,
  output: O,
  request: MessageInitShape<I>,
  metadata: grpc.Metadata = new grpc.Metadata(),
): Promise<MessageShape<O>> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      path,
      (message: MessageShape<I>) => Buffer.from(toBinary(input, message)),
      (bytes: Buffer) => fromBinary(output, bytes),
      create(input, request),
      metadata,
      (error, response) => (error ? reject(error) : resolve(response!)),
    );
  });
}

/** A WatchRaceLive call whose messages nobody reads: for counting what watchers cost. */
export function watchLive(client: grpc.Client, token: string, raceId: string): grpc.ClientReadableStream<WatchRaceLiveResponse> {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  const call = client.makeServerStreamRequest(
    "/racing.v1.RaceLiveService/WatchRaceLive",
    (message: WatchRaceLiveRequest) => Buffer.from(toBinary(WatchRaceLiveRequestSchema, message)),
    (bytes: Buffer) => fromBinary(WatchRaceLiveResponseSchema, bytes),
    create(WatchRaceLiveRequestSchema, { raceId }),
    metadata,
  );
  // A cancelled call reports CANCELLED: expected, not a failure.
  call.on("error", () => {});
  call.on("data", () => {});
  return call;
}
