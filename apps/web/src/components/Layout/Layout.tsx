import { type ReactNode, useEffect, useRef, useState } from "react";
import { NavLink, useLocation } from "react-router-dom";
import { useLive } from "../../live/live-context.js";
import { isInProgress } from "../../live/use-live-feed.js";
import { useSession } from "../../session/session-context.js";
import { applyTheme, storedTheme, type Theme } from "../../theme.js";
import { ConnectionBanner } from "../ConnectionBanner/ConnectionBanner.js";

/** The frame of every page: navigation (by role), theme switch, who is signed in and sign-out, the live connection banner. */
export function Layout({ children, onLogout }: { children: ReactNode; onLogout?: () => void }) {
  const live = useLive();
  const session = useSession();
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => applyTheme(theme), [theme]);
  // On a phone the links scroll sideways: keep the current page's link in sight.
  const nav = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: `pathname` is the trigger
  useEffect(() => {
    nav.current?.querySelector("a.active")?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }, [pathname]);
  const activeRun = isInProgress(live.current) ? live.current : null;
  const ready = live.workers.filter((w) => w.state !== "lost").length;
  return (
    <div className="app">
      <header className="topbar">
        <NavLink to="/" className="brand">
          Volley
        </NavLink>
        <nav ref={nav}>
          <NavLink to="/" end>
            Overview
          </NavLink>
          <NavLink to="/new">New run</NavLink>
          <NavLink to="/runs">History</NavLink>
          <NavLink to="/trends">Trends</NavLink>
          <NavLink to="/workers">Workers</NavLink>
          <NavLink to="/schedules">Schedules</NavLink>
          {session.via !== "open" && <NavLink to="/access">Access</NavLink>}
          {session.role === "admin" && <NavLink to="/audit">Audit</NavLink>}
        </nav>
        <div className="topbar-right">
          {activeRun && (
            <NavLink to={`/runs/${activeRun.id}`} className="badge state-running">
              ● {activeRun.name}
            </NavLink>
          )}
          {live.inProgress.length > 1 && (
            <NavLink to="/" className="badge state-running" data-testid="in-progress-count">
              {live.inProgress.length} running
            </NavLink>
          )}
          {live.queued.length > 0 && (
            <NavLink to="/runs?status=queued" className="badge state-queued" data-testid="queued-count">
              {live.queued.length} queued
            </NavLink>
          )}
          <span className="muted" data-testid="worker-count">
            {ready} worker{ready === 1 ? "" : "s"}
          </span>
          <select aria-label="Theme" value={theme} onChange={(e) => setTheme(e.target.value as Theme)}>
            <option value="auto">Auto</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
          {session.via !== "open" && (
            <span
              className="muted"
              data-testid="signed-in-as"
              title={`signed in as ${session.user} (${session.role})`}
            >
              {session.user}
            </span>
          )}
          {onLogout && (
            <button type="button" className="small" onClick={onLogout}>
              Log out
            </button>
          )}
        </div>
      </header>
      <main className="page">
        <ConnectionBanner state={live.connection} />
        {children}
      </main>
    </div>
  );
}
