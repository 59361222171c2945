interface StatCardProps {
  label: string;
  value: string;
  hint?: string;
  tone?: "good" | "bad" | "neutral";
  testId?: string;
}

/** One big number with its label. */
export function StatCard({ label, value, hint, tone = "neutral", testId }: StatCardProps) {
  return (
    <div className={`stat-card tone-${tone}`} data-testid={testId}>
      <span className="stat-label">{label}</span>
      <strong className="stat-value">{value}</strong>
      {hint && <span className="stat-hint">{hint}</span>}
    </div>
  );
}
