import { vu } from "./vu.js";

/** k6/metrics: the same names on vu.metrics (a name was made `[a-z][a-z0-9_]*` by the converter). */
export class Trend {
  constructor(
    readonly name: string,
    private readonly isTime = false,
  ) {}
  add(value: number, _tags?: Record<string, string>): void {
    vu("Trend.add")
      .metrics.trend(this.name, { unit: this.isTime ? "ms" : "none" })
      .add(value);
  }
}
export class Counter {
  constructor(readonly name: string) {}
  add(value = 1, _tags?: Record<string, string>): void {
    vu("Counter.add").metrics.counter(this.name).add(value);
  }
}
export class Rate {
  constructor(readonly name: string) {}
  add(value: unknown, _tags?: Record<string, string>): void {
    vu("Rate.add").metrics.rate(this.name).add(Boolean(value));
  }
}
export class Gauge {
  constructor(readonly name: string) {}
  add(value: number, _tags?: Record<string, string>): void {
    vu("Gauge.add").metrics.gauge(this.name).set(value);
  }
}
