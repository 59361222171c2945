import { randomBytes } from "node:crypto";
import type { RequestConfig } from "@volley/protocol";
import { CompiledTemplate, type TemplateContext, type TemplateEnvironment } from "./compiled-template.js";

const CRLF = "\r\n";

/**
 * A multipart/form-data body prepared once per run: the boundary, every part's headers and the
 * files' bytes are fixed buffers; only text fields with templates are rendered per request.
 */
export class CompiledMultipart {
  readonly contentType: string;
  readonly isStatic: boolean;
  private readonly parts: Array<Buffer | CompiledTemplate>;

  constructor(
    fields: NonNullable<RequestConfig["multipart"]>,
    files: Readonly<Record<string, Buffer>>,
    environment?: TemplateEnvironment,
  ) {
    const boundary = `volley-${randomBytes(12).toString("hex")}`;
    this.contentType = `multipart/form-data; boundary=${boundary}`;
    this.parts = [];
    for (const [name, value] of Object.entries(fields)) {
      const field = quote(name);
      if (typeof value === "object" && value !== null) {
        const filename = quote(value.filename ?? value.file.split("/").pop() ?? value.file);
        this.parts.push(
          Buffer.from(
            `--${boundary}${CRLF}content-disposition: form-data; name="${field}"; filename="${filename}"${CRLF}content-type: ${value.contentType}${CRLF}${CRLF}`,
          ),
          files[value.file] ?? Buffer.alloc(0),
          Buffer.from(CRLF),
        );
      } else {
        this.parts.push(
          Buffer.from(`--${boundary}${CRLF}content-disposition: form-data; name="${field}"${CRLF}${CRLF}`),
          new CompiledTemplate(String(value), "none", environment),
          Buffer.from(CRLF),
        );
      }
    }
    this.parts.push(Buffer.from(`--${boundary}--${CRLF}`));
    this.isStatic = this.parts.every((part) => Buffer.isBuffer(part) || part.isStatic);
  }

  render(ctx: TemplateContext): Buffer {
    return Buffer.concat(
      this.parts.map((part) => (Buffer.isBuffer(part) ? part : Buffer.from(part.render(ctx)))),
    );
  }
}

/** A name inside a quoted header parameter: quotes and line breaks escaped (RFC 7578 4.2). */
function quote(text: string): string {
  return text.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
