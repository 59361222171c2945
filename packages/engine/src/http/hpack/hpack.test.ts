import { describe, expect, it } from "vitest";
import { seededRandom } from "../../test-support/seeded-random.js";
import { HpackDecoder, HpackError } from "./hpack-decoder.js";
import { encodeHeaderBlock } from "./hpack-encoder.js";
import { decodeHuffman, HuffmanError } from "./huffman.js";

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ""), "hex");
const decodeAll = (decoder: HpackDecoder, block: Buffer) => {
  const fields: Array<[string, string]> = [];
  decoder.decode(block, 0, block.length, (name, value) => fields.push([name, value]));
  return fields;
};

describe("HPACK (RFC 7541)", () => {
  it("decodes the RFC's Huffman-coded strings (Appendix C.4)", () => {
    const cases: Array<[string, string]> = [
      ["f1e3 c2e5 f23a 6ba0 ab90 f4ff", "www.example.com"],
      ["a8eb 1064 9cbf", "no-cache"],
      ["25a8 49e9 5ba9 7d7f", "custom-key"],
      ["25a8 49e9 5bb8 e8b4 bf", "custom-value"],
    ];
    for (const [bytes, text] of cases) {
      const coded = hex(bytes);
      expect(decodeHuffman(coded, 0, coded.length)).toBe(text);
    }
  });

  it("refuses Huffman padding that is not EOS's prefix, or longer than 7 bits", () => {
    // "0" (00000) padded with 000; then 16 one bits (a prefix of a 30-bit code, no symbol).
    expect(() => decodeHuffman(hex("00"), 0, 1)).toThrow(HuffmanError);
    expect(() => decodeHuffman(hex("ffff"), 0, 2)).toThrow(HuffmanError);
    // "0" padded with 111 is fine.
    expect(decodeHuffman(hex("07"), 0, 1)).toBe("0");
  });

  it("follows the RFC's request examples through the dynamic table (Appendix C.3)", () => {
    const decoder = new HpackDecoder(65_536);
    expect(decodeAll(decoder, hex("8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d"))).toEqual([
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
    ]);
    expect(decodeAll(decoder, hex("8286 84be 5808 6e6f 2d63 6163 6865"))).toEqual([
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
      ["cache-control", "no-cache"],
    ]);
    expect(
      decodeAll(decoder, hex("8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65")),
    ).toEqual([
      [":method", "GET"],
      [":scheme", "https"],
      [":path", "/index.html"],
      [":authority", "www.example.com"],
      ["custom-key", "custom-value"],
    ]);
  });

  it("reads back what the encoder wrote: static indexes, indexed names, new names, long values", () => {
    const fields: Array<[string, string]> = [
      [":method", "GET"],
      [":method", "PATCH"],
      [":path", "/a?b=c"],
      ["accept", "application/json"],
      ["x-long", "v".repeat(300)],
      ["x-latin1", "caf\u00e9"],
    ];
    expect(decodeAll(new HpackDecoder(65_536), encodeHeaderBlock(fields))).toEqual(fields);
  });

  it("refuses an index past the table, a table size over its limit, a string past the block, a list too large", () => {
    const bad = ["be", "3fe21f", "4005 6162", "00 85 6162"];
    for (const block of bad)
      expect(() => decodeAll(new HpackDecoder(65_536), hex(block))).toThrow(HpackError);
    const big = encodeHeaderBlock([["x-big", "v".repeat(2000)]]);
    expect(() => decodeAll(new HpackDecoder(1024), big)).toThrow(/header list over 1024 bytes/);
  });

  it("fuzz: random and mutated blocks decode or throw an HPACK error, never anything else", () => {
    const next = seededRandom(7);
    const base = hex("8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65 f1e3");
    for (let round = 0; round < 5000; round++) {
      const block =
        round % 2 === 0
          ? Buffer.from(Array.from({ length: Math.floor(next() * 64) }, () => Math.floor(next() * 256)))
          : Buffer.from(base.map((byte) => (next() < 0.1 ? Math.floor(next() * 256) : byte)));
      try {
        decodeAll(new HpackDecoder(4096), block);
      } catch (error) {
        expect(error instanceof HpackError || error instanceof HuffmanError, String(error)).toBe(true);
      }
    }
  });
});
