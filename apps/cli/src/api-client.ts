import type { RunDetail } from "@volley/protocol";
import { UsageError } from "./cli-error.js";

/** The few API calls the CLI makes, with errors turned into readable messages. */
export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token?: string,
  ) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new UsageError(`cannot reach the master at ${this.baseUrl}: ${(error as Error).message}`);
    }
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  }

  async run(id: string): Promise<RunDetail> {
    const { status, body } = await this.request<RunDetail>("GET", `/api/runs/${id}`);
    if (status !== 200) throw new Error(`GET /api/runs/${id} answered ${status}`);
    return body;
  }
}
