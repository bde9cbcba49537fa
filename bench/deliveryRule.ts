// The judge's raw delivery rule, the calibration benchmarks' "before" (bench/calibrateVerdicts.ts): the service
// decides delivery on the verdict scale (verifiedOnScale in src/reasoner/builtin/verdictScale.ts), not with this.
import type { JudgeRule } from "../src/reasoner/builtin/judge.js";

/** The part of a judge that decides delivery from the probabilities. */
type DeliveryRule = Pick<JudgeRule, "threshold" | "relativeCut" | "floor">;

/**
 * Verified: at or above the threshold (with a floor: the call's best at or above the threshold, and the candidate at
 * or above the floor) and, for a claim to check, within the relative cut of the call's best probability. The cut was
 * fitted on SciFact claims, which one or two documents support; a question or a topic asks for the literature on it,
 * so the cut does not apply to it (the DBT question asked for 10 trials and the cut delivered 2:
 * docs/measurements.md).
 */
export function deliveryRule(model: DeliveryRule, probabilities: readonly number[], claim = true): boolean[] {
  const best = probabilities.reduce((m, p) => Math.max(m, p), 0);
  const cut = claim ? model.relativeCut * best : 0;
  const floor = model.floor ?? model.threshold;
  return probabilities.map((p) => best >= model.threshold && p >= floor && p >= cut);
}
