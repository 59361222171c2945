import type { ConnectionState } from "../../live/use-live-feed.js";

/** Shown while the live socket is down; it reconnects by itself. */
export function ConnectionBanner({ state }: { state: ConnectionState }) {
  if (state !== "lost") return null;
  return (
    <div className="callout warn" role="status" data-testid="connection-lost">
      Live updates lost; reconnecting…
    </div>
  );
}
