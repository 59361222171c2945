import { messageKind, type RequestSummary, scopedName } from "@volley/protocol";
import { formatBytes, formatCount } from "../../format/format.js";

/**
 * Messages both ways under each name that carried some: a WebSocket handshake's sockets, a gRPC
 * streaming call's streams; with how many were opened and their bytes.
 */
export function Messages({ requests }: { requests: readonly RequestSummary[] }) {
  const carriers = requests.filter((r) => r.ws);
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="messages">
        <thead>
          <tr>
            <th>Name</th>
            <th className="left">Kind</th>
            <th>Opened</th>
            <th>Sent</th>
            <th>Received</th>
            <th>Bytes out</th>
            <th>Bytes in</th>
          </tr>
        </thead>
        <tbody>
          {carriers.map((r) => (
            <tr key={scopedName(r.scenario, r.name)}>
              <td>{scopedName(r.scenario, r.name)}</td>
              <td className="left">{messageKind(r.method)}</td>
              <td>{formatCount(r.requests)}</td>
              <td>{formatCount(r.ws?.messagesSent)}</td>
              <td>{formatCount(r.ws?.messagesReceived)}</td>
              <td>{formatBytes(r.ws?.bytesOut)}</td>
              <td>{formatBytes(r.ws?.bytesIn)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
