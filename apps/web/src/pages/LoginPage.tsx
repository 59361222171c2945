import type { SessionInfo } from "@volley/protocol";
import { type FormEvent, useEffect, useState } from "react";
import { api } from "../api/client.js";

/**
 * Shown when the master asks for credentials: a user's name and password, the master's token,
 * or (when configured) the identity provider, whose refusals come back as `?signin-error=`.
 */
export function LoginPage({ onLogin, oidcProvider }: { onLogin: () => void; oidcProvider: string | null }) {
  const [mode, setMode] = useState<"password" | "token">("password");
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    const refused = params.get("signin-error");
    if (refused === null) return;
    setError(refused);
    params.delete("signin-error");
    const rest = params.toString();
    window.history.replaceState(null, "", `${window.location.pathname}${rest ? `?${rest}` : ""}`);
  }, []);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      if (mode === "password")
        await api<SessionInfo>("/api/session", { method: "POST", body: { user, password } });
      else await api("/api/login", { method: "POST", body: { token } });
      onLogin();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form className="login panel" onSubmit={submit}>
      <h1>Volley</h1>
      {oidcProvider && (
        <>
          {/* A full navigation: the provider's page, then back through the master's callback. */}
          <a className="button primary" href="/api/session/oidc">
            Sign in with {oidcProvider}
          </a>
          <p className="muted or">or</p>
        </>
      )}
      <p className="muted">
        {mode === "password"
          ? "Sign in with your user name and password."
          : "Sign in with the master's token."}
      </p>
      {mode === "password" ? (
        <>
          <label>
            User
            <input autoComplete="username" value={user} onChange={(e) => setUser(e.target.value)} />
          </label>
          <label>
            Password
            <input
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
        </>
      ) : (
        <label>
          Token
          <input type="password" value={token} onChange={(e) => setToken(e.target.value)} />
        </label>
      )}
      {error && (
        <div className="callout bad" role="alert">
          {error}
        </div>
      )}
      <button type="submit" className="primary">
        Sign in
      </button>
      <button
        type="button"
        className="link"
        onClick={() => {
          setMode(mode === "password" ? "token" : "password");
          setError(null);
        }}
      >
        {mode === "password" ? "Use the master's token instead" : "Use a user name and password instead"}
      </button>
    </form>
  );
}
