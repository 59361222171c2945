import type { RunRow } from "@volley/db";
import {
  type CapacityResult,
  type LoadChangeRecord,
  parseScenario,
  type SaturationWarning,
  type Scenario,
  type ScenarioInput,
  type ThresholdResult,
} from "@volley/protocol";

/**
 * A run row's JSON columns, each read in one place with its type: what the master wrote there,
 * so it is trusted as typed (the scenario is validated again, as the engine's input must be).
 */
export const runColumns = {
  /** The scenario as the user wrote it. */
  scenarioInput(run: Pick<RunRow, "scenario">): ScenarioInput {
    return JSON.parse(run.scenario) as ScenarioInput;
  },

  /** The scenario, validated and laid out. */
  scenario(run: Pick<RunRow, "scenario">): Scenario {
    return parseScenario(JSON.parse(run.scenario));
  },

  warnings(run: Pick<RunRow, "warnings">): SaturationWarning[] {
    return JSON.parse(run.warnings) as SaturationWarning[];
  },

  thresholds(run: Pick<RunRow, "thresholds">): ThresholdResult[] {
    return run.thresholds ? (JSON.parse(run.thresholds) as ThresholdResult[]) : [];
  },

  loadChanges(run: Pick<RunRow, "loadChanges">): LoadChangeRecord[] {
    return JSON.parse(run.loadChanges) as LoadChangeRecord[];
  },

  /** A capacity search's result so far (null for other runs). */
  capacity(run: Pick<RunRow, "capacity">): CapacityResult | null {
    return run.capacity ? (JSON.parse(run.capacity) as CapacityResult) : null;
  },
};
