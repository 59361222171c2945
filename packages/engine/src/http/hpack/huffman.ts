/**
 * HPACK's Huffman code (RFC 7541 Appendix B) as its code lengths: the code is canonical (codes
 * of one length are consecutive in symbol order), so the lengths alone make it. Symbol 256 is
 * EOS (30 bits); checked by huffman.test.ts against the RFC's own examples.
 */
const LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28,
  28, 28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7,
  8, 15, 6, 12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19,
  13, 14, 6, 15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13,
  28, 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21,
  22, 23, 22, 23, 23, 24, 22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23,
  22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25,
  25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30,
];

/** The decoding tree, flat: node i's children at 2i and 2i+1; a leaf is -(symbol + 1). */
const TREE = buildTree();

function buildTree(): Int32Array {
  const order = LENGTHS.map((_, symbol) => symbol).sort((a, b) => LENGTHS[a] - LENGTHS[b] || a - b);
  const tree = new Int32Array(2 * 512).fill(0);
  let nodes = 1;
  let code = 0;
  for (let i = 0; i < order.length; i++) {
    const symbol = order[i];
    if (i > 0) code = (code + 1) * 2 ** (LENGTHS[symbol] - LENGTHS[order[i - 1]]);
    let node = 0;
    for (let bit = LENGTHS[symbol] - 1; bit >= 0; bit--) {
      const slot = 2 * node + (Math.floor(code / 2 ** bit) % 2);
      if (bit === 0) tree[slot] = -(symbol + 1);
      else {
        if (tree[slot] === 0) tree[slot] = nodes++;
        node = tree[slot];
      }
    }
  }
  return tree;
}

/** A Huffman-coded string that breaks the rules (EOS inside, padding not EOS's prefix, too long). */
export class HuffmanError extends Error {}

/**
 * Decodes `bytes[start, end)` to latin1 text (header bytes, one character each). RFC 7541 §5.2:
 * the padding is at most 7 bits, all ones; an EOS symbol in the string is an error.
 */
export function decodeHuffman(bytes: Uint8Array, start: number, end: number): string {
  const out: number[] = [];
  let node = 0;
  let depth = 0;
  let ones = true;
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    for (let bit = 7; bit >= 0; bit--) {
      const one = (byte >> bit) & 1;
      ones &&= one === 1;
      const next = TREE[2 * node + one];
      if (next < 0) {
        if (next === -257) throw new HuffmanError("EOS inside a Huffman-coded string");
        out.push(-next - 1);
        node = 0;
        depth = 0;
        ones = true;
      } else {
        node = next;
        depth++;
      }
    }
  }
  if (depth > 7 || !ones) throw new HuffmanError("bad padding of a Huffman-coded string");
  return Buffer.from(out).toString("latin1");
}
