import { useState } from "react";
import { PasswordPanel } from "../components/PasswordPanel/PasswordPanel.js";
import { type AccessMessage, JoinTokens, PersonalTokens } from "../components/TokenPanel/TokenPanel.js";
import { UserAdmin } from "../components/UserAdmin/UserAdmin.js";
import { useSession } from "../session/session-context.js";

/** /access — your personal API tokens; for admins also the users and their roles, and worker join tokens. */
export function AccessPage() {
  const session = useSession();
  const [message, setMessage] = useState<AccessMessage | null>(null);
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
      {session.via === "session" && <PasswordPanel onMessage={setMessage} />}
      {session.via === "session" || session.via === "oidc" || session.via === "personal-token" ? (
        <PersonalTokens onMessage={setMessage} />
      ) : (
        <p className="panel muted">
          Personal tokens belong to users: sign in as a user to make one (the master's token is an admin
          credential already).
        </p>
      )}
      {session.role === "admin" && <UserAdmin onMessage={setMessage} />}
      {session.role === "admin" && <JoinTokens onMessage={setMessage} />}
    </section>
  );
}
