import { type ReactNode, useEffect, useState } from "react";
import { NavLink } from "react-router-dom";
import { useLive } from "../../live/live-context.js";
import { isInProgress } from "../../live/use-live-feed.js";
import { applyTheme, storedTheme, type Theme } from "../../theme.js";
import { ConnectionBanner } from "../ConnectionBanner/ConnectionBanner.js";

/** The frame of every page: navigation, theme switch, sign-out (behind a token), the live connection banner. */
export function Layout({ children, onLogout }: { children: ReactNode; onLogout?: () => void }) {
  const live = useLive();
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => applyTheme(theme), [theme]);
  const activeRun = isInProgress(live.current) ? live.current : null;
  const ready = live.workers.filter((w) => w.state !== "lost").length;
  return (
    <div className="app">
      <header className="topbar">
        <NavLink to="/" className="brand">
          Volley
        </NavLink>
        <nav>
          <NavLink to="/" end>
            Overview
          </NavLink>
          <NavLink to="/new">New run</NavLink>
          <NavLink to="/runs">History</NavLink>
          <NavLink to="/trends">Trends</NavLink>
          <NavLink to="/workers">Workers</NavLink>
        </nav>
        <div className="topbar-right">
          {activeRun && (
            <NavLink to={`/runs/${activeRun.id}`} className="badge state-running">
              ● {activeRun.name}
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
