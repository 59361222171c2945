/** The colour theme: a user's choice, kept in localStorage; "auto" follows the system setting. */
export type Theme = "auto" | "light" | "dark";

const KEY = "volley-theme";
const media = window.matchMedia("(prefers-color-scheme: dark)");

export function storedTheme(): Theme {
  const value = localStorage.getItem(KEY);
  return value === "light" || value === "dark" ? value : "auto";
}

/** Applies a theme to the page (and remembers it); "auto" follows system changes as they happen. */
export function applyTheme(theme: Theme): void {
  localStorage.setItem(KEY, theme);
  const resolve = () => {
    document.documentElement.dataset.theme = theme === "auto" ? (media.matches ? "dark" : "light") : theme;
  };
  media.onchange = theme === "auto" ? resolve : null;
  resolve();
}
