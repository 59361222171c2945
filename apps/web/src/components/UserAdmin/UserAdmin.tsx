import { ROLES, type Role } from "@volley/protocol";
import { type FormEvent, useState } from "react";
import { api, errorText } from "../../api/client.js";
import { useApi } from "../../api/use-api.js";
import type { AccessMessage } from "../TokenPanel/TokenPanel.js";
import { When } from "../When/When.js";

interface UserView {
  name: string;
  role: Role;
  createdAt: string;
  createdBy: string;
  /** "oidc": signs in through the identity provider, which also sets the role at each sign-in. */
  signIn: "password" | "oidc";
}

/** Admins: add users, change their role, reset their password, delete them. */
export function UserAdmin({ onMessage }: { onMessage: (message: AccessMessage) => void }) {
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
                  {user.signIn === "oidc" ? (
                    <span title="Set by the identity provider at each sign-in">
                      {user.role} <span className="muted">(single sign-on)</span>
                    </span>
                  ) : (
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
                  )}
                </td>
                <td className="left">
                  <When iso={user.createdAt} /> by {user.createdBy}
                </td>
                <td className="left">
                  {user.signIn === "password" && (
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
                    </button>
                  )}{" "}
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
