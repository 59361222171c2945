import type { SessionInfo } from "@volley/protocol";
import { useCallback, useEffect, useState } from "react";
import { BrowserRouter, Route, Routes } from "react-router-dom";
import { api, setUnauthorizedHandler } from "./api/client.js";
import { Layout } from "./components/Layout/Layout.js";
import { LiveFeedProvider } from "./live/live-context.js";
import { AccessPage } from "./pages/AccessPage.js";
import { AuditPage } from "./pages/AuditPage.js";
import { ComparePage } from "./pages/ComparePage.js";
import { LoginPage } from "./pages/LoginPage.js";
import { NewRunPage } from "./pages/NewRunPage.js";
import { NotFoundPage } from "./pages/NotFoundPage.js";
import { OverviewPage } from "./pages/OverviewPage.js";
import { RunPage } from "./pages/RunPage.js";
import { RunsPage } from "./pages/RunsPage.js";
import { SchedulesPage } from "./pages/SchedulesPage.js";
import { TrendsPage } from "./pages/TrendsPage.js";
import { WorkersPage } from "./pages/WorkersPage.js";
import { SessionContext } from "./session/session-context.js";

/** Pages by route, as the contract lists them. */
const ROUTES = [
  { path: "/", element: <OverviewPage /> },
  { path: "/new", element: <NewRunPage /> },
  { path: "/runs", element: <RunsPage /> },
  { path: "/runs/:id", element: <RunPage /> },
  { path: "/workers", element: <WorkersPage /> },
  { path: "/compare", element: <ComparePage /> },
  { path: "/trends", element: <TrendsPage /> },
  { path: "/schedules", element: <SchedulesPage /> },
  { path: "/access", element: <AccessPage /> },
  { path: "/audit", element: <AuditPage /> },
];

export function App() {
  // undefined: still asking; null: signed out.
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [authRequired, setAuthRequired] = useState(false);
  const [oidcProvider, setOidcProvider] = useState<string | null>(null);
  const check = useCallback(() => {
    api<SessionInfo | null>("/api/session").then(setSession, () => setSession(null));
  }, []);
  useEffect(() => {
    setUnauthorizedHandler(() => setSession(null));
    api<{ authRequired: boolean; oidcProvider: string | null }>("/api/config").then(
      (config) => {
        setAuthRequired(config.authRequired);
        setOidcProvider(config.oidcProvider);
      },
      () => undefined,
    );
    check();
  }, [check]);
  if (session === undefined) return null;
  if (session === null) return <LoginPage onLogin={check} oidcProvider={oidcProvider} />;
  const logout = async () => {
    await api("/api/logout", { method: "POST" }).catch(() => undefined);
    setSession(null);
  };
  return (
    <SessionContext.Provider value={session}>
      <BrowserRouter>
        <LiveFeedProvider>
          <Layout onLogout={authRequired ? logout : undefined}>
            <Routes>
              {ROUTES.map((route) => (
                <Route key={route.path} path={route.path} element={route.element} />
              ))}
              <Route path="*" element={<NotFoundPage />} />
            </Routes>
          </Layout>
        </LiveFeedProvider>
      </BrowserRouter>
    </SessionContext.Provider>
  );
}
