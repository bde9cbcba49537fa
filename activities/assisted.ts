// Assisted-search activities: read the query, plan a round, search one sub-question, judge candidates, charge once,
// and refund that charge when the answer never reached its caller.
import { asActivity } from "./asActivity.js";
import type { PlanInput, QueryUnderstanding, Reasoner, UnderstandInput } from "../src/reasoner/port.js";
import { queryProblem } from "../src/usecases/search/queryValidation.js";
import { markRefundedUndelivered } from "../src/usecases/search/queryCache.js";
import { guarded } from "../src/usecases/limits/quotas.js";
import { chargeAssisted, searchSubQuestion, type AssistedStepDeps } from "../src/usecases/assisted/assistedSteps.js";
import type {
  AssistedActivities,
  AssistedCandidate,
  ChargeAssistedInput,
  ChargeAssistedOutcome,
  RefundUndeliveredInput,
  SearchPlanInput,
  SearchPlanOutcome,
  UnderstandOutcome,
} from "../workflows/assistedTypes.js";

export interface AssistedActivityDeps extends AssistedStepDeps {
  reasoner: Reasoner;
}

export function createAssistedActivities(deps: AssistedActivityDeps): AssistedActivities {
  const { accounts, reasoner, clock } = deps;

  return {
    /**
     * The reasoner's reading; constraints it read that cannot apply to these collections are dropped, never refused.
     */
    async understandQuery(input: UnderstandInput & { collections?: string[] }): Promise<UnderstandOutcome> {
      return asActivity(async () => {
        const understanding = await reasoner.understand(input);
        return { ...understanding, reasoner: understanding.answeredBy ?? reasoner.name };
      });
    },

    async planRound(input: PlanInput): Promise<string[]> {
      // a sub-question the search would refuse as INVALID_QUERY ("M" of "M. stadtmanae") is dropped, whichever
      // reasoner proposed it: the caller's query was searchable, and one bad internal search must not fail the call
      return asActivity(async () => (await reasoner.plan(input)).filter((q) => queryProblem(q) === null));
    },

    async searchSubQuestion(input: SearchPlanInput): Promise<SearchPlanOutcome> {
      return asActivity(() => searchSubQuestion(deps, input));
    },

    async judgeCandidates(input: {
      query: string;
      understanding: QueryUnderstanding;
      candidates: AssistedCandidate[];
    }) {
      return asActivity(() =>
        reasoner.judge(
          input.query,
          input.understanding,
          input.candidates.map(({ row, subQuestion, rank }) => ({
            id: row.id,
            collection: row.collection,
            text: row.text,
            section: typeof row.metadata.section === "string" ? row.metadata.section : null,
            title: typeof row.metadata.title === "string" ? row.metadata.title : null,
            subQuestion,
            retrievalScore: row.relevance ?? 0,
            rank,
          })),
        ),
      );
    },

    async chargeAssisted(c: ChargeAssistedInput): Promise<ChargeAssistedOutcome> {
      return asActivity(() => chargeAssisted(deps, c));
    },

    /**
     * The compensation of the charge: a refund of exactly what it took, tied to the query like an operator's query
     * refund (the same decider bounds it by what the query cost), appended once (idempotent by the query id), and the
     * query record marked in the same statement so the answer is never served afterwards.
     */
    async refundUndelivered(input: RefundUndeliveredInput): Promise<void> {
      return asActivity(async () => {
        await guarded("the billing store", () =>
          accounts.issueRefund(
            input.orgId,
            BigInt(input.amountMicros),
            UNDELIVERED_REFUND_REFERENCE,
            input.queryId,
            { kind: "workflow", id: `assisted-${input.queryId}` },
            {
              idempotencyKey: `undelivered:${input.queryId}`,
              alsoWrite: markRefundedUndelivered(input.queryId, clock()),
            },
          ),
        );
      });
    },
  };
}

/** The reference of the refund of an assisted answer nobody received, as the ledger shows it. */
const UNDELIVERED_REFUND_REFERENCE = "assisted answer not delivered: charge refunded";

export type { AssistedActivities };
