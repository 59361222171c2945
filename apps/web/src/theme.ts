/** The colour theme: a user's choice, kept in localStorage; "auto" follows the system setting. */
export type Theme = "auto" | "light" | "dark";

const KEY = "volley-theme";
const media = window.matchMedia("(prefers-color-scheme: dark)");

export function storedTheme(): Theme {
  const value = localStorage.getItem(KEY);
  return value === "light" || value === "dark" ? value : "auto";
}

const listeners = new Set<() => void>();

/** Calls `listener` whenever the page's colours change (for canvases, which cannot use CSS variables). */
export function onThemeChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Applies a theme to the page (and remembers it); "auto" follows system changes as they happen. */
export function applyTheme(theme: Theme): void {
  localStorage.setItem(KEY, theme);
  const resolve = () => {
    const resolved = theme === "auto" ? (media.matches ? "dark" : "light") : theme;
    if (document.documentElement.dataset.theme === resolved) return;
    document.documentElement.dataset.theme = resolved;
    for (const listener of listeners) listener();
  };
  media.onchange = theme === "auto" ? resolve : null;
  resolve();
}
