import { type FormEvent, useState } from "react";
import { api, errorText } from "../../api/client.js";
import type { AccessMessage } from "../TokenPanel/TokenPanel.js";

/** Your own password: a new user's one-time password is replaced here. Signs you out after. */
export function PasswordPanel({ onMessage }: { onMessage: (message: AccessMessage) => void }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const change = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await api("/api/session/password", { method: "POST", body: { current, next } });
      // The master ended every session of this user: sign in again with the new password.
      window.location.assign("/");
    } catch (error) {
      onMessage({ tone: "bad", text: errorText(error) });
    }
  };
  return (
    <div className="panel" data-testid="password-panel">
      <h2>Your password</h2>
      <p className="muted">At least 12 characters. You sign in again with it afterwards.</p>
      <form className="filters" onSubmit={change}>
        <label>
          Current
          <input
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </label>
        <label>
          New
          <input
            type="password"
            autoComplete="new-password"
            value={next}
            onChange={(e) => setNext(e.target.value)}
          />
        </label>
        <button type="submit" className="primary">
          Change password
        </button>
      </form>
    </div>
  );
}
