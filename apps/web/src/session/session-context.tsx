import type { SessionInfo } from "@volley/protocol";
import { createContext, useContext } from "react";

/** Who is signed in (`GET /api/session`): pages show what the role may do. */
export const SessionContext = createContext<SessionInfo>({ user: "local", role: "admin", via: "open" });

export function useSession(): SessionInfo {
  return useContext(SessionContext);
}
