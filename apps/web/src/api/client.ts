/** An API error with the server's message and the fields it names. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

/** Called when the API answers 401, so the app can show the login page. */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? "GET",
    headers: init.body === undefined ? {} : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: "same-origin",
  });
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  if (!response.ok) {
    if (response.status === 401) onUnauthorized();
    throw new ApiError(
      response.status,
      body?.error ?? `${response.status} ${response.statusText}`,
      body?.details ?? [],
    );
  }
  return body as T;
}

/** What to show for a failed call: each field the master named ("vus: at most 6"), else its message. */
export function errorText(failure: unknown): string {
  const details = failure instanceof ApiError ? failure.details : [];
  return details.length
    ? details.map((d) => `${d.path}: ${d.message}`).join("; ")
    : (failure as Error).message;
}
