// How many candidates one judge call weighs, and how a round's searches share them: the allocation the judge was
// calibrated with (bench/calibrateJudge.ts), so the workflow should search the same way.

/**
 * candidates judged per call: the sub-questions' hits merged by chunk id (best retrieval score kept), the best this
 * many
 */
export const CANDIDATES_PER_CALL = 50;

/** the `limit` of each sub-question's internal search when a round searches `subQuestions` of them */
export function candidatesPerSubQuestion(subQuestions: number, budget = CANDIDATES_PER_CALL): number {
  return Math.ceil(budget / Math.max(1, subQuestions));
}
