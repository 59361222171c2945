/**
 * Bytes of a response head: exact when the client counted them (Volley's own client reports
 * them, `headBytes` >= 0), else estimated from the status line and the raw headers (undici).
 */
export function responseHeadBytes(
  headBytes: number,
  statusText: string,
  rawHeaders: Buffer[] | string[],
): number {
  if (headBytes >= 0) return headBytes;
  let size = 17 + statusText.length;
  for (let i = 0; i < rawHeaders.length; i++) size += rawHeaders[i].length + 2;
  return size;
}
