import {
  MAX_METRICS_PER_RUN,
  METRIC_UNITS,
  type MetricKind,
  type MetricUnit,
  metricNameProblem,
} from "@volley/protocol";
import type { Counter, Gauge, Rate, Trend, VuMetrics } from "@volley/script";
import { MetricRecorder } from "@volley/stats";

type Handle = Trend | Counter | Rate | Gauge;

/**
 * A thread's custom metrics (`vu.metrics`), shared by all its scripted VUs: each name made once,
 * with one type, and handed back on every later call. A wrong name, a second type or a value a
 * metric cannot take throws: the script's iteration ends with an error of kind `script` at the
 * line that did it, and nothing is recorded.
 */
export class ScriptMetrics {
  private readonly byName = new Map<string, { kind: MetricKind; handle: Handle; recorder: MetricRecorder }>();
  readonly api: VuMetrics;

  constructor(private readonly histograms = true) {
    this.api = {
      trend: (name, options) => this.handle(name, { type: "trend", unit: unitOf(name, options) }) as Trend,
      counter: (name) => this.handle(name, { type: "counter", unit: "none" }) as Counter,
      rate: (name) => this.handle(name, { type: "rate", unit: "none" }) as Rate,
      gauge: (name) => this.handle(name, { type: "gauge", unit: "none" }) as Gauge,
    };
  }

  *recorders(): IterableIterator<MetricRecorder> {
    for (const metric of this.byName.values()) yield metric.recorder;
  }

  private handle(name: string, kind: MetricKind): Handle {
    const known = this.byName.get(name);
    if (known) {
      if (known.kind.type === kind.type && known.kind.unit === kind.unit) return known.handle;
      throw new TypeError(
        `vu.metrics.${kind.type}("${name}"): "${name}" is already a ${describe(known.kind)}, it cannot also be a ${describe(kind)}`,
      );
    }
    const problem = typeof name === "string" ? metricNameProblem(name) : "is not a string";
    if (problem) throw new TypeError(`vu.metrics.${kind.type}(${JSON.stringify(name)}): the name ${problem}`);
    if (this.byName.size >= MAX_METRICS_PER_RUN) {
      throw new RangeError(
        `vu.metrics.${kind.type}("${name}"): a run records at most ${MAX_METRICS_PER_RUN} custom metrics`,
      );
    }
    const recorder = new MetricRecorder(name, kind, this.histograms);
    const handle = makeHandle(name, kind, recorder);
    this.byName.set(name, { kind, handle, recorder });
    return handle;
  }
}

function makeHandle(name: string, kind: MetricKind, recorder: MetricRecorder): Handle {
  switch (kind.type) {
    case "trend":
      return {
        add(value: number) {
          recorder.add(checkedValue(`trend "${name}"`, value, true));
        },
      };
    case "counter":
      return {
        add(value = 1) {
          recorder.add(checkedValue(`counter "${name}"`, value, true));
        },
      };
    case "rate":
      return {
        add(value: boolean) {
          recorder.addRate(Boolean(value));
        },
      };
    case "gauge":
      return {
        set(value: number) {
          recorder.set(checkedValue(`gauge "${name}"`, value, false), Date.now());
        },
      };
  }
}

function checkedValue(what: string, value: unknown, positive: boolean): number {
  if (typeof value !== "number" || !Number.isFinite(value) || (positive && value < 0)) {
    throw new TypeError(
      `${what} takes a finite number${positive ? " ≥ 0" : ""}, not ${typeof value === "number" ? value : typeof value}`,
    );
  }
  return value;
}

function unitOf(name: string, options: { unit?: string } | undefined): MetricUnit {
  const unit = options?.unit ?? "ms";
  if (!(METRIC_UNITS as readonly string[]).includes(unit)) {
    throw new TypeError(
      `vu.metrics.trend("${name}"): unit "${unit}" is not one of ${METRIC_UNITS.join(", ")}`,
    );
  }
  return unit as MetricUnit;
}

function describe(kind: MetricKind): string {
  return kind.type === "trend" ? `trend (unit ${kind.unit})` : kind.type;
}
