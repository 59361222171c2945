import { Link, useLocation } from "react-router-dom";

/** What an address the dashboard does not know shows: where the reader is, and where to go. */
export function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <div className="empty" data-testid="not-found">
      <h1>Page not found</h1>
      <p className="muted">
        The dashboard has no page at <code>{pathname}</code>.
      </p>
      <p>
        <Link to="/">Overview</Link> · <Link to="/runs">History</Link> · <Link to="/new">New run</Link>
      </p>
    </div>
  );
}
