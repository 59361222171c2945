import { useEffect, useState } from "react";
import { BrowserRouter, Route, Routes } from "react-router-dom";
import { api, setUnauthorizedHandler } from "./api/client.js";
import { Layout } from "./components/Layout/Layout.js";
import { LiveFeedProvider } from "./live/live-context.js";
import { ComparePage } from "./pages/ComparePage.js";
import { LoginPage } from "./pages/LoginPage.js";
import { NewRunPage } from "./pages/NewRunPage.js";
import { NotFoundPage } from "./pages/NotFoundPage.js";
import { OverviewPage } from "./pages/OverviewPage.js";
import { RunPage } from "./pages/RunPage.js";
import { RunsPage } from "./pages/RunsPage.js";
import { TrendsPage } from "./pages/TrendsPage.js";
import { WorkersPage } from "./pages/WorkersPage.js";

/** Pages by route, as the contract lists them. */
const ROUTES = [
  { path: "/", element: <OverviewPage /> },
  { path: "/new", element: <NewRunPage /> },
  { path: "/runs", element: <RunsPage /> },
  { path: "/runs/:id", element: <RunPage /> },
  { path: "/workers", element: <WorkersPage /> },
  { path: "/compare", element: <ComparePage /> },
  { path: "/trends", element: <TrendsPage /> },
];

type Session = "checking" | "in" | "out";

export function App() {
  const [session, setSession] = useState<Session>("checking");
  const [authRequired, setAuthRequired] = useState(false);
  useEffect(() => {
    setUnauthorizedHandler(() => setSession("out"));
    api<{ authRequired: boolean }>("/api/config").then(
      (config) => setAuthRequired(config.authRequired),
      () => undefined,
    );
    api("/api/workers").then(
      () => setSession("in"),
      () => setSession((s) => (s === "checking" ? "out" : s)),
    );
  }, []);
  if (session === "checking") return null;
  if (session === "out") return <LoginPage onLogin={() => setSession("in")} />;
  const logout = async () => {
    await api("/api/logout", { method: "POST" }).catch(() => undefined);
    setSession("out");
  };
  return (
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
  );
}
