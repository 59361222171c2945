const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Whether a host name or address is this machine's loopback (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
