// Assisted-search activities: read the query, plan a round, search one sub-question, judge candidates, charge once,
// and refund that charge when the answer never reached its caller.
import { ASSISTED_SEARCH_ENDPOINT } from "../src/domain/events.js";
import { ApplicationFailure } from "@temporalio/activity";
import { asActivity } from "./asActivity.js";
import type { Db } from "../src/eventstore/db.js";
import type { Accounts } from "../src/usecases/accounts/accounts.js";
import type { AuthContext } from "../src/usecases/auth/context.js";
import type { PlanInput, QueryUnderstanding, Reasoner, UnderstandInput } from "../src/reasoner/port.js";
import { Rejection } from "../src/domain/rejection.js";
import { chargeModeOf } from "../src/domain/organization.js";
import { readByIdempotencyKey } from "../src/eventstore/eventStore.js";
import { searchChargeKey } from "../src/usecases/accounts/chargeBatch.js";
import { retrieve, type SearchDeps } from "../src/usecases/search/pipeline.js";
import { queryProblem } from "../src/usecases/search/queryValidation.js";
import { assistedCharge } from "../src/usecases/assisted/assistedCharge.js";
import { loadQueryRecord, markRefundedUndelivered, queryRecordInsert } from "../src/usecases/search/queryCache.js";
import { guarded } from "../src/usecases/limits/quotas.js";
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

export interface AssistedActivityDeps extends SearchDeps {
  db: Db;
  accounts: Accounts;
  reasoner: Reasoner;
  clock: () => Date;
  /**
   * fault injection for crash tests: the search step pauses this long before searching, so a worker can be killed
   * mid-fan-out
   */
  fanOutDelayMs?: number;
  /**
   * fault injection for crash tests: the charge step pauses this long after its charge commits, before it reports it
   */
  afterChargeDelayMs?: number;
}

export function createAssistedActivities(deps: AssistedActivityDeps): AssistedActivities {
  const { db, accounts, reasoner, clock } = deps;

  /** The caller as the HTTP request authorized it: the organization's prices and the key's scope as they are now. */
  async function callerOf(orgId: string, keyId: string): Promise<AuthContext> {
    const [org, key] = await Promise.all([
      guarded("the account store", () => accounts.getOrganization(orgId)),
      guarded("the account store", () => accounts.getKey(keyId)),
    ]);
    if (!org || !key)
      throw new Rejection("NOT_FOUND", "the organization or API key of this assisted search no longer exists");
    return { org, key, billingMode: org.billingMode };
  }

  /**
   * The charge made for this query, read back from its record: a retried charge step reports it instead of charging
   * again.
   */
  async function earlierCharge(queryId: string): Promise<ChargeAssistedOutcome | undefined> {
    const event = (await readByIdempotencyKey(db, searchChargeKey(queryId))).find((e) => e.type === "SearchCharged");
    if (!event || event.type !== "SearchCharged") return undefined;
    const record = await loadQueryRecord(db, queryId);
    const assisted = record?.payload.assisted;
    const balance = (await accounts.getOrganization(event.data.orgId))?.balanceMicros ?? 0n;
    return {
      deliveredIds: record?.payload.rows.map((r) => r.id) ?? event.data.resultIds ?? [],
      withheldByMaxCost: assisted?.withheldByMaxCost ?? 0,
      chargedMicros: event.data.amountMicros,
      tokensCharged: event.data.tokens,
      balanceMicros: balance.toString(),
    };
  }

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
      return asActivity(async () => {
        if (deps.fanOutDelayMs) await new Promise((r) => setTimeout(r, deps.fanOutDelayMs));
        const caller = await callerOf(input.orgId, input.keyId);
        const search = (constraints: unknown) =>
          retrieve(deps, caller, {
            collections: input.collections,
            query: input.subQuestion,
            limit: input.limit,
            filters: input.callerFilters,
            constraints,
          });
        // a constraint the reasoner read off the query that these collections cannot take is dropped, not refused:
        // the caller's own filters were checked before the run started
        const outcome = await search(input.queryFilter).catch((err) => {
          if (input.queryFilter != null && err instanceof Rejection && err.code === "INVALID_FILTER")
            return search(null);
          throw err;
        });
        const candidates: AssistedCandidate[] = outcome.rows.map((row, rank) => ({
          row,
          subQuestion: input.subQuestion,
          rank,
        }));
        return {
          candidates,
          filterWarnings: outcome.filterWarnings ?? [],
          journalMetricExpansions: outcome.journalMetricExpansions ?? [],
        };
      });
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

    /**
     * One charge for the delivered rows, committed with the query record that holds them (idempotent by the query id).
     * Refused once the HTTP caller's deadline has passed: that caller was told 503 and nothing charged.
     */
    async chargeAssisted(c: ChargeAssistedInput): Promise<ChargeAssistedOutcome> {
      return asActivity(async () => {
        const { input } = c;
        const earlier = await earlierCharge(input.queryId);
        if (earlier) return earlier;
        // wall time, as the waiting HTTP call measures it (the service clock may be a test's fixed one)
        if (Date.now() > input.chargeDeadline) {
          throw ApplicationFailure.create({
            message: "the caller stopped waiting before the charge; nothing was charged",
            type: "CHARGE_DEADLINE_PASSED",
            nonRetryable: true,
          });
        }
        // maxCost bounds what the call charges: only an organization billed live pays, so only its rows are cut
        const payer = await guarded("the account store", () => accounts.getOrganization(input.orgId));
        const paysLive = payer !== undefined && chargeModeOf(payer) === "live";
        const { kept, withheld, lines, record } = assistedCharge(c, { paysLive, now: clock() });
        const charged = await guarded("the billing store", () =>
          accounts.chargeSearch({
            orgId: input.orgId,
            keyId: input.keyId,
            queryId: input.queryId,
            endpoint: ASSISTED_SEARCH_ENDPOINT,
            collections: lines,
            resultIds: kept.map((r) => r.id),
            requestId: input.requestId,
            alsoWrite: queryRecordInsert(record),
          }),
        );
        if (deps.afterChargeDelayMs) await new Promise((r) => setTimeout(r, deps.afterChargeDelayMs));
        if (charged.duplicate) return (await earlierCharge(input.queryId))!;
        const event = charged.events[0];
        return {
          deliveredIds: kept.map((r) => r.id),
          withheldByMaxCost: withheld,
          chargedMicros: event && event.type === "SearchCharged" ? event.data.amountMicros : "0",
          tokensCharged: event && event.type === "SearchCharged" ? event.data.tokens : 0,
          balanceMicros: charged.balanceMicros.toString(),
        };
      });
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
export const UNDELIVERED_REFUND_REFERENCE = "assisted answer not delivered: charge refunded";

export type { AssistedActivities };
