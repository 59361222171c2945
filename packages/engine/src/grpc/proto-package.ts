import type {
  AnyDefinition,
  MethodDefinition,
  PackageDefinition,
  ServiceDefinition,
} from "@grpc/proto-loader";
import { isBundledProto, normalizeProtoName, protoClosure, protoImports } from "@volley/protocol";
import { grpcLibraries } from "./grpc-library.js";

/** A proto that cannot be used: a missing import, a syntax error, an unknown method. */
export class ProtoError extends Error {}

/** How messages convert to and from JSON-like objects (as grpcurl and k6 show them). */
const CONVERSION = {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: String,
  defaults: true,
  oneofs: true,
};

/** A method of a loaded proto: its path on the wire and its shape. */
export type GrpcMethod = MethodDefinition<object, object> & { name: string };

/**
 * A .proto and its imports, loaded from memory (the files that travelled with the run, by the
 * names protocol's `protoClosure` gives them): nothing is read from the worker's disk.
 */
export class ProtoPackage {
  private constructor(private readonly definition: PackageDefinition) {}

  static load(files: Readonly<Record<string, string>>, entry: string): ProtoPackage {
    const { protobuf, protoLoader } = grpcLibraries();
    const closure = protoClosure(entry, (name) => (Object.hasOwn(files, name) ? files[name] : null));
    const [missing] = closure.missing;
    if (missing) {
      throw new ProtoError(
        missing.importer === ""
          ? `${missing.imported} was not sent with the run`
          : `${missing.importer} imports "${missing.imported}", which was not sent with the run`,
      );
    }
    const root = new protobuf.Root();
    const bundled = new Set<string>();
    for (const [name, text] of Object.entries(closure.files)) {
      for (const imported of protoImports(text)) if (isBundledProto(imported)) bundled.add(imported);
      try {
        protobuf.parse(text, root, { keepCase: true });
      } catch (error) {
        throw new ProtoError(`${name}: ${(error as Error).message}`);
      }
    }
    for (const name of bundled) {
      const json = protobuf.common.get(name);
      if (json === null)
        throw new ProtoError(`${normalizeProtoName(entry)} imports "${name}", which protobuf does not ship`);
      root.addJSON((json as { nested: Record<string, protobuf.AnyNestedObject> }).nested);
    }
    try {
      root.resolveAll();
      return new ProtoPackage(protoLoader.fromJSON(root.toJSON(), CONVERSION));
    } catch (error) {
      throw new ProtoError(`${normalizeProtoName(entry)}: ${(error as Error).message}`);
    }
  }

  /** `package.Service/Method`, or a ProtoError naming the services (or methods) there are. */
  method(name: string): GrpcMethod {
    const slash = name.lastIndexOf("/");
    const serviceName = name.slice(0, slash);
    const methodName = name.slice(slash + 1);
    const service = Object.hasOwn(this.definition, serviceName) ? this.definition[serviceName] : undefined;
    if (service === undefined || isTypeDefinition(service)) {
      const services = Object.entries(this.definition)
        .filter(([, definition]) => !isTypeDefinition(definition))
        .map(([n]) => n);
      throw new ProtoError(
        `no service ${serviceName} in the proto (services: ${services.join(", ") || "none"})`,
      );
    }
    const methods = service as ServiceDefinition;
    const method = Object.hasOwn(methods, methodName) ? methods[methodName] : undefined;
    if (method === undefined) {
      throw new ProtoError(
        `${serviceName} has no method ${methodName} (methods: ${Object.keys(service).join(", ")})`,
      );
    }
    return { ...method, name };
  }
}

/** A message or enum (they carry a `format`); services do not. */
function isTypeDefinition(definition: AnyDefinition): boolean {
  return typeof (definition as { format?: unknown }).format === "string";
}
