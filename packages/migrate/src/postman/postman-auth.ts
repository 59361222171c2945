import { field, listOf } from "../fields.js";
import { base64 } from "../request-parts.js";
import type { PostmanVariables } from "./postman-variables.js";

/**
 * The headers a request's auth (its own, else its folder's or the collection's) sends: bearer,
 * basic and API keys in a header. Other kinds are named in the notes.
 */
export function postmanAuth(
  auth: unknown,
  variables: PostmanVariables,
  notes: string[],
  where: string,
): Record<string, string> {
  const type = field(auth, "type");
  if (type === undefined || type === "noauth") return {};
  const values = new Map<string, string>();
  for (const entry of listOf(field(auth, String(type)))) {
    const key = field(entry, "key");
    if (typeof key === "string") values.set(key, String(field(entry, "value") ?? ""));
  }
  if (type === "bearer") return { authorization: `Bearer ${variables.fill(values.get("token") ?? "")}` };
  if (type === "basic") {
    const user = values.get("username") ?? "";
    const password = values.get("password") ?? "";
    if (!variables.hasUnknown(user) && !variables.hasUnknown(password))
      return { authorization: `Basic ${base64(`${variables.fill(user)}:${variables.fill(password)}`)}` };
    // Credentials from the environment: encoded at run time.
    const part = (text: string) => {
      const filled = variables.fill(text);
      const env = /^\{\{(env\.[A-Za-z0-9_]+)\}\}$/.exec(filled);
      return env ? env[1] : JSON.stringify(filled);
    };
    return { authorization: `Basic {{base64 ${part(user)} ":" ${part(password)}}}` };
  }
  if (type === "apikey" && (values.get("in") ?? "header") === "header")
    return { [(values.get("key") ?? "x-api-key").toLowerCase()]: variables.fill(values.get("value") ?? "") };
  notes.push(`${where}: ${String(type)} auth is not carried over; add its header by hand`);
  return {};
}
