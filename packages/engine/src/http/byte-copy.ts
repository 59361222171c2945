/**
 * Bytes `start`..`end` of `bytes` in a buffer of their own: one allocation, where a view then a
 * copy of it would be two. For bytes of a read that a later read will overwrite.
 */
export function copyOf(bytes: Buffer, start: number, end: number): Buffer {
  const copy = Buffer.allocUnsafe(end - start);
  bytes.copy(copy, 0, start, end);
  return copy;
}
