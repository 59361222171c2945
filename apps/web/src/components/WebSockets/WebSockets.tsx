import type { RequestSummary } from "@volley/protocol";
import { formatBytes, formatCount } from "../../format/format.js";

/** Each WebSocket handshake's name with the messages and bytes its sockets carried both ways. */
export function WebSockets({ requests }: { requests: readonly RequestSummary[] }) {
  const sockets = requests.filter((r) => r.ws);
  return (
    <div className="table-scroll">
      <table className="data-table compact" data-testid="websockets">
        <thead>
          <tr>
            <th>Socket</th>
            <th>Handshakes</th>
            <th>Sent</th>
            <th>Received</th>
            <th>Bytes out</th>
            <th>Bytes in</th>
          </tr>
        </thead>
        <tbody>
          {sockets.map((r) => (
            <tr key={r.name}>
              <td>{r.name}</td>
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
