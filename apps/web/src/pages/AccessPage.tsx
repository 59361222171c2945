import { ROLES, type Role, type TokenView } from "@volley/protocol";
import { type FormEvent, type ReactNode, useState } from "react";
import { api, errorText } from "../api/client.js";
import { useApi } from "../api/use-api.js";
import { When } from "../components/When/When.js";
import { useSession } from "../session/session-context.js";

interface UserView {
  name: string;
  role: Role;
  createdAt: string;
  createdBy: string;
}

type Message = { tone: "good" | "bad"; text: string; secret?: string };

/** /access — your personal API tokens; for admins also the users and their roles, and worker join tokens. */
export function AccessPage() {
  const session = useSession();
  const [message, setMessage] = useState<Message | null>(null);
  return (
    <section>
      <h1>Access</h1>
      <p className="muted">
        Signed in as <strong>{session.user}</strong> ({session.role}).
      </p>
      {message && (
        <div className={`callout ${message.tone}`} role="status">
          {message.text}
          {message.secret && (
            <div className="secret" data-testid="secret">
              {message.secret}
            </div>
          )}
        </div>
      )}
      {session.via === "session" || session.via === "personal-token" ? (
        <Tokens onMessage={setMessage} />
      ) : (
        <p className="panel muted">
          Personal tokens belong to users: sign in as a user to make one (the master's token is an admin
          credential already).
        </p>
      )}
      {session.role === "admin" && <Users onMessage={setMessage} />}
      {session.role === "admin" && <JoinTokens onMessage={setMessage} />}
    </section>
  );
}

function Tokens({ onMessage }: { onMessage: (message: Message) => void }) {
  return (
    <TokenPanel path="/api/tokens" title="Personal API tokens" onMessage={onMessage}>
      Send one as <code>Authorization: Bearer …</code>; it acts with your role.
    </TokenPanel>
  );
}

function JoinTokens({ onMessage }: { onMessage: (message: Message) => void }) {
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
  onMessage: (message: Message) => void;
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

function Users({ onMessage }: { onMessage: (message: Message) => void }) {
  const users = useApi<UserView[]>("/api/users");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const act = async (text: string, call: () => Promise<{ password?: string } | null>) => {
    try {
      const answer = await call();
      onMessage({
        tone: "good",
        text: answer?.password ? `${text} One-time password (shown once):` : text,
        secret: answer?.password,
      });
      users.reload();
    } catch (error) {
      onMessage({ tone: "bad", text: errorText(error) });
    }
  };
  const create = (event: FormEvent) => {
    event.preventDefault();
    void act(`User ${name} made.`, () => api("/api/users", { method: "POST", body: { name, role } }));
    setName("");
  };
  return (
    <div className="panel">
      <h2>Users</h2>
      <p className="muted">
        Viewers read; testers also start, stop and change runs; admins also manage workers, users and tokens.
      </p>
      <form className="filters" onSubmit={create}>
        <label>
          Name
          <input value={name} required maxLength={64} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary">
          Add user
        </button>
      </form>
      <div className="table-scroll">
        <table className="data-table" data-testid="user-table">
          <thead>
            <tr>
              <th className="left">Name</th>
              <th className="left">Role</th>
              <th className="left">Made</th>
              <th className="left" />
            </tr>
          </thead>
          <tbody>
            {(users.data ?? []).map((user) => (
              <tr key={user.name}>
                <td className="left">{user.name}</td>
                <td className="left">
                  <select
                    aria-label={`Role of ${user.name}`}
                    value={user.role}
                    onChange={(e) =>
                      act(`${user.name} is now a ${e.target.value}.`, () =>
                        api(`/api/users/${encodeURIComponent(user.name)}`, {
                          method: "PATCH",
                          body: { role: e.target.value },
                        }),
                      )
                    }
                  >
                    {ROLES.map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                </td>
                <td className="left">
                  <When iso={user.createdAt} /> by {user.createdBy}
                </td>
                <td className="left">
                  <button
                    type="button"
                    className="small"
                    onClick={() =>
                      act(`Password of ${user.name} reset.`, () =>
                        api(`/api/users/${encodeURIComponent(user.name)}`, {
                          method: "PATCH",
                          body: { resetPassword: true },
                        }),
                      )
                    }
                  >
                    Reset password
                  </button>{" "}
                  <button
                    type="button"
                    className="small"
                    onClick={() =>
                      window.confirm(`Delete ${user.name} and their tokens?`) &&
                      act(`${user.name} deleted.`, () =>
                        api(`/api/users/${encodeURIComponent(user.name)}`, { method: "DELETE" }),
                      )
                    }
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
