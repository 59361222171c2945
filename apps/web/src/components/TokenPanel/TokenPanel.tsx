import type { TokenView } from "@volley/protocol";
import { type FormEvent, type ReactNode, useState } from "react";
import { api, errorText } from "../../api/client.js";
import { useApi } from "../../api/use-api.js";
import { When } from "../When/When.js";

/** What an Access panel tells its page: a result, and a secret shown once. */
export type AccessMessage = { tone: "good" | "bad"; text: string; secret?: string };

export function PersonalTokens({ onMessage }: { onMessage: (message: AccessMessage) => void }) {
  return (
    <TokenPanel path="/api/tokens" title="Personal API tokens" onMessage={onMessage}>
      Send one as <code>Authorization: Bearer …</code>; it acts with your role.
    </TokenPanel>
  );
}

export function JoinTokens({ onMessage }: { onMessage: (message: AccessMessage) => void }) {
  return (
    <TokenPanel path="/api/worker-tokens" title="Worker join tokens" onMessage={onMessage}>
      A worker joins with one instead of the master's token (<code>volley worker --token …</code>); revoking
      it disconnects its workers at once.
    </TokenPanel>
  );
}

function TokenPanel({
  path,
  title,
  children,
  onMessage,
}: {
  path: string;
  title: string;
  children: ReactNode;
  onMessage: (message: AccessMessage) => void;
}) {
  const tokens = useApi<TokenView[]>(path);
  const [name, setName] = useState("");
  const [expiresIn, setExpiresIn] = useState("90d");
  const create = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const made = await api<{ token: string }>(path, {
        method: "POST",
        body: { name, ...(expiresIn ? { expiresIn } : {}) },
      });
      onMessage({
        tone: "good",
        text: `Token "${name}" made. Copy it now: it is not shown again.`,
        secret: made.token,
      });
      setName("");
      tokens.reload();
    } catch (error) {
      onMessage({ tone: "bad", text: errorText(error) });
    }
  };
  const revoke = async (token: TokenView) => {
    try {
      await api(`${path}/${token.id}`, { method: "DELETE" });
      onMessage({ tone: "good", text: `Token "${token.name}" revoked.` });
      tokens.reload();
    } catch (error) {
      onMessage({ tone: "bad", text: errorText(error) });
    }
  };
  return (
    <div className="panel" data-testid={`tokens-${path.split("/").pop()}`}>
      <h2>{title}</h2>
      <p className="muted">{children}</p>
      <form className="filters" onSubmit={create}>
        <label>
          Name
          <input value={name} required maxLength={100} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Expires in
          <select value={expiresIn} onChange={(e) => setExpiresIn(e.target.value)}>
            <option value="7d">7 days</option>
            <option value="30d">30 days</option>
            <option value="90d">90 days</option>
            <option value="366d">a year</option>
            <option value="">never</option>
          </select>
        </label>
        <button type="submit" className="primary">
          Make token
        </button>
      </form>
      <div className="table-scroll">
        <table className="data-table" data-testid="token-table">
          <thead>
            <tr>
              <th className="left">Name</th>
              <th className="left">{path === "/api/tokens" ? "User" : "Made by"}</th>
              <th className="left">Made</th>
              <th className="left">Expires</th>
              <th className="left">Last used</th>
              <th className="left">State</th>
            </tr>
          </thead>
          <tbody>
            {(tokens.data ?? []).map((token) => (
              <tr key={token.id}>
                <td className="left">{token.name}</td>
                <td className="left">{token.user ?? token.createdBy}</td>
                <td className="left">
                  <When iso={token.createdAt} />
                </td>
                <td className="left">{token.expiresAt ? <When iso={token.expiresAt} /> : "never"}</td>
                <td className="left">{token.lastUsedAt ? <When iso={token.lastUsedAt} /> : "never"}</td>
                <td className="left">
                  {token.revokedAt ? (
                    <span className="muted">revoked</span>
                  ) : (
                    <button type="button" className="small" onClick={() => revoke(token)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
