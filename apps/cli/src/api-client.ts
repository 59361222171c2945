import type { RunDetail } from "@volley/protocol";
import { UsageError } from "./cli-error.js";

/** The few API calls the CLI makes, with errors turned into readable messages. */
export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token?: string,
  ) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const { status, text } = await this.send(method, path, body);
    return { status, body: (text ? JSON.parse(text) : null) as T };
  }

  /** A page the master renders (the HTML report), as text. */
  async text(path: string): Promise<string> {
    const { status, text } = await this.send("GET", path);
    if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
    return text;
  }

  private async send(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; text: string }> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...this.authHeaders(),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new UsageError(`cannot reach the master at ${this.baseUrl}: ${(error as Error).message}`);
    }
    return { status: response.status, text: await response.text() };
  }

  /** The token as a header, for requests and for the live feed's upgrade. */
  authHeaders(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  /** The master's live feed (`/ws/live`), over ws: or wss: as the API is over http: or https:. */
  liveUrl(): string {
    const url = new URL("/ws/live", this.baseUrl);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    return url.toString();
  }

  async run(id: string): Promise<RunDetail> {
    const { status, body } = await this.request<RunDetail>("GET", `/api/runs/${id}`);
    if (status !== 200) throw new Error(`GET /api/runs/${id} answered ${status}`);
    return body;
  }
}
