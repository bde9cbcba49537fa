// The assisted run's steps that touch the store and the engines, as its activities call them: who the caller is now,
// one sub-question's search, and the one charge for the delivered rows (idempotent by the query id).
import { ApplicationFailure } from "@temporalio/activity";
import type {
  AssistedCandidate,
  ChargeAssistedInput,
  ChargeAssistedOutcome,
  SearchPlanInput,
  SearchPlanOutcome,
} from "../../../workflows/assistedTypes.js";
import { ASSISTED_SEARCH_ENDPOINT } from "../../domain/events.js";
import { chargeModeOf } from "../../domain/organization.js";
import { Rejection } from "../../domain/rejection.js";
import type { Db } from "../../eventstore/db.js";
import { readByIdempotencyKey } from "../../eventstore/eventStore.js";
import type { Accounts } from "../accounts/accounts.js";
import { searchChargeKey } from "../accounts/chargeBatch.js";
import type { AuthContext } from "../auth/context.js";
import { guarded } from "../limits/quotas.js";
import { retrieve, type SearchDeps } from "../search/pipeline.js";
import { loadQueryRecord, queryRecordInsert } from "../search/queryCache.js";
import { assistedCharge } from "./assistedCharge.js";

export interface AssistedStepDeps extends SearchDeps {
  db: Db;
  accounts: Accounts;
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

/** The caller as the HTTP request authorized it: the organization's prices and the key's scope as they are now. */
async function callerOf(accounts: Accounts, orgId: string, keyId: string): Promise<AuthContext> {
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
async function earlierAssistedCharge(
  db: Db,
  accounts: Accounts,
  queryId: string,
): Promise<ChargeAssistedOutcome | undefined> {
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

/** One sub-question's search as the caller would run it: its candidates, and what the filters said. */
export async function searchSubQuestion(deps: AssistedStepDeps, input: SearchPlanInput): Promise<SearchPlanOutcome> {
  if (deps.fanOutDelayMs) await new Promise((r) => setTimeout(r, deps.fanOutDelayMs));
  const caller = await callerOf(deps.accounts, input.orgId, input.keyId);
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
    if (input.queryFilter != null && err instanceof Rejection && err.code === "INVALID_FILTER") return search(null);
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
}

/**
 * One charge for the delivered rows, committed with the query record that holds them (idempotent by the query id).
 * Refused once the HTTP caller's deadline has passed: that caller was told 503 and nothing charged.
 */
export async function chargeAssisted(deps: AssistedStepDeps, c: ChargeAssistedInput): Promise<ChargeAssistedOutcome> {
  const { db, accounts, clock } = deps;
  const { input } = c;
  const earlier = await earlierAssistedCharge(db, accounts, input.queryId);
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
  const recordInsert = await queryRecordInsert(record);
  const charged = await guarded("the billing store", () =>
    accounts.chargeSearch({
      orgId: input.orgId,
      keyId: input.keyId,
      queryId: input.queryId,
      endpoint: ASSISTED_SEARCH_ENDPOINT,
      collections: lines,
      resultIds: kept.map((r) => r.id),
      requestId: input.requestId,
      alsoWrite: recordInsert,
    }),
  );
  if (deps.afterChargeDelayMs) await new Promise((r) => setTimeout(r, deps.afterChargeDelayMs));
  if (charged.duplicate) return (await earlierAssistedCharge(db, accounts, input.queryId))!;
  const event = charged.events[0];
  return {
    deliveredIds: kept.map((r) => r.id),
    withheldByMaxCost: withheld,
    chargedMicros: event && event.type === "SearchCharged" ? event.data.amountMicros : "0",
    tokensCharged: event && event.type === "SearchCharged" ? event.data.tokens : 0,
    balanceMicros: charged.balanceMicros.toString(),
  };
}
