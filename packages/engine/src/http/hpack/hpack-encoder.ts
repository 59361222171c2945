import { STATIC_TABLE } from "./static-table.js";

/** Static-table index of a whole field ("name\0value"), and of a name alone (its first entry). */
const FIELD_INDEX = new Map<string, number>();
const NAME_INDEX = new Map<string, number>();
STATIC_TABLE.forEach(([name, value], i) => {
  FIELD_INDEX.set(`${name}\0${value}`, i + 1);
  if (!NAME_INDEX.has(name)) NAME_INDEX.set(name, i + 1);
});

/**
 * A request's header block. No dynamic table on our side and no Huffman: each field is a static
 * index, or a literal without indexing (its name by static index when it has one), so the same
 * headers always make the same bytes and a repeated request's block is encoded once. Names are
 * lowercase (HTTP/2); values latin1, checked by the caller.
 */
export function encodeHeaderBlock(fields: ReadonlyArray<readonly [string, string]>): Buffer {
  const bytes: number[] = [];
  const integer = (value: number, prefixBits: number, flags: number) => {
    const mask = (1 << prefixBits) - 1;
    if (value < mask) {
      bytes.push(flags | value);
      return;
    }
    bytes.push(flags | mask);
    let rest = value - mask;
    while (rest >= 0x80) {
      bytes.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    bytes.push(rest);
  };
  const string = (text: string) => {
    integer(text.length, 7, 0);
    for (let i = 0; i < text.length; i++) bytes.push(text.charCodeAt(i) & 0xff);
  };
  for (const [name, value] of fields) {
    const whole = FIELD_INDEX.get(`${name}\0${value}`);
    if (whole !== undefined) {
      integer(whole, 7, 0x80);
      continue;
    }
    const named = NAME_INDEX.get(name);
    if (named !== undefined) integer(named, 4, 0);
    else {
      bytes.push(0);
      string(name);
    }
    string(value);
  }
  return Buffer.from(bytes);
}
