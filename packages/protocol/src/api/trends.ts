/** One finished run of a scenario name, as a point of its trend (`GET /api/trends`). */
export interface TrendPoint {
  id: string;
  startedAt: string | null;
  rps: number;
  errorRate: number;
  p50: number;
  p95: number;
  p99: number;
  /** The run's trust verdict. */
  verdict: string;
  /** The pinned baseline of the name. */
  pinned: boolean;
}
