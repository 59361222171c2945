import type { ThinkTime } from "@volley/protocol";
import type { RequestRecorder } from "@volley/stats";
import type { FeederSet } from "../feeders/feeder.js";
import type { GrpcChannels } from "../grpc/grpc-channels.js";
import type { RequestDispatcher } from "../http/dispatcher.js";
import type { TraceIds } from "../http/trace-ids.js";
import type { ConnectionSettings } from "../network/connection-settings.js";
import type { CompiledRequest } from "../scenario/compiled-request.js";
import type { ConnectionGate } from "./connection-gate.js";
import type { EngineFlow } from "./flow-cursor.js";
import type { SessionSettings } from "./http-session.js";

export interface VuOrigin {
  dispatcher: RequestDispatcher;
  /** Admits requests into the dispatcher up to its connections. */
  gate: ConnectionGate;
  host: string;
  https: boolean;
}

/** What every VU of a thread shares: the compiled requests, the pool and the recorders. */
export interface VuContext {
  requests: CompiledRequest[];
  /** Recorder of each request, by request index (requests with one name share one). */
  recorders: RequestRecorder[];
  /** By origin index: the pool, the gate that admits requests into it, and where it is. */
  origins: VuOrigin[];
  worker: string;
  /** The run's feeders in this thread. */
  feeders: FeederSet;
  /** Indexes of the feeders this part's iterations take one row each from. */
  feederPicks: number[];
  thinkTime: ThinkTime;
  /** Whether thinkTime ever pauses (skips the draw when not). */
  thinks: boolean;
  /** The scenario's flows (one without `flows`), with cumulative weights. */
  flows: EngineFlow[];
  /** A recorder per group, by group index. */
  groupRecorders: RequestRecorder[];
  /** Every request name's recorder (a `ws:` request's exchanges are found here by name). */
  namedRecorders: ReadonlyMap<string, RequestRecorder>;
  /** The thread's gRPC channels (one per VU and target). */
  grpc: GrpcChannels;
  /** How sockets connect (hosts, DNS, TLS): for wss:// sockets; HTTP pools and gRPC have it already. */
  network: ConnectionSettings;
  /** Cookies, redirects and compression. */
  session: SessionSettings;
  /** Most body bytes kept for captures and expectations. */
  maxBodyBytes: number;
  /** Requests of a `parallel` step in flight at once (http.maxConnectionsPerVu). */
  maxInFlightPerVu: number;
  /** The thread's `traceparent` values when the scenario has `http.tracing`, else null. */
  tracing: TraceIds | null;
}
