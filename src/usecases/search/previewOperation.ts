// Free preview: no charge, no quota, no trial query; its own hourly limit. An Idempotency-Key makes a retry return the
// first preview. A sandbox key's preview holds synthetic rows and takes a slot of the per-minute budget, not the
// preview hour.
import type { AuthContext } from "../auth/context.js";
import { resolveTargets } from "../auth/keyScope.js";
import { Rejection } from "../../domain/rejection.js";
import { assertCollectionsReady, prepareRetrieval, retrieve, type SearchRequestInput } from "./pipeline.js";
import { freshness, loadQueryRecord, saveQueryRecord, type QueryPayload, type QueryRecord } from "./queryCache.js";
import { assertSearchableQuery } from "./queryValidation.js";
import { guarded, takePreviewBudget } from "../limits/quotas.js";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  idempotencyKeyOfAnotherKey,
  releaseIdempotencyKey,
} from "./previewIdempotency.js";
import { fingerprintOf, listFieldsOf, recordOf } from "./searchRecords.js";
import { admit, answerFromCatalogue, catalogueQuestionOf, withQueryGuard } from "./searchGate.js";
import { continuation, withNamedWork } from "./searchContinuation.js";
import { sandboxRows } from "./sandboxLists.js";
import { unlockedFor, type ListRequest, type PreviewOutcome, type SearchContext } from "./searchContext.js";

/** An Idempotency-Key as sent, with the hash of the body it came with. */
export interface PreviewIdempotency {
  key: string;
  bodyHash: string;
}

type PreviewPayload = Pick<
  QueryPayload,
  "rows" | "belowMinRelevance" | "filterWarnings" | "journalMetricExpansions" | "filtersApplied"
> &
  Parameters<typeof listFieldsOf>[1];

/** Every preview answer, shaped from the list it keeps (or, for a catalogue answer, the empty list). */
function previewOutcomeOf(
  queryId: string,
  payload: PreviewPayload,
  unlocked: Set<string>,
  more: Pick<PreviewOutcome, "idempotency" | "discovery" | "filtersApplied"> = {},
): PreviewOutcome {
  const { rows, belowMinRelevance, filterWarnings, journalMetricExpansions, filtersApplied } = payload;
  return {
    queryId,
    rows,
    list: listFieldsOf(queryId, payload),
    belowMinRelevance: belowMinRelevance ?? 0,
    unlocked,
    filterWarnings,
    journalMetricExpansions,
    filtersApplied,
    ...more,
  };
}

/**
 * The preview an Idempotency-Key already made, or null when the key is claimed now. A replay is authorized exactly like
 * a fresh request, before the key is claimed or its record read: revocation (authentication), and here the
 * collections of the body against this key's scope.
 */
async function replayedPreview(
  ctx: SearchContext,
  auth: AuthContext,
  input: SearchRequestInput,
  idempotency: PreviewIdempotency,
  now: Date,
): Promise<PreviewOutcome | null> {
  const { deps, db } = ctx;
  resolveTargets(deps.catalog, auth, input.collections);
  const claim = await guarded("the idempotency store", () =>
    claimIdempotencyKey(db, auth.org.id, idempotency.key, idempotency.bodyHash, now, "preview"),
  );
  if (claim.kind !== "replay") return null;
  const record = await loadQueryRecord(db, claim.queryId);
  if (!record || freshness(record, now) === "expired")
    throw new Rejection(
      "CACHED_RESULT_EXPIRED",
      `the preview ${claim.queryId} made with this Idempotency-Key has expired; use a new key`,
    );
  // Idempotency-Keys are one namespace per organization (the spec's preview limit is per organization), but a
  // preview belongs to the API key that ran it: only that key may re-fetch or unlock it (spec: re-fetch needs
  // the same key), and its rows show what that key unlocked. Another key of the organization replaying it
  // would see a queryId it cannot use and text it never paid for, so it is told the key is taken instead.
  if (record.keyId !== auth.key.id) {
    throw idempotencyKeyOfAnotherKey();
  }
  return previewOutcomeOf(record.queryId, record.payload, await unlockedFor(ctx, record), { idempotency: "replayed" });
}

/**
 * The record a preview answers with: the page an identical cursor call made already (`kept`), a sandbox key's
 * synthetic list, or a live retrieval saved as the preview's record.
 */
async function previewRecord(
  ctx: SearchContext,
  auth: AuthContext,
  request: SearchRequestInput,
  list: ListRequest,
  now: Date,
): Promise<{ record: QueryRecord; kept: boolean; more?: Pick<PreviewOutcome, "filtersApplied"> }> {
  const { deps, db } = ctx;
  if (list.like === undefined) await withQueryGuard(ctx, auth, async () => assertSearchableQuery(request.query));
  const fingerprint = fingerprintOf(request, list);
  const next =
    list.cursor !== undefined
      ? await continuation(ctx, auth, "preview", request, list.cursor, fingerprint, now)
      : undefined;
  // an identical cursor call made this page already: it again, without another preview of the hour
  if (next?.existing) return { record: next.existing, kept: true };
  const input = await withNamedWork(ctx, auth, request, list.like);
  // scope, existence and filters before the preview hour: a refused preview does not use one
  const prepared = await prepareRetrieval(deps, auth, input);
  if (auth.billingMode === "sandbox") {
    await admit(ctx, auth, now, false);
    const record = await sandboxRows(ctx, auth, "preview", input, now, prepared);
    return { record, kept: false, more: prepared.plan ? { filtersApplied: prepared.plan.filtersApplied } : {} };
  }
  await takePreviewBudget(db, auth.org, now);
  const outcome = await retrieve(deps, auth, next ? { ...input, page: next.exclusion } : input, prepared);
  if (next) outcome.queryId = next.queryId;
  const record = recordOf(auth, "preview", now, input, outcome, fingerprint, next?.exclusion);
  await saveQueryRecord(db, record);
  return { record, kept: false };
}

export async function preview(
  ctx: SearchContext,
  auth: AuthContext,
  request: SearchRequestInput,
  idempotency?: PreviewIdempotency,
  list: ListRequest = {},
): Promise<PreviewOutcome> {
  const { deps, db, accounts, clock } = ctx;
  const now = clock();
  // a catalogue answer is free and records no preview, so an Idempotency-Key has nothing to hold on to
  const question = list.like === undefined ? catalogueQuestionOf(ctx, request) : null;
  if (question) {
    await assertCollectionsReady(deps, auth, request.collections);
    const discovery = await answerFromCatalogue(ctx, auth, request, question, "/preview");
    return previewOutcomeOf(discovery.queryId, { rows: [] }, new Set(), { discovery });
  }
  if (idempotency) {
    const replayed = await replayedPreview(ctx, auth, request, idempotency, now);
    if (replayed) return replayed;
  }
  try {
    const { record, kept, more } = await previewRecord(ctx, auth, request, list, now);
    if (idempotency) await completeIdempotencyKey(db, auth.org.id, idempotency.key, record.queryId);
    const unlocked = kept ? await accounts.unlockedIds(record.queryId) : new Set<string>();
    return previewOutcomeOf(record.queryId, record.payload, unlocked, {
      ...more,
      idempotency: idempotency ? "created" : undefined,
    });
  } catch (err) {
    if (idempotency) await releaseIdempotencyKey(db, auth.org.id, idempotency.key).catch(() => undefined);
    throw err;
  }
}
