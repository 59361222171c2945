import { createContext, type ReactNode, useContext } from "react";
import { type LiveFeed, useLiveFeed } from "./use-live-feed.js";

const LiveContext = createContext<LiveFeed | null>(null);

/** Opens the one live socket of the app; pages read it with useLive(). */
export function LiveFeedProvider({ children }: { children: ReactNode }) {
  const feed = useLiveFeed();
  return <LiveContext.Provider value={feed}>{children}</LiveContext.Provider>;
}

export function useLive(): LiveFeed {
  const feed = useContext(LiveContext);
  if (!feed) throw new Error("useLive outside LiveFeedProvider");
  return feed;
}
