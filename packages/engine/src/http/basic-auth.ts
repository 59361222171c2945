/**
 * `Authorization: Basic` for the credentials of a URL (`http://user:pass@host`), as curl and k6
 * send them; null when the URL has none. Percent-encoded characters are decoded first.
 */
export function basicAuthorization(url: URL): string | null {
  if (url.username === "" && url.password === "") return null;
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
}
