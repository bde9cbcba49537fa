// Which collections can be searched yet: on a first start the service listens while the demo collections ingest,
// one after another, and answers for each as soon as it is committed.
import { Rejection } from "./rejection.js";

/**
 * ingesting: its index is being built (searches answer 503); failed: its ingestion at start failed (503 until a restart
 * ingests it)
 */
export type CollectionState = "ready" | "ingesting" | "failed";

/** How long a client is told to wait before asking again for a collection still ingesting (Retry-After). */
const INGESTING_RETRY_AFTER_SECONDS = 30;

export interface CollectionReadiness {
  stateOf(collection: string): CollectionState;
  set(collection: string, state: CollectionState): void;
  /** drops a retired collection (its searches answer 404, not 503) */
  forget(collection: string): void;
  /** the physical collections by state, each list in catalogue order */
  summary(): { ready: string[]; ingesting: string[]; failed: string[] };
  /** 503 SERVICE_UNAVAILABLE naming the first of these physical collections that is not ready */
  assertSearchable(collections: readonly string[]): void;
  /**
   * Before a request answers 503 for a collection not ready: asks the confirmer (confirmWith) whether its
   * ingestion completed since the last look, so "completed" in the operator's view means searchable at once, not
   * after the next periodic check. Resolves when nothing named is ingesting, without a confirmer, or once it answered
   * (its failure leaves the states as they were)
   */
  settle(collections: readonly string[]): Promise<void>;
  /** installs what settle asks about the collections not ready (the process's follower of ingestions) */
  confirmWith(confirm: (collections: readonly string[]) => Promise<void>): void;
}

/**
 * Every collection of `names` (the catalogue's physical collections) starts ready; ingestion marks what it will build.
 */
export function createCollectionReadiness(names: readonly string[]): CollectionReadiness {
  const states = new Map<string, CollectionState>(names.map((name) => [name, "ready"]));
  const stateOf = (collection: string): CollectionState => states.get(collection) ?? "ready";
  let confirm: ((collections: readonly string[]) => Promise<void>) | undefined;
  return {
    stateOf,
    async settle(collections) {
      const waiting = collections.filter((c) => stateOf(c) !== "ready");
      if (!confirm || waiting.length === 0) return;
      await confirm(waiting).catch(() => undefined);
    },
    confirmWith(next) {
      confirm = next;
    },
    set(collection, state) {
      states.set(collection, state);
    },
    forget(collection) {
      states.delete(collection);
    },
    summary() {
      const byState = { ready: [] as string[], ingesting: [] as string[], failed: [] as string[] };
      for (const [name, state] of states) byState[state].push(name);
      return byState;
    },
    assertSearchable(collections) {
      const waiting = collections.filter((c) => stateOf(c) !== "ready");
      const first = waiting[0];
      if (first === undefined) return;
      if (stateOf(first) === "ingesting") {
        throw new Rejection(
          "SERVICE_UNAVAILABLE",
          `collection "${first}" is still being ingested (the service answers for each collection once its ` +
            "index is built); retry in a minute or two, GET /readyz lists the collections still ingesting",
          { collections: waiting, retryAfterSeconds: INGESTING_RETRY_AFTER_SECONDS },
        );
      }
      // a customer's answer: the fix is the operator's (GET /admin/v1/collections says why, and ingests it again)
      throw new Rejection(
        "SERVICE_UNAVAILABLE",
        `collection "${first}" is not available: building its index failed, and it answers once the service's ` +
          "operator has ingested it again; search the other collections meanwhile (GET /api/v1/search/collections)",
        { collections: waiting },
      );
    },
  };
}
