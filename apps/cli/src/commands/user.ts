import { createUserSchema, ROLES } from "@volley/protocol";
import { ApiClient } from "../api-client.js";
import { parseFlags, TOKEN_FLAGS, tokenFlag } from "../args.js";
import { EXIT, UsageError } from "../cli-error.js";

const USAGE = `Usage: volley user add NAME --role viewer|tester|admin --master URL [--token ADMIN_TOKEN]

Makes a user on the master and prints their one-time password (shown once: hand it over;
they sign in with it and set their own). Needs an admin credential: the master's token or an
admin's personal token (--token, --token-file or VOLLEY_TOKEN).`;

/** `volley user add NAME --role R`: POST /api/users as an admin. */
export async function userCommand(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    return EXIT.ok;
  }
  const [verb, ...rest] = argv;
  if (verb !== "add")
    throw new UsageError(`expected "add", got ${verb ? `"${verb}"` : "nothing"}\n\n${USAGE}`);
  const { values, positionals } = parseFlags(
    rest,
    { role: { type: "string" }, master: { type: "string" }, ...TOKEN_FLAGS },
    1,
  );
  if (positionals[0] === undefined) throw new UsageError(`the user's NAME is missing\n\n${USAGE}`);
  if (values.role === undefined) throw new UsageError(`--role: give one of ${ROLES.join(", ")}`);
  if (values.master === undefined) throw new UsageError("--master: the master's URL is missing");
  const body = createUserSchema.safeParse({ name: positionals[0], role: values.role });
  if (!body.success) {
    const issue = body.error.issues[0];
    const field = issue.path[0] === "role" ? "--role" : "NAME";
    throw new UsageError(`${field}: ${issue.message}`);
  }
  const client = new ApiClient(values.master, tokenFlag(values));
  const { status, body: answer } = await client.request<{
    name: string;
    role: string;
    password?: string;
    error?: string;
  }>("POST", "/api/users", body.data);
  if (status !== 201 || !answer.password) {
    console.error(`volley user: the master answered ${status}: ${answer?.error ?? "no password"}`);
    return EXIT.usage;
  }
  console.log(`user ${answer.name} (${answer.role}) created; one-time password:\n${answer.password}`);
  return EXIT.ok;
}
