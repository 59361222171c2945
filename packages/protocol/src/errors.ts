/**
 * Every error code Volley reports, once, with its HTTP status. A code is never reused for another
 * meaning; docs/errors.md describes each (a test keeps the two in step).
 */
export const ERROR_CODES = {
  VOL_ERR_VALIDATION: {
    status: 400,
    summary: "The input does not match its schema; details name each field.",
  },
  VOL_ERR_NOT_FOUND: { status: 404, summary: "No such run, worker or route." },
  VOL_ERR_RUN_ACTIVE: { status: 409, summary: "Another run is queued or running; one run at a time." },
  VOL_ERR_NO_WORKERS: { status: 409, summary: "No worker is ready to take a run." },
  VOL_ERR_WORKER_BUSY: { status: 409, summary: "The worker is in a run and cannot be retired now." },
  VOL_ERR_RUN_NOT_ACTIVE: { status: 409, summary: "The run has already ended." },
  VOL_ERR_EXISTS: { status: 409, summary: "A user of that name already exists." },
  VOL_ERR_NOT_FINISHED: { status: 409, summary: "Only a finished run can be pinned as a baseline." },
  VOL_ERR_LOCAL_WORKER_LIMIT: {
    status: 400,
    summary: "Starting that many local workers would pass the limit.",
  },
  VOL_ERR_UNAUTHORIZED: {
    status: 401,
    summary: "Credentials are required and were missing, wrong, expired or revoked.",
  },
  VOL_ERR_FORBIDDEN: {
    status: 403,
    summary:
      "The caller's role does not allow the request, or it came through a host name or from an origin this master does not answer.",
  },
  VOL_ERR_PAYLOAD_TOO_LARGE: { status: 413, summary: "The request body or message is larger than allowed." },
  VOL_ERR_BAD_MESSAGE: { status: 400, summary: "A WebSocket message was malformed or of an unknown type." },
  VOL_ERR_UNAVAILABLE: {
    status: 503,
    summary: "Redis or the database does not answer, or the database is locked or refuses writes.",
  },
  VOL_ERR_EXPIRED: {
    status: 410,
    summary: "The run's per-second statistics were dropped by the retention setting; its totals remain.",
  },
  VOL_ERR_RATE_LIMITED: {
    status: 429,
    summary: "Too many failed sign-ins from this address; wait a minute and try again.",
  },
  VOL_ERR_CONFIG: {
    status: 400,
    summary:
      "A command's flags or a component's options are wrong (exit code 2 from the CLI); the message names the option.",
  },
  VOL_ERR_PROTOCOL: {
    status: 502,
    summary:
      "The target answered with something that is not HTTP/1.x: the request counts as failed, of kind protocol.",
  },
  VOL_ERR_INTERNAL: { status: 500, summary: "An unexpected error; the log has the details." },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Base of every error Volley raises on purpose; carries a stable code. */
export class VolleyError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "VolleyError";
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

/**
 * Bad options: a command's flags, a master's, worker's or aggregator's settings, a client's
 * options. The message names the option and the problem; the CLI prints it and exits 2.
 */
export class ConfigError extends VolleyError {
  constructor(message: string) {
    super("VOL_ERR_CONFIG", message);
    this.name = "ConfigError";
  }
}
