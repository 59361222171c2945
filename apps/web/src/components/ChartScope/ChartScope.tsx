/** Which series the run's charts show: the whole run, or one of its `scenarios:`. */
export function ChartScope({
  scenarios,
  value,
  onChange,
}: {
  scenarios: string[];
  /** "" for the whole run. */
  value: string;
  onChange: (scenario: string) => void;
}) {
  return (
    <fieldset className="chart-scope" data-testid="chart-scope">
      <legend>Charts show</legend>
      <div className="tabs">
        {["", ...scenarios].map((name) => (
          <button
            key={name || "(all)"}
            type="button"
            aria-pressed={value === name}
            className={value === name ? "active" : undefined}
            onClick={() => onChange(name)}
          >
            {name || "whole run"}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
