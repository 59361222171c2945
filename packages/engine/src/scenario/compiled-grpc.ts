import type { RequestConfig } from "@volley/protocol";
import { type GrpcMethod, ProtoPackage } from "../grpc/proto-package.js";
import { CompiledTemplate, type TemplateContext, type TemplateEnvironment } from "./compiled-template.js";

/** A `grpc:` request prepared for the VUs: its method, message (templates inside) and metadata. */
export interface CompiledGrpc {
  /** grpc://host:port or grpcs://host:port: the scenario's target. */
  target: string;
  method: GrpcMethod;
  /** The message as JSON text with templates (rendered, then parsed, per call); null when fixed. */
  message: CompiledTemplate | null;
  /** The message when it has no template: one object for every call. */
  staticMessage: object | null;
  metadataNames: string[];
  metadataValues: CompiledTemplate[];
  /** Status codes that count as success (`expect.grpcStatus`, else OK). */
  expected: number[];
  timeoutMs: number;
}

/** The protos a thread was sent, each loaded once (a proto and its imports, from memory). */
export class ProtoPackages {
  private readonly loaded = new Map<string, ProtoPackage>();
  private readonly texts: Record<string, string> = {};

  constructor(files: Readonly<Record<string, Buffer>>) {
    for (const [name, bytes] of Object.entries(files))
      if (name.endsWith(".proto")) this.texts[name] = bytes.toString("utf8");
  }

  get(entry: string): ProtoPackage {
    let proto = this.loaded.get(entry);
    if (proto === undefined) {
      proto = ProtoPackage.load(this.texts, entry);
      this.loaded.set(entry, proto);
    }
    return proto;
  }
}

export function compileGrpc(
  request: RequestConfig & { grpc: NonNullable<RequestConfig["grpc"]> },
  target: string,
  defaultTimeoutMs: number,
  protos: ProtoPackages,
  environment?: TemplateEnvironment,
): CompiledGrpc {
  const message = new CompiledTemplate(JSON.stringify(request.grpc.message), "json", environment);
  const metadata = Object.entries(request.grpc.metadata ?? {});
  return {
    target,
    method: protos.get(request.grpc.proto).method(request.grpc.method),
    message: message.isStatic ? null : message,
    staticMessage: message.isStatic ? request.grpc.message : null,
    metadataNames: metadata.map(([name]) => name),
    metadataValues: metadata.map(([, value]) => new CompiledTemplate(value, "none", environment)),
    expected: request.expect?.grpcStatus ?? [0],
    timeoutMs: request.timeout ?? defaultTimeoutMs,
  };
}

/** The request message for one call. */
export function grpcMessage(grpc: CompiledGrpc, context: TemplateContext): object {
  return grpc.staticMessage ?? (JSON.parse((grpc.message as CompiledTemplate).render(context)) as object);
}

/** The metadata for one call. */
export function grpcMetadata(grpc: CompiledGrpc, context: TemplateContext): Record<string, string> {
  const metadata: Record<string, string> = {};
  grpc.metadataNames.forEach((name, i) => {
    metadata[name] = grpc.metadataValues[i].render(context);
  });
  return metadata;
}
