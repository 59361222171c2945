import { loadShape, type Scenario } from "@volley/protocol";

const WIDTH = 240;
const HEIGHT = 64;

/** Each part's planned load as a small line, before the run starts. */
export function LoadPreview({ scenario }: { scenario: Scenario }) {
  return (
    <div className="load-preview" data-testid="load-preview">
      {scenario.parts.map((part) => {
        const shape = loadShape(part.load);
        const maxT = Math.max(...shape.points.map(([t]) => t), 1);
        const maxV = Math.max(...shape.points.map(([, v]) => v), 1);
        const path = shape.points
          .map(
            ([t, v]) =>
              `${((t / maxT) * (WIDTH - 4) + 2).toFixed(1)},${(HEIGHT - 2 - (v / maxV) * (HEIGHT - 8)).toFixed(1)}`,
          )
          .join(" ");
        const title = part.name ?? "Load";
        return (
          <figure key={title} className="load-shape">
            <figcaption>
              <strong>{title}</strong> · {part.load.executor} · up to {formatValue(maxV)} {shape.unit}
              {shape.openEnded ? ` · at most ${formatValue(maxT)} s` : ` · ${formatValue(maxT)} s`}
            </figcaption>
            <svg
              viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
              preserveAspectRatio="none"
              role="img"
              aria-label={`${title}: planned ${shape.unit} over time`}
            >
              <polygon
                points={`2,${HEIGHT - 2} ${path} ${WIDTH - 2},${HEIGHT - 2}`}
                fill="currentColor"
                opacity="0.15"
              />
              <polyline
                points={path}
                fill="none"
                stroke="currentColor"
                strokeWidth="2"
                vectorEffect="non-scaling-stroke"
              />
            </svg>
          </figure>
        );
      })}
    </div>
  );
}

function formatValue(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString("en-US") : value.toFixed(1);
}
