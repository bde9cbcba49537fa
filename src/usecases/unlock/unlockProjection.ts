// What an unlock changes: the organization's money (balance, ledger, usage, the rows unlocked per collection, the
// key's spend and last use) and one unlocks row per result. project() hands the event here; the same handler feeds the
// inline projector and replay.
import type { ProjectableEvent } from "../../domain/events.js";
import type { Change, ProjectionReader } from "../../../projections/projectionReader.js";
import { bumpOrgVersion, collectionUsageChanges, debit, keyUsed, usageChanges } from "../accounts/moneyProjection.js";

type UnlockEvent = Extract<ProjectableEvent, { type: "ResultsUnlocked" }>;

/** An unlock: money, usage, per-collection rows unlocked, and one unlocks row per result. */
export function projectUnlock(e: UnlockEvent, read: ProjectionReader): Change[] {
  const d = e.data;
  const amount = BigInt(d.amountMicros);
  const rowsByCollection = new Map(d.collections.map((line) => [line.collection, line.results ?? 0]));
  return [
    bumpOrgVersion(read, e, d.orgId, (org) => (d.billingMode === "trial" ? { trial_used: org.trial_used + 1 } : {})),
    ...debit(read, e, d.orgId, d.keyId, d.queryId, amount, "unlock"),
    ...usageChanges(read, e, d.orgId, 0, d.tokens, amount),
    ...collectionUsageChanges(read, e, d.orgId, d.collections, "unlock", rowsByCollection),
    ...d.resultIds.map((resultId): Change => ({
      table: "unlocks",
      row: { query_id: d.queryId, result_id: resultId, org_id: d.orgId, key_id: d.keyId, position: e.position },
    })),
    keyUsed(e, d.orgId, d.keyId),
  ];
}
