/**
 * Postman's `{{name}}` variables in Volley's terms: a collection variable with a value is written
 * in place; one without (it lives in a Postman environment) becomes `{{env.NAME}}`, read from the
 * shell at run time; dynamic variables (`{{$guid}}`) become Volley's built-ins.
 */
export class PostmanVariables {
  /** The environment variables the scenario reads (its `env`). */
  readonly env = new Set<string>();
  readonly notes = new Set<string>();

  constructor(private readonly values: ReadonlyMap<string, string>) {}

  /** Text with every variable replaced (a value written in may hold variables too: up to 5 deep). */
  fill(text: string, depth = 0): string {
    return text.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (_, name: string) => {
      const value = this.values.get(name);
      if (value !== undefined) return depth < 5 ? this.fill(value, depth + 1) : value;
      if (name.startsWith("$")) return this.dynamic(name);
      const envName = name.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(\d)/, "_$1");
      this.env.add(envName);
      return `{{env.${envName}}}`;
    });
  }

  /** Whether text holds a variable with no value in the collection (it stays a template). */
  hasUnknown(text: string): boolean {
    for (const match of text.matchAll(/\{\{\s*([^{}]+?)\s*\}\}/g))
      if (!this.values.has(match[1])) return true;
    return false;
  }

  private dynamic(name: string): string {
    switch (name) {
      case "$guid":
      case "$randomUUID":
        return "{{uuid}}";
      case "$randomInt":
        return "{{randomInt 0 1000}}";
      case "$timestamp":
        this.notes.add("{{$timestamp}} (seconds) became {{now}}, which is milliseconds");
        return "{{now}}";
      case "$isoTimestamp":
        this.notes.add("{{$isoTimestamp}} became {{now}} (epoch milliseconds)");
        return "{{now}}";
      default:
        this.notes.add(`{{${name}}} has no Volley equivalent: a random string of 10 stands in for it`);
        return "{{randomString 10}}";
    }
  }
}
