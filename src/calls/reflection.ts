// gRPC server reflection (grpc.reflection.v1 and v1alpha) for the services a router serves,
// answered from the generated descriptors, so `buf curl` and `grpcurl` need no .proto files.
// Hand-written because Connect-ES has no reflection package on npm.
import {
  create,
  fromBinary,
  toBinary,
  type DescEnum,
  type DescExtension,
  type DescFile,
  type DescMessage,
  type DescService,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";

type ReflectionRequest = v1.ServerReflectionRequest;
type ReflectionResponse = v1.ServerReflectionResponse;
type Answer = ReflectionResponse["messageResponse"];

/**
 * Serves both reflection versions on `router`, listing `services` and the reflection
 * services themselves (as grpc-go and grpc-java servers do).
 */
export function registerReflection(router: ConnectRouter, services: readonly DescService[]): void {
  const index = new ReflectionIndex([...services, v1.ServerReflection, v1alpha.ServerReflection]);
  router.service(v1.ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) yield index.answer(request);
    },
  });
  router.service(v1alpha.ServerReflection, {
    async *serverReflectionInfo(requests) {
      // v1alpha is v1 under another package name: same fields, same wire format.
      for await (const request of requests) {
        const asV1 = fromBinary(v1.ServerReflectionRequestSchema, toBinary(v1alpha.ServerReflectionRequestSchema, request));
        yield fromBinary(v1alpha.ServerReflectionResponseSchema, toBinary(v1.ServerReflectionResponseSchema, index.answer(asV1)));
      }
    },
  });
}

/** Every file, symbol and extension reachable from the served services, by name. */
class ReflectionIndex {
  private readonly serviceNames: string[];
  private readonly files = new Map<string, DescFile>();
  private readonly symbols = new Map<string, DescFile>();
  private readonly messageNames = new Set<string>();
  private readonly extensionsOf = new Map<string, DescExtension[]>();
  private readonly encoded = new Map<DescFile, Uint8Array>();

  constructor(services: readonly DescService[]) {
    this.serviceNames = [...new Set(services.map((s) => s.typeName))];
    for (const service of services) {
      for (const file of withDependencies(service.file)) this.addFile(file);
    }
  }

  answer(request: ReflectionRequest): ReflectionResponse {
    return create(v1.ServerReflectionResponseSchema, {
      validHost: request.host,
      originalRequest: request,
      messageResponse: this.answerFor(request.messageRequest),
    });
  }

  private answerFor(query: ReflectionRequest["messageRequest"]): Answer {
    switch (query.case) {
      case "listServices":
        return {
          case: "listServicesResponse",
          value: create(v1.ListServiceResponseSchema, {
            service: this.serviceNames.map((name) => ({ name })),
          }),
        };
      case "fileByFilename":
        return this.fileAnswer(this.files.get(query.value), `file not found: ${query.value}`);
      case "fileContainingSymbol":
        return this.fileAnswer(this.symbols.get(query.value), `symbol not found: ${query.value}`);
      case "fileContainingExtension": {
        const { containingType, extensionNumber } = query.value;
        const extension = this.extensionsOf.get(containingType)?.find((e) => e.number === extensionNumber);
        return this.fileAnswer(extension?.file, `extension not found: ${containingType} ${extensionNumber}`);
      }
      case "allExtensionNumbersOfType":
        // A known type without extensions is an empty list; only an unknown type is an error.
        if (!this.messageNames.has(query.value)) {
          return errorAnswer(Code.NotFound, `type not found: ${query.value}`);
        }
        return {
          case: "allExtensionNumbersResponse",
          value: create(v1.ExtensionNumberResponseSchema, {
            baseTypeName: query.value,
            extensionNumber: (this.extensionsOf.get(query.value) ?? []).map((e) => e.number),
          }),
        };
      default:
        return errorAnswer(Code.InvalidArgument, "no message_request set");
    }
  }

  // Sends the whole dependency closure every time: clients resolve imports from the
  // response, and resending a few small files is cheaper than tracking per stream.
  private fileAnswer(file: DescFile | undefined, notFound: string): Answer {
    if (!file) return errorAnswer(Code.NotFound, notFound);
    return {
      case: "fileDescriptorResponse",
      value: create(v1.FileDescriptorResponseSchema, {
        fileDescriptorProto: withDependencies(file).map((f) => this.encode(f)),
      }),
    };
  }

  private encode(file: DescFile): Uint8Array {
    let bytes = this.encoded.get(file);
    if (!bytes) {
      bytes = toBinary(FileDescriptorProtoSchema, file.proto);
      this.encoded.set(file, bytes);
    }
    return bytes;
  }

  private addFile(file: DescFile): void {
    this.files.set(file.proto.name, file);
    const pkg = file.proto.package;
    for (const service of file.services) {
      this.symbols.set(service.typeName, file);
      for (const method of service.methods) this.symbols.set(`${service.typeName}.${method.name}`, file);
    }
    for (const message of file.messages) this.addMessage(message);
    for (const e of file.enums) this.addEnum(e, pkg);
    for (const extension of file.extensions) this.addExtension(extension);
  }

  private addMessage(message: DescMessage): void {
    this.symbols.set(message.typeName, message.file);
    this.messageNames.add(message.typeName);
    for (const member of [...message.fields, ...message.oneofs]) {
      this.symbols.set(`${message.typeName}.${member.name}`, message.file);
    }
    for (const nested of message.nestedMessages) this.addMessage(nested);
    for (const e of message.nestedEnums) this.addEnum(e, message.typeName);
    for (const extension of message.nestedExtensions) this.addExtension(extension);
  }

  // Enum values are siblings of their enum in protobuf scoping (racing.v1.START_GROUP_STATE_STARTED).
  private addEnum(e: DescEnum, scope: string): void {
    this.symbols.set(e.typeName, e.file);
    for (const value of e.values) this.symbols.set(scope ? `${scope}.${value.name}` : value.name, e.file);
  }

  private addExtension(extension: DescExtension): void {
    this.symbols.set(extension.typeName, extension.file);
    const extendee = extension.extendee.typeName;
    this.extensionsOf.set(extendee, [...(this.extensionsOf.get(extendee) ?? []), extension]);
  }
}

/** The file first, then everything it imports, transitively, each once. */
function withDependencies(file: DescFile): DescFile[] {
  const seen = new Set<DescFile>();
  const visit = (f: DescFile): void => {
    if (seen.has(f)) return;
    seen.add(f);
    f.dependencies.forEach(visit);
  };
  visit(file);
  return [...seen];
}

function errorAnswer(code: Code, message: string): Answer {
  return {
    case: "errorResponse",
    value: create(v1.ErrorResponseSchema, { errorCode: code, errorMessage: message }),
  };
}
