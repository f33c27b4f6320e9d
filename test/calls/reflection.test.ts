// gRPC server reflection and the gRPC surface of the routes, through a real h2c listener
// and a real @grpc/grpc-js client (the interop proof for buf curl and grpcurl).
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { fromBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { GetRaceLiveRequestSchema, GetRaceLiveResponseSchema } from "../../gen/racing/v1/race_live_pb.js";
import { registerReflection } from "../../src/calls/reflection.js";
import { racingServices } from "../../src/calls/connect-routes.js";
import { bidi, grpcClient, unary } from "../support/grpc.js";

const RACING_SERVICES = [
  "racing.v1.EventService",
  "racing.v1.IngestService",
  "racing.v1.LiveInsightsService",
  "racing.v1.RaceAnalyticsService",
  "racing.v1.RaceLiveService",
  "racing.v1.ResultsService",
  "racing.v1.ScopeService",
  "racing.v1.TrackService",
];
const REFLECTION_SERVICES = ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"];

let server: http2.Http2Server;
let client: grpc.Client;

beforeAll(async () => {
  server = http2.createServer(
    connectNodeAdapter({
      // Reflection only needs the services' descriptors; none of them is implemented here.
      routes: (router) => {
        for (const service of racingServices) router.service(service, {});
        registerReflection(router, racingServices);
      },
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  client = grpcClient(`127.0.0.1:${port}`);
});

afterAll(async () => {
  client.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function reflectV1(requests: MessageInitShape<typeof v1.ServerReflectionRequestSchema>[]): Promise<v1.ServerReflectionResponse[]> {
  return bidi(
    client,
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    v1.ServerReflectionRequestSchema,
    v1.ServerReflectionResponseSchema,
    requests,
  );
}

function decodedFiles(response: v1.ServerReflectionResponse | undefined): FileDescriptorProto[] {
  if (response?.messageResponse.case !== "fileDescriptorResponse") {
    throw new Error(`expected a file descriptor response, got ${response?.messageResponse.case}`);
  }
  return response.messageResponse.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
}

describe("grpc.reflection.v1.ServerReflection", () => {
  it("lists the racing services and the reflection services", async () => {
    const [response] = await reflectV1([{ host: "api.test", messageRequest: { case: "listServices", value: "" } }]);

    expect(response?.validHost).toBe("api.test");
    expect(response?.originalRequest?.messageRequest.case).toBe("listServices");
    expect(response?.messageResponse.case).toBe("listServicesResponse");
    const names =
      response?.messageResponse.case === "listServicesResponse" ? response.messageResponse.value.service.map((s) => s.name) : [];
    expect(names.sort()).toEqual([...REFLECTION_SERVICES, ...RACING_SERVICES].sort());
  });

  it("answers file_containing_symbol with the file and all its dependencies", async () => {
    const [response] = await reflectV1([{ messageRequest: { case: "fileContainingSymbol", value: "racing.v1.RaceLiveService" } }]);

    const files = decodedFiles(response);
    const names = files.map((f) => f.name);
    expect(names[0]).toBe("racing/v1/race_live.proto");
    expect(names).toContain("google/protobuf/timestamp.proto");
    expect(names).toContain("racing/v1/common.proto");
    // Every import is answered in the same response, so a client can link the file.
    for (const file of files) {
      for (const dependency of file.dependency) expect(names).toContain(dependency);
    }

    const raceLive = files[0];
    expect(raceLive?.package).toBe("racing.v1");
    const service = raceLive?.service.find((s) => s.name === "RaceLiveService");
    expect(service?.method.map((m) => [m.name, m.inputType, m.outputType])).toEqual([
      ["GetRaceLive", ".racing.v1.GetRaceLiveRequest", ".racing.v1.GetRaceLiveResponse"],
      ["WatchRaceLive", ".racing.v1.WatchRaceLiveRequest", ".racing.v1.WatchRaceLiveResponse"],
    ]);
    expect(service?.method.find((m) => m.name === "WatchRaceLive")?.serverStreaming).toBe(true);
  });

  it("lists IngestService.PushFixes as a two-way stream, with the google.rpc file its answer imports", async () => {
    const [response] = await reflectV1([{ messageRequest: { case: "fileContainingSymbol", value: "racing.v1.IngestService.PushFixes" } }]);
    const files = decodedFiles(response);
    expect(files[0]?.name).toBe("racing/v1/ingest.proto");
    expect(files.map((f) => f.name)).toContain("google/rpc/error_details.proto");
    const push = files[0]?.service.find((s) => s.name === "IngestService")?.method.find((m) => m.name === "PushFixes");
    expect([push?.inputType, push?.outputType, push?.clientStreaming, push?.serverStreaming]).toEqual([
      ".racing.v1.PushFixesRequest",
      ".racing.v1.PushFixesResponse",
      true,
      true,
    ]);
  });

  it("resolves methods, messages, enums, enum values and file names on one stream", async () => {
    const queries: Array<[MessageInitShape<typeof v1.ServerReflectionRequestSchema>, string]> = [
      [{ messageRequest: { case: "fileContainingSymbol", value: "racing.v1.TrackService.GetTrackPage" } }, "racing/v1/track.proto"],
      [{ messageRequest: { case: "fileContainingSymbol", value: "racing.v1.LiveOrderRow" } }, "racing/v1/race_live.proto"],
      [{ messageRequest: { case: "fileContainingSymbol", value: "racing.v1.InsightKind" } }, "racing/v1/live_insights.proto"],
      [{ messageRequest: { case: "fileContainingSymbol", value: "racing.v1.START_GROUP_STATE_STARTED" } }, "racing/v1/common.proto"],
      [{ messageRequest: { case: "fileContainingSymbol", value: "google.protobuf.Timestamp" } }, "google/protobuf/timestamp.proto"],
      [{ messageRequest: { case: "fileByFilename", value: "racing/v1/event.proto" } }, "racing/v1/event.proto"],
    ];

    const responses = await reflectV1(queries.map(([request]) => request));

    expect(responses.map((r) => decodedFiles(r)[0]?.name)).toEqual(queries.map(([, file]) => file));
  });

  it("answers an unknown symbol with error_response NOT_FOUND", async () => {
    const [response] = await reflectV1([{ messageRequest: { case: "fileContainingSymbol", value: "racing.v1.NoSuchService" } }]);

    expect(response?.messageResponse.case).toBe("errorResponse");
    const error = response?.messageResponse.case === "errorResponse" ? response.messageResponse.value : undefined;
    expect(error?.errorCode).toBe(5);
    expect(error?.errorMessage).toContain("racing.v1.NoSuchService");
  });

  it("answers extension queries as upstream servers do", async () => {
    const [numbers, unknownType, extension] = await reflectV1([
      { messageRequest: { case: "allExtensionNumbersOfType", value: "racing.v1.TrackBoat" } },
      { messageRequest: { case: "allExtensionNumbersOfType", value: "racing.v1.Nope" } },
      {
        messageRequest: {
          case: "fileContainingExtension",
          value: { containingType: "racing.v1.TrackBoat", extensionNumber: 100 },
        },
      },
    ]);

    expect(numbers?.messageResponse).toMatchObject({
      case: "allExtensionNumbersResponse",
      value: { baseTypeName: "racing.v1.TrackBoat", extensionNumber: [] },
    });
    expect(unknownType?.messageResponse).toMatchObject({ case: "errorResponse", value: { errorCode: 5 } });
    expect(extension?.messageResponse).toMatchObject({ case: "errorResponse", value: { errorCode: 5 } });
  });
});

describe("grpc.reflection.v1alpha.ServerReflection", () => {
  it("lists the services too", async () => {
    const [response] = await bidi(
      client,
      "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
      v1alpha.ServerReflectionRequestSchema,
      v1alpha.ServerReflectionResponseSchema,
      [{ messageRequest: { case: "listServices", value: "*" } }],
    );

    expect(response?.$typeName).toBe("grpc.reflection.v1alpha.ServerReflectionResponse");
    expect(response?.originalRequest?.messageRequest).toEqual({ case: "listServices", value: "*" });
    const names =
      response?.messageResponse.case === "listServicesResponse" ? response.messageResponse.value.service.map((s) => s.name) : [];
    expect(names.sort()).toEqual([...REFLECTION_SERVICES, ...RACING_SERVICES].sort());
  });
});

describe("racing.v1 services over gRPC", () => {
  it("routes GetRaceLive to the server, which answers UNIMPLEMENTED until it has a handler", async () => {
    const error = await unary(client, "/racing.v1.RaceLiveService/GetRaceLive", GetRaceLiveRequestSchema, GetRaceLiveResponseSchema, {
      raceId: "00000000-0000-4000-8000-000000000000",
    }).then(
      () => null,
      (e: grpc.ServiceError) => e,
    );

    expect(error?.code).toBe(grpc.status.UNIMPLEMENTED);
    // An unknown path is UNIMPLEMENTED as well; the message tells the two apart.
    expect(error?.details).toContain("GetRaceLive is not implemented");
  });
});
