// Idempotency-Key on preview and assisted search: per organization for 24 h, a repeat with the same body gets the
// original queryId. What a repeat gets while the first request runs, and after, is one rule: src/domain/idempotency.ts.
import { createHash } from "node:crypto";
import type { Queryable } from "../../eventstore/db.js";
import { canonicalJson } from "../../eventstore/eventStore.js";
import { Rejection } from "../../domain/rejection.js";
import { keyInProgress, type KeyedOperation } from "../../domain/idempotency.js";

const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A claim still without a queryId after this long belongs to a request that died; a retry may take it over. */
const ABANDONED_CLAIM_MS = 2 * 60 * 1000;

type IdempotencyClaim = { kind: "claimed" } | { kind: "replay"; queryId: string };

export function idempotencyBodyHash(body: unknown): string {
  return createHash("sha256")
    .update(canonicalJson(body ?? null))
    .digest("hex");
}

function assertIdempotencyKey(key: string): void {
  if (key.length < 1 || key.length > 255)
    throw new Rejection("VALIDATION_ERROR", "Idempotency-Key must be 1 to 255 characters");
}

/**
 * What a claim keeps: the body's hash under the name of the operation asking, so one key never stands for the same
 * body sent to two endpoints (a search's key replayed on /preview would otherwise answer the paid search as a preview).
 */
function claimedBodyHash(operation: KeyedOperation, bodyHash: string): string {
  return createHash("sha256").update(`${operation}\u0000${bodyHash}`).digest("hex");
}

/** What a request with an Idempotency-Key asks to be kept by: the key, checked, and the hash of its body. */
export function idempotencyRequest(key: string, body: unknown): { key: string; bodyHash: string } {
  assertIdempotencyKey(key);
  return { key, bodyHash: idempotencyBodyHash(body) };
}

interface ClaimRow {
  body_hash: string;
  query_id: string | null;
  created_at: Date | string;
}

/**
 * Claims (orgId, key) for this body, or tells what the earlier request with the key became. One INSERT decides
 * between concurrent requests on every process; an expired or abandoned claim is taken over by a conditional UPDATE.
 * A claim whose request has not started its run yet is 409 naming `operation`, the one asking.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  orgId: string,
  key: string,
  bodyHash: string,
  now: Date,
  operation: KeyedOperation,
): Promise<IdempotencyClaim> {
  return claimOf(db, orgId, key, { stored: claimedBodyHash(operation, bodyHash), legacy: bodyHash }, now, operation);
}

/**
 * A claim's hashes: the one it stores, and the body's alone, which a claim made before claims were kept per endpoint
 * holds (a retry of such a request is a replay, as it was when the claim was made, never "use a new key": a client
 * that obeys would pay twice).
 */
interface ClaimHashes {
  stored: string;
  legacy: string;
}

async function claimOf(
  db: Queryable,
  orgId: string,
  key: string,
  hashes: ClaimHashes,
  now: Date,
  operation: KeyedOperation,
): Promise<IdempotencyClaim> {
  const bodyHash = hashes.stored;
  const inserted = await db.query(
    `INSERT INTO preview_idempotency (org_id, idem_key, body_hash, query_id, created_at) VALUES ($1, $2, $3, NULL, $4)
     ON CONFLICT (org_id, idem_key) DO NOTHING RETURNING idem_key`,
    [orgId, key, bodyHash, now.toISOString()],
  );
  if (inserted.length === 1) return { kind: "claimed" };
  const [row] = await db.query<ClaimRow>(
    "SELECT body_hash, query_id, created_at FROM preview_idempotency WHERE org_id = $1 AND idem_key = $2",
    [orgId, key],
  );
  if (!row) return claimOf(db, orgId, key, hashes, now, operation);
  const age = now.getTime() - new Date(row.created_at).getTime();
  const stale = age >= IDEMPOTENCY_KEY_LIFETIME_MS || (row.query_id === null && age >= ABANDONED_CLAIM_MS);
  if (stale) {
    const taken = await db.query(
      `UPDATE preview_idempotency SET body_hash = $3, query_id = NULL, created_at = $4
       WHERE org_id = $1 AND idem_key = $2 AND created_at = $5 RETURNING idem_key`,
      [orgId, key, bodyHash, now.toISOString(), new Date(row.created_at).toISOString()],
    );
    if (taken.length === 1) return { kind: "claimed" };
    return claimOf(db, orgId, key, hashes, now, operation);
  }
  if (row.body_hash !== bodyHash && row.body_hash !== hashes.legacy) {
    throw new Rejection(
      "IDEMPOTENCY_KEY_REUSED",
      "this Idempotency-Key was used in the last 24 hours for another request (a different body, or the same body " +
        "on another endpoint: a key stands for one request); use a new key",
    );
  }
  // no queryId yet: the first request is still checking and starting its run
  if (row.query_id === null) throw keyInProgress(operation);
  return { kind: "replay", queryId: row.query_id };
}

export async function completeIdempotencyKey(
  db: Queryable,
  orgId: string,
  key: string,
  queryId: string,
): Promise<void> {
  await db.query("UPDATE preview_idempotency SET query_id = $3 WHERE org_id = $1 AND idem_key = $2", [
    orgId,
    key,
    queryId,
  ]);
}

/** Frees the key after the preview failed, so a retry with the same key runs it again. */
export async function releaseIdempotencyKey(db: Queryable, orgId: string, key: string): Promise<void> {
  await db.query("DELETE FROM preview_idempotency WHERE org_id = $1 AND idem_key = $2 AND query_id IS NULL", [
    orgId,
    key,
  ]);
}

/** A replay of an Idempotency-Key that another API key of the organization used: refused, whatever it holds. */
export const idempotencyKeyOfAnotherKey = (): Rejection =>
  new Rejection(
    "IDEMPOTENCY_KEY_REUSED",
    "this Idempotency-Key was used by another API key of your organization in the last 24 hours; use a new key",
  );
