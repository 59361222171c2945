import { describe, expect, it } from "vitest";
import { isFailingStatusKey, STATUS_KEY_RE, statusKey } from "../grpc/grpc-status.js";
import { protoClosure, protoImports } from "../grpc/proto-imports.js";
import { issuesOf } from "../test-support/scenario-issues.js";
import { parseScenario } from "./parse-scenario.js";
import { requestName } from "./scenario-names.js";

const call = {
  proto: "protos/greeter.proto",
  method: "helloworld.Greeter/SayHello",
  message: { name: "u{{vu}}" },
};

function scenario(requests: unknown[], target = "grpc://127.0.0.1:50051") {
  return { name: "g", target, load: { executor: "per-vu-iterations", vus: 1, iterations: 1 }, requests };
}

describe("grpc requests", () => {
  it("parse against a grpc:// or grpcs:// target, named by their method, statuses as codes", () => {
    const parsed = parseScenario(
      scenario([
        {
          grpc: { ...call, metadata: { "x-id": "{{vu}}" } },
          expect: { grpcStatus: ["OK", "not_found", 14] },
        },
      ]),
    );
    expect(requestName(parsed.requests[0])).toBe("helloworld.Greeter/SayHello");
    expect(parsed.requests[0].expect?.grpcStatus).toEqual([0, 5, 14]);
    expect(parseScenario({ ...scenario([{ grpc: call }]), target: "grpcs://api.example.com" }).target).toBe(
      "grpcs://api.example.com",
    );
  });

  it("name the field of each problem", () => {
    expect(issuesOf(scenario([{ grpc: call }], "http://127.0.0.1:1"))).toEqual([
      { path: "requests[0].grpc", message: "a grpc request needs a grpc:// or grpcs:// target" },
    ]);
    expect(issuesOf(scenario([{ path: "/x" }]))[0]).toMatchObject({ path: "requests[0].grpc" });
    expect(issuesOf(scenario([{ grpc: call, body: "x", method: "POST" }])).map((i) => i.path)).toEqual([
      "requests[0].body",
      "requests[0].method",
    ]);
    expect(issuesOf(scenario([{ path: "/x", expect: { grpcStatus: "OK" } }], "http://h"))[0]).toMatchObject({
      path: "requests[0].expect.grpcStatus",
    });
    expect(issuesOf(scenario([{ grpc: call, expect: { grpcStatus: "NOPE" } }]))[0].message).toContain(
      '"NOPE" is not a gRPC status',
    );
    expect(issuesOf(scenario([{ grpc: { ...call, proto: "/etc/x.proto" } }]))[0].path).toBe(
      "requests[0].grpc.proto",
    );
    expect(issuesOf(scenario([{ grpc: { ...call, method: "SayHello" } }]))[0].path).toBe(
      "requests[0].grpc.method",
    );
    expect(issuesOf(scenario([{ grpc: { ...call, metadata: { "X-Up": "a" } } }]))[0].path).toBe(
      "requests[0].grpc.metadata.X-Up",
    );
    expect(issuesOf(scenario([{ grpc: { ...call, message: { n: "{{nobody}}" } } }]))[0].path).toBe(
      "requests[0].grpc.message",
    );
    expect(issuesOf({ ...scenario([{ grpc: call }]), target: "ftp://h" })[0].message).toContain("grpc://");
  });
});

describe("status keys", () => {
  it("keep HTTP codes as they are and gRPC statuses as grpc:NAME", () => {
    expect(statusKey(200)).toBe("200");
    expect(statusKey(1000)).toBe("grpc:OK");
    expect(statusKey(1014)).toBe("grpc:UNAVAILABLE");
    expect(["200", "grpc:OK", "grpc:DATA_LOSS"].every((k) => STATUS_KEY_RE.test(k))).toBe(true);
    expect(["20", "grpc:NOPE", "grpc:ok"].some((k) => STATUS_KEY_RE.test(k))).toBe(false);
    expect(["404", "grpc:NOT_FOUND"].every(isFailingStatusKey)).toBe(true);
    expect(["204", "grpc:OK"].some(isFailingStatusKey)).toBe(false);
  });
});

describe("proto imports", () => {
  it("are read past comments, and found beside the importer, then beside the entry, then as written", () => {
    expect(
      protoImports(
        '// import "no.proto";\n/* import "nor.proto"; */\nimport "a.proto";\nimport public \'b/c.proto\';',
      ),
    ).toEqual(["a.proto", "b/c.proto"]);
    const files: Record<string, string> = {
      "api/main.proto": 'import "common/types.proto";\nimport "google/protobuf/empty.proto";',
      "api/common/types.proto": 'import "shared.proto";',
      "shared.proto": "",
    };
    const closure = protoClosure("api/./main.proto", (name) => files[name] ?? null);
    expect(Object.keys(closure.files)).toEqual(["api/main.proto", "api/common/types.proto", "shared.proto"]);
    expect(closure.missing).toEqual([]);
    expect(
      protoClosure("api/common/types.proto", (name) =>
        name === "shared.proto" ? null : (files[name] ?? null),
      ).missing,
    ).toEqual([{ importer: "api/common/types.proto", imported: "shared.proto" }]);
  });
});
