import { capacityRates } from "./capacity.js";
import type { LoadConfig } from "./load.js";

/** A load's plan over time, for a preview: corners of the curve as [seconds, value]. */
export interface LoadShape {
  unit: "VUs" | "iterations/s";
  points: Array<[number, number]>;
  /** The plan's length is an upper bound (per-vu- and shared-iterations end when the iterations are done). */
  openEnded: boolean;
}

export function loadShape(load: LoadConfig): LoadShape {
  const s = (ms: number) => ms / 1000;
  switch (load.executor) {
    case "constant-vus":
      return {
        unit: "VUs",
        openEnded: false,
        points: [
          [0, load.rampUp > 0 ? 0 : load.vus],
          [s(load.rampUp), load.vus],
          [s(load.duration), load.vus],
        ],
      };
    case "per-vu-iterations":
    case "shared-iterations":
      return {
        unit: "VUs",
        openEnded: true,
        points: [
          [0, load.vus],
          [s(load.maxDuration), load.vus],
        ],
      };
    case "constant-arrival-rate":
      return {
        unit: "iterations/s",
        openEnded: false,
        points: [
          [0, load.rate],
          [s(load.duration), load.rate],
        ],
      };
    case "ramping-vus":
    case "ramping-arrival-rate": {
      let t = 0;
      const start = load.executor === "ramping-vus" ? load.startVus : load.startRate;
      const points: Array<[number, number]> = [[0, start]];
      for (const stage of load.stages) {
        t += s(stage.duration);
        points.push([t, stage.target]);
      }
      return { unit: load.executor === "ramping-vus" ? "VUs" : "iterations/s", openEnded: false, points };
    }
    case "capacity-search": {
      // A staircase, ended early at the breaking point: the plan is its upper bound.
      const points: Array<[number, number]> = [];
      capacityRates(load).forEach((rate, i) => {
        points.push([s(i * load.stepDuration), rate], [s((i + 1) * load.stepDuration), rate]);
      });
      return { unit: "iterations/s", openEnded: true, points };
    }
  }
}
