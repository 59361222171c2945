import { ProtoError, ProtoPackage } from "@volley/engine/grpc-protos";
import {
  formatPath,
  MAX_PROTO_BYTES,
  MAX_PROTO_FILES,
  protoClosure,
  type Scenario,
  type ValidationIssue,
} from "@volley/protocol";

/**
 * The .proto files a run takes (base64, by name as the scenario names them): each `grpc:`
 * request's proto and its imports, checked to load and to hold the request's method; and for a
 * scripted run, every .proto it was sent (a script names its protos in code), checked to load.
 */
export function runProtos(
  scenario: Scenario,
  attachments: Readonly<Record<string, string>>,
): { protos: Record<string, string>; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const protos: Record<string, string> = {};
  const texts = new Map<string, string>();
  const tooLarge = new Set<string>();
  const read = (name: string): string | null => {
    if (!Object.hasOwn(attachments, name) || !name.endsWith(".proto")) return null;
    if ((attachments[name].length * 3) / 4 > MAX_PROTO_BYTES + 3) {
      tooLarge.add(name);
      return null;
    }
    let text = texts.get(name);
    if (text === undefined) {
      text = Buffer.from(attachments[name], "base64").toString("utf8");
      texts.set(name, text);
    }
    return text;
  };
  // Each proto is followed and loaded once, however many requests name it; its problems are
  // named at the first of them.
  const loaded = new Map<string, ProtoPackage | null>();
  const take = (entry: string, path: string): ProtoPackage | null => {
    if (!loaded.has(entry)) loaded.set(entry, load(entry, path));
    return loaded.get(entry) ?? null;
  };
  const load = (entry: string, path: string): ProtoPackage | null => {
    const closure = protoClosure(entry, read);
    for (const { importer, imported } of closure.missing) {
      const large = [...tooLarge].find((name) => name === imported || name.endsWith(`/${imported}`));
      issues.push({
        path,
        message: large
          ? `${large} is larger than ${MAX_PROTO_BYTES / 1024 / 1024} MiB`
          : importer === ""
            ? `${imported} was not sent with the scenario (volley run sends it; the API takes it in "attachments", base64)`
            : `${importer} imports "${imported}", which was not sent with the scenario`,
      });
    }
    if (closure.missing.length > 0) return null;
    for (const name of Object.keys(closure.files)) protos[name] = attachments[name];
    try {
      return ProtoPackage.load(closure.files, entry);
    } catch (error) {
      if (!(error instanceof ProtoError)) throw error;
      issues.push({ path, message: error.message });
      return null;
    }
  };
  scenario.requests.forEach((request, index) => {
    if (request.grpc === undefined) return;
    const at = formatPath(scenario.requestPaths[index]);
    const proto = take(request.grpc.proto, `${at}.grpc.proto`);
    if (proto === null) return;
    try {
      proto.method(request.grpc.method);
    } catch (error) {
      if (!(error instanceof ProtoError)) throw error;
      issues.push({ path: `${at}.grpc.method`, message: error.message });
    }
  });
  if (scenario.parts.some((part) => part.script !== null)) {
    for (const name of Object.keys(attachments)) {
      if (name.endsWith(".proto") && !Object.hasOwn(protos, name)) take(name, `attachments.${name}`);
    }
  }
  if (Object.keys(protos).length > MAX_PROTO_FILES) {
    issues.push({
      path: "attachments",
      message: `at most ${MAX_PROTO_FILES} .proto files travel with a run`,
    });
  }
  return { protos, issues };
}
