// Unlock activities: the quota check and the atomic charge-and-unlock.
import { asActivity } from "./asActivity.js";
import type { Db } from "../src/eventstore/db.js";
import type { Accounts } from "../src/usecases/accounts/accounts.js";
import { unlockChargeKey } from "../src/usecases/accounts/charges.js";
import { readByIdempotencyKey } from "../src/eventstore/eventStore.js";
import { Rejection } from "../src/domain/rejection.js";
import { assertFresh, loadQueryRecord, type QueryRecord } from "../src/usecases/search/queryCache.js";
import { assertQueryQuota, guarded, takeMinuteBudget } from "../src/usecases/limits/quotas.js";
import {
  type ChargeInput,
  type ChargeOutcome,
  type QuotaDecision,
  type UnlockActivities,
  type UnlockInput,
} from "../workflows/unlockTypes.js";

export interface UnlockActivityDeps {
  db: Db;
  accounts: Accounts;
  clock: () => Date;
  /**
   * fault injection for crash tests: pause after the charge commits and before its result reaches the workflow, so a
   * worker can be killed with the charge in the store but not in the run's history
   */
  afterChargeDelayMs?: number;
}

async function requireRecord(db: Db, queryId: string): Promise<QueryRecord> {
  const record = await loadQueryRecord(db, queryId);
  if (!record) throw new Rejection("NOT_FOUND", `query ${queryId} not found`);
  return record;
}

/**
 * The charge refuses an expired preview: the 7 days or the payload version may have run out since the request was
 * checked.
 */
function requireFresh(record: QueryRecord, now: Date): QueryRecord {
  assertFresh(record, now, "preview");
  return record;
}

export function createUnlockActivities(deps: UnlockActivityDeps): UnlockActivities {
  const { db, accounts, clock } = deps;
  return {
    /** Only an unlock of new rows is checked: it takes one request of the per-minute budget and needs quota left. */
    async checkUnlockQuota(input: UnlockInput): Promise<QuotaDecision> {
      return asActivity(async () => {
        const unlocked = await guarded("the quota store", () => accounts.unlockedIds(input.queryId));
        const freshIds = input.requestedIds.filter((id) => !unlocked.has(id));
        if (freshIds.length === 0) return { freshIds };
        const org = await guarded("the quota store", () => accounts.getOrganization(input.orgId));
        if (!org) throw new Rejection("NOT_FOUND", "organization not found");
        const now = clock();
        await takeMinuteBudget(db, org, now);
        await assertQueryQuota(db, org, now);
        return { freshIds };
      });
    },

    /** Idempotent by chargeKey: a repeated call returns what the first one charged and unlocked. */
    async chargeUnlock(input: ChargeInput): Promise<ChargeOutcome> {
      return asActivity(async () => {
        const earlier = (await readByIdempotencyKey(db, unlockChargeKey(input.chargeKey))).find(
          (e) => e.type === "ResultsUnlocked",
        );
        if (earlier && earlier.type === "ResultsUnlocked")
          return {
            chargedMicros: earlier.data.amountMicros,
            unlockedIds: earlier.data.resultIds,
            ...(await balanceAfter(db, earlier.position)),
          };
        if (input.freshIds.length === 0) return { chargedMicros: "0", unlockedIds: [] };
        const record = requireFresh(await requireRecord(db, input.queryId), clock());
        const wanted = new Set(input.freshIds);
        const rows = record.payload.rows
          .filter((r) => wanted.has(r.id))
          .map((r) => ({
            id: r.id,
            collection: r.collection,
            tokens: r.tokens,
            pricePer1000Micros: BigInt(r.pricePer1000Micros),
          }));
        const result = await accounts.unlockResults({
          orgId: input.orgId,
          keyId: input.keyId,
          queryId: input.queryId,
          rows,
          workflowId: input.chargeKey,
          ...(input.actor ? { actor: input.actor } : {}),
          ...(input.requestId ? { requestId: input.requestId } : {}),
        });
        if (deps.afterChargeDelayMs) await new Promise((r) => setTimeout(r, deps.afterChargeDelayMs));
        const event = result.events.find((e) => e.type === "ResultsUnlocked");
        if (!event || event.type !== "ResultsUnlocked") return { chargedMicros: "0", unlockedIds: [] };
        return {
          chargedMicros: event.data.amountMicros,
          unlockedIds: event.data.resultIds,
          ...(await balanceAfter(db, event.position)),
        };
      });
    },
  };
}

/**
 * The balance right after the charge at `position`, as its ledger line says: what the unlock's X-Credits-Remaining
 * reports, whatever other calls charged since.
 */
async function balanceAfter(db: Db, position: number): Promise<{ balanceAfterMicros?: string }> {
  const [line] = await db.query<{ balance: string }>(
    "SELECT balance_after_micros::text AS balance FROM proj_ledger WHERE position = $1",
    [position],
  );
  return line ? { balanceAfterMicros: line.balance } : {};
}
