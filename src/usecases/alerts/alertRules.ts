// Alerts on a saved search, the pure rules: what a definition must hold, which works an alert has seen (a work is one
// identity across its chunks and collections: its DOI lower-cased, else its collection's document id), and what a run
// delivers (new works only, at or above min_relevance, best first within the run's price cap). No I/O.
import { Rejection } from "../../domain/rejection.js";
import { parseCredits } from "../../domain/money.js";
import { capToCost, type PricedRow } from "../../domain/costCap.js";
import { documentOf, type DocumentRow } from "../../retrieval/rowSelection.js";
import { assertSearchableQuery } from "../search/queryValidation.js";
import { ENDPOINT_ID_PATTERN } from "../../domain/webhooks.js";
import type { AlertDefinitionData, AlertPausedReason } from "../../domain/events.js";
import { meetsMinRelevance } from "../../domain/relevance.js";
import type { FilterNode } from "../../filters/ast.js";

export const ALERT_SCHEDULES = ["on_ingest", "daily", "weekly"] as const;
type AlertSchedule = (typeof ALERT_SCHEDULES)[number];

/** Alerts one organization may have at once (paused ones count; deleted ones do not). */
export const MAX_ALERTS_PER_ORG = 50;
const MAX_ALERT_COLLECTIONS = 10;
export const MAX_ALERT_QUERY_CHARS = 1000;
/** How many rows a run searches (and a creation seeds the seen-set from): the works a run can find at once. */
export const ALERT_SEARCH_DEPTH = 200;
/** How many new works one run delivers at most. */
const MAX_WORKS_PER_RUN = 50;

/** An alert as its creator defined it, checked and normalized (as its events hold it). */
export type AlertDefinition = AlertDefinitionData;

/** The body of POST /api/v1/alerts, as the HTTP layer hands it over (its shape checked, its rules not yet). */
export interface AlertRequest {
  query?: unknown;
  collection?: unknown;
  collections?: unknown;
  filters?: unknown;
  min_relevance?: unknown;
  one_per_document?: unknown;
  schedule?: unknown;
  max_cost_per_run?: unknown;
  webhook?: unknown;
}

const invalid = (field: string, message: string) =>
  new Rejection("VALIDATION_ERROR", `${field}: ${message}`, { field });

/** The definition a request describes, or a 422 that names the field and the fix. */
export function alertDefinitionOf(req: AlertRequest): AlertDefinition {
  if (typeof req.query !== "string" || req.query.trim() === "")
    throw invalid("query", 'give the search the alert watches, such as "CRISPR base editing in vivo"');
  if (req.query.length > MAX_ALERT_QUERY_CHARS || req.query.includes("\u0000"))
    throw invalid("query", `at most ${MAX_ALERT_QUERY_CHARS} characters, without NUL bytes`);
  assertSearchableQuery(req.query);
  if (req.collection !== undefined && req.collections !== undefined)
    throw invalid("collections", "send either collection or collections, not both");
  const names = req.collection !== undefined ? [req.collection] : req.collections;
  if (!Array.isArray(names) || names.length === 0)
    throw invalid(
      "collections",
      'name the collection the alert watches (collection: "pubmed") or several (collections: [...])',
    );
  if (names.length > MAX_ALERT_COLLECTIONS)
    throw invalid("collections", `at most ${MAX_ALERT_COLLECTIONS} collections`);
  if (names.some((n) => typeof n !== "string" || n.trim() === "" || n.length > 100 || n.includes("\u0000")))
    throw invalid("collections", "each collection is a name of at most 100 characters");
  const collections = [...new Set((names as string[]).map((n) => n.trim()))];
  const minRelevance = req.min_relevance ?? 0;
  if (typeof minRelevance !== "number" || !Number.isFinite(minRelevance) || minRelevance < 0 || minRelevance > 1)
    throw invalid("min_relevance", "a number from 0 to 1");
  const onePerDocument = req.one_per_document ?? true;
  if (typeof onePerDocument !== "boolean") throw invalid("one_per_document", "true or false");
  const schedule = req.schedule ?? "on_ingest";
  if (typeof schedule !== "string" || !(ALERT_SCHEDULES as readonly string[]).includes(schedule))
    throw invalid("schedule", `one of ${ALERT_SCHEDULES.join(", ")}`);
  let maxCostPerRunMicros: string | null = null;
  if (req.max_cost_per_run !== undefined && req.max_cost_per_run !== null) {
    const micros = typeof req.max_cost_per_run === "string" ? parseCredits(req.max_cost_per_run) : null;
    if (micros === null || micros <= 0n)
      throw invalid("max_cost_per_run", 'a positive decimal string of credits such as "0.50"');
    maxCostPerRunMicros = micros.toString();
  }
  let webhookEndpointId: string | null = null;
  if (req.webhook !== undefined && req.webhook !== null) {
    if (typeof req.webhook !== "string" || !ENDPOINT_ID_PATTERN.test(req.webhook))
      throw invalid("webhook", "the id (we_…) of one of your webhook endpoints, as POST /api/v1/webhooks answered it");
    webhookEndpointId = req.webhook;
  }
  return {
    query: req.query.trim(),
    collections,
    filters: req.filters ?? null,
    minRelevance,
    onePerDocument,
    schedule: schedule as AlertSchedule,
    maxCostPerRunMicros,
    webhookEndpointId,
  };
}

/**
 * A work's identity: its DOI lower-cased wherever it is held (`doi:10.1/x`), else its collection's document id
 * (`pubmed/123`); every chunk of it shares it. Stored as JSON text, so without the NUL the search's own key uses.
 */
function workOf(row: DocumentRow): string {
  const id = documentOf(row);
  return id.startsWith("doi\u0000") ? `doi:${id.slice(4)}` : id.replace("\u0000", "/");
}

/** The works these rows belong to, as the seen-set holds them. */
export function worksOf(rows: readonly DocumentRow[]): string[] {
  return [...new Set(rows.map(workOf))];
}

/**
 * How long before an alert was created a work may have become searchable and still count as new to it: its first
 * search and its creation are not one instant (a work committed between them is in neither), and the store's clock and
 * the service's may differ by seconds. Only a work both that recent and missed by the first search is affected: a
 * later run may send it.
 */
export const HELD_MARGIN_MS = 5 * 60_000;

/** When a collection first held a work. */
export interface FirstHeld {
  collection: string;
  at: Date;
}

/** Each work's first time in any of `collections`: the works none of them holds a time for are left out. */
export function firstHeldIn(
  times: ReadonlyMap<string, readonly FirstHeld[]>,
  collections: ReadonlySet<string>,
): Map<string, Date> {
  const first = new Map<string, Date>();
  for (const [work, entries] of times)
    for (const { collection, at } of entries) {
      const known = first.get(work);
      if (collections.has(collection) && (known === undefined || at < known)) first.set(work, at);
    }
  return first;
}

/**
 * Which of `works` were held before an alert created at `createdAt` (less HELD_MARGIN_MS), by each one's first time
 * (`firstHeld`): they count as seen, whether or not the alert's first search found them. A work without a first time
 * was held before those times were recorded.
 */
export function heldBefore(
  works: Iterable<string>,
  firstHeld: ReadonlyMap<string, Date>,
  createdAt: Date,
): Set<string> {
  const since = createdAt.getTime() - HELD_MARGIN_MS;
  const held = new Set<string>();
  for (const work of works) {
    const first = firstHeld.get(work);
    if (first === undefined || first.getTime() <= since) held.add(work);
  }
  return held;
}

/**
 * The most works a run searches within (the works new to its alert): a run with more (a large ingestion, or an alert
 * that has not run for long) searches its collections whole, ALERT_SEARCH_DEPTH rows deep, as every run once did.
 */
export const MAX_WORKS_SEARCHED = 2000;

/**
 * From when a work counts as new to an alert: its previous run (or its creation), less HELD_MARGIN_MS, so that a work
 * that became searchable while that run searched is not missed.
 */
export function newSince(alert: { created_at: string; last_run_at: string | null }): Date {
  const from = Math.max(Date.parse(alert.created_at), alert.last_run_at ? Date.parse(alert.last_run_at) : 0);
  return new Date(from - HELD_MARGIN_MS);
}

/** A work a collection began to hold: its identity (worksOf), the collection, and when. */
export interface HeldWork extends FirstHeld {
  work: string;
}

/**
 * The works a run searches within: those its collections began to hold since `since` (newSince), and those an earlier
 * run held back (`deferred`), less those it has seen; null when there are more than MAX_WORKS_SEARCHED (the run
 * searches its collections whole).
 */
export function worksToSearch(
  held: readonly HeldWork[],
  collections: ReadonlySet<string>,
  since: Date,
  seen: ReadonlySet<string>,
  deferred: readonly string[],
): string[] | null {
  const works = new Set<string>();
  for (const h of held) if (collections.has(h.collection) && h.at >= since && !seen.has(h.work)) works.add(h.work);
  for (const work of deferred) if (!seen.has(work)) works.add(work);
  return works.size > MAX_WORKS_SEARCHED ? null : [...works].sort();
}

/**
 * The condition that selects the chunks of `works` (worksOf identities) in the physical collection `physical`: the
 * works known by DOI wherever they are held, the others by their document id in their own collection; "none" when it
 * holds none of them.
 */
export function worksCondition(works: readonly string[], physical: string): FilterNode {
  const dois: string[] = [];
  const docIds: string[] = [];
  for (const work of works) {
    if (work.startsWith("doi:")) dois.push(work.slice(4));
    else if (work.startsWith(`${physical}/`)) docIds.push(work.slice(physical.length + 1));
  }
  const parts: FilterNode[] = [
    ...(dois.length > 0 ? [{ kind: "in", field: "doi", values: dois } as const] : []),
    ...(docIds.length > 0 ? [{ kind: "in", field: "doc_id", values: docIds } as const] : []),
  ];
  return parts.length === 0 ? { kind: "none" } : parts.length === 1 ? parts[0]! : { kind: "or", children: parts };
}

interface AlertRow extends DocumentRow, PricedRow {
  id: string;
  relevance: number | null;
}

interface RunSelection<T> {
  /** the rows delivered, best first */
  rows: T[];
  /** the works they belong to: seen from this run on, once delivered */
  works: string[];
  /** new works' rows held back by min_relevance */
  belowMinRelevance: number;
  /** new works' rows held back by max_cost_per_run (they stay unseen: a later run may deliver them) */
  withheldByCost: number;
  /**
   * the new works that met min_relevance and were held back (by max_cost_per_run, or past MAX_WORKS_PER_RUN): the next
   * run searches them again (at most MAX_WORKS_SEARCHED)
   */
  deferred: string[];
  /** what the delivered rows charge, micro-credits */
  costMicros: bigint;
}

/**
 * What a run delivers from its ranked rows (best first): the rows of works the alert has not seen, one per work when
 * asked, at or above min_relevance, then the longest best-first run of them within max_cost_per_run, at most
 * MAX_WORKS_PER_RUN works. A work that was only changed keeps its identity, so it is seen already and not delivered.
 */
export function selectRun<T extends AlertRow>(
  ranked: readonly T[],
  seen: ReadonlySet<string>,
  def: Pick<AlertDefinition, "minRelevance" | "onePerDocument" | "maxCostPerRunMicros">,
): RunSelection<T> {
  const fresh: T[] = [];
  const taken = new Set<string>();
  const pastMaxWorks = new Set<string>();
  let belowMinRelevance = 0;
  for (const row of ranked) {
    const work = workOf(row);
    if (seen.has(work)) continue;
    if (def.onePerDocument && taken.has(work)) continue;
    if (def.minRelevance > 0 && !meetsMinRelevance(row.relevance, def.minRelevance)) {
      belowMinRelevance++;
      continue;
    }
    if (!taken.has(work) && taken.size >= MAX_WORKS_PER_RUN) {
      pastMaxWorks.add(work);
      continue;
    }
    taken.add(work);
    fresh.push(row);
  }
  const capped = capToCost(fresh, def.maxCostPerRunMicros === null ? undefined : BigInt(def.maxCostPerRunMicros));
  const works = worksOf(capped.kept);
  const delivered = new Set(works);
  const heldBack = [...worksOf(fresh).filter((w) => !delivered.has(w)), ...pastMaxWorks];
  return {
    rows: capped.kept,
    works,
    belowMinRelevance,
    withheldByCost: capped.withheld,
    costMicros: capped.costMicros,
    deferred: heldBack.slice(0, MAX_WORKS_SEARCHED),
  };
}

/**
 * Why an alert cannot run: the first collection it searches that was retired (the catalogue's `retiredAt`), as the
 * reason its pause records; null while every collection it names is in force.
 */
export function retiredReason(
  def: Pick<AlertDefinition, "collections">,
  retiredAt: (name: string) => { name: string; at: string } | null | undefined,
): AlertPausedReason | null {
  for (const name of def.collections) {
    const retired = retiredAt(name);
    if (retired) return { code: "COLLECTION_RETIRED", collection: retired.name, retiredAt: retired.at };
  }
  return null;
}

/**
 * What an alert paused for a reason tells its owner (the dashboard's notice, the webhook's `message`), and, led by
 * "cannot resume", a request to resume it.
 */
export function pausedMessage(reason: AlertPausedReason, lead: "Paused" | "cannot resume" = "Paused"): string {
  return (
    `${lead}: collection "${reason.collection}" was retired on ${reason.retiredAt}, so this alert has nothing to ` +
    "search. Delete it, and create an alert on a collection you can search (GET /api/v1/search/collections)."
  );
}

/**
 * How many runs of an ingestion one batch takes: about a few seconds of work (a search, a send and a charge each), so
 * a killed worker's batch is retried at little loss and many batches spread over the workers.
 */
const ALERT_BATCH_SIZE = 50;

/**
 * Where an ingestion's batches of runs begin: the first id of every `size` of the watching alerts' ids, in id order.
 * Batch k takes the ids from bounds[k] up to (not including) bounds[k + 1], so an alert deleted or added between the
 * plan and the batch moves no other alert to another batch.
 */
export function batchBounds(alertIds: readonly string[], size = ALERT_BATCH_SIZE): string[] {
  const sorted = [...new Set(alertIds)].sort();
  return sorted.filter((_, k) => k % size === 0);
}

/** Whether an alert id lies in the batch from `from` up to (not including) `to` (null: to the end). */
export const inBatch = (alertId: string, from: string, to: string | null): boolean =>
  alertId >= from && (to === null || alertId < to);
