import { type FormEvent, useState } from "react";
import { api } from "../api/client.js";

/** Shown when the master requires its token (it listens beyond loopback). */
export function LoginPage({ onLogin }: { onLogin: () => void }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await api("/api/login", { method: "POST", body: { token } });
      onLogin();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form className="login panel" onSubmit={submit}>
      <h1>Volley</h1>
      <p className="muted">This master requires its token.</p>
      <label>
        Token
        <input type="password" value={token} onChange={(e) => setToken(e.target.value)} />
      </label>
      {error && <div className="callout bad">{error}</div>}
      <button type="submit" className="primary">
        Log in
      </button>
    </form>
  );
}
