import { field } from "../fields.js";
import type { SchemaExamples } from "./schema-example.js";

/**
 * What an operation's security asks of each request, read from `securitySchemes`: credentials as
 * templates over environment variables, never values (bearer tokens from API_TOKEN, basic
 * credentials from API_USER and API_PASSWORD, an API key from API_KEY).
 */
export class SecurityTemplates {
  /** The environment variables the credentials come from (the scenario's `env`). */
  readonly env = new Set<string>();
  readonly notes = new Set<string>();
  private readonly schemes: unknown;
  private readonly global: unknown;

  constructor(
    document: unknown,
    private readonly examples: SchemaExamples,
  ) {
    this.schemes = field(field(document, "components"), "securitySchemes");
    this.global = field(document, "security");
  }

  headersFor(operation: unknown): { headers: Record<string, string>; query: Record<string, string> } {
    const own = field(operation, "security");
    const requirements = Array.isArray(own) ? own : Array.isArray(this.global) ? this.global : [];
    const headers: Record<string, string> = {};
    const query: Record<string, string> = {};
    // The first requirement is enough: each one alone satisfies the operation.
    const first = requirements[0];
    if (typeof first !== "object" || first === null) return { headers, query };
    for (const name of Object.keys(first)) {
      const scheme = this.examples.resolve(field(this.schemes, name));
      const type = field(scheme, "type");
      const httpScheme = String(field(scheme, "scheme") ?? "").toLowerCase();
      if ((type === "http" && httpScheme === "bearer") || type === "oauth2" || type === "openIdConnect") {
        headers.authorization = "Bearer {{env.API_TOKEN}}";
        this.env.add("API_TOKEN");
      } else if (type === "http" && httpScheme === "basic") {
        headers.authorization = 'Basic {{base64 env.API_USER ":" env.API_PASSWORD}}';
        this.env.add("API_USER");
        this.env.add("API_PASSWORD");
      } else if (type === "apiKey") {
        const keyName = String(field(scheme, "name") ?? "x-api-key");
        const place = field(scheme, "in");
        if (place === "header") headers[keyName.toLowerCase()] = "{{env.API_KEY}}";
        else if (place === "query") query[keyName] = "{{env.API_KEY}}";
        else this.notes.add(`the API key ${keyName} goes in a cookie: not carried over`);
        if (place === "header" || place === "query") this.env.add("API_KEY");
      } else {
        this.notes.add(`the security scheme ${name} (${String(type)}) is not carried over`);
      }
    }
    return { headers, query };
  }
}
