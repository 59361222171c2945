/**
 * A seeded xorshift generator in [0, 1) for the fuzz tests: a failing case names its seed and
 * replays the same bytes.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}
