// An alert's runs: an ingestion's runs in batches (each searched, sent, and charged at once when its receiver answered
// 2xx), a run's own workflow's two steps (search and send the new works; end, charged once only when its delivery was
// proven), and a re-fetch of a run's queryId as its delivery.
import { createHash } from "node:crypto";
import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import { appendGrouped, appendStreams, type StreamAppend } from "../../../projections/streamCommand.js";
import { Rejection } from "../../domain/rejection.js";
import { alertStream, type AlertRunOutcome, type DomainEvent } from "../../domain/events.js";
import { chargeLines } from "../../domain/organization.js";
import { selectList, normalizeRow } from "../../../projections/sqlProjection.js";
import { ALERTS, ALERT_RUNS, type AlertRow, type AlertRunRow } from "./alertTables.js";
import { alertRunWorkflow } from "../../../workflows/alertRun.js";
import { alertBatchesWorkflow } from "../../../workflows/alertBatches.js";
import {
  alertBatchesWorkflowId,
  alertDeliveredSignal,
  alertRunWorkflowId,
  type AlertBatchesInput,
  type AlertBatchInput,
  type AlertBatchOutcome,
  type AlertRunInput,
  type AlertRunStart,
} from "../../../workflows/alertTypes.js";
import type { WebhookEventToPublish } from "../../domain/webhookPublish.js";
import { rowsWithIntegrity } from "../works/integrityRows.js";
import type { ListBest, RetrievalOutcome } from "../search/pipeline.js";
import {
  loadQueryRecord,
  loadQueryRecords,
  PAYLOAD_VERSION,
  queryRecordInsert,
  saveQueryRecord,
  type QueryRecord,
} from "../search/queryCache.js";
import type { CachedRow } from "../../domain/resultRow.js";
import {
  batchBounds,
  firstHeldIn,
  heldBefore,
  inBatch,
  MAX_WORKS_SEARCHED,
  newSince,
  selectRun,
  worksOf,
  worksToSearch,
  type FirstHeld,
  type HeldWork,
} from "./alertRules.js";
import { workflowActor, type AlertsContext } from "./alertsContext.js";
import { pauseRetired } from "./alertState.js";
import { keepListBest, loadListBest } from "./alertListBest.js";
import { keepAlertVectors, loadAlertVectors } from "./alertVectors.js";

/** The endpoint a run's charge names in the ledger (SearchCharged.endpoint). */
const ALERT_RUN_ENDPOINT = "/alerts";

/** A run's waiter input: the same whether its batch or a re-fetch's proof starts the waiter. */
const runInput = (ctx: AlertsContext, alertId: string, queryId: string, trigger: string): AlertRunInput => ({
  alertId,
  queryId,
  trigger,
  deliveryWaitMs: ctx.deps.deliveryWaitMs,
});

/** A run's queryId, derived from its alert and trigger: a trigger sent twice names the same run. Shaped as a UUID. */
export function runQueryId(alertId: string, trigger: string): string {
  const h = createHash("sha256").update(`alert-run\u0000${alertId}\u0000${trigger}`).digest("hex");
  return (
    `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}` +
    `${h.slice(17, 20)}-${h.slice(20, 32)}`
  );
}

/**
 * What `alert.matched` tells of a delivered row: the work's metadata (the first 10 authors), never its text (re-fetched
 * with the queryId); 50 works stay well within a webhook body's 256 KB.
 */
function workSummary(row: CachedRow): Record<string, unknown> {
  const m = row.metadata;
  return {
    id: row.id,
    collection: row.collection,
    relevance: row.relevance,
    doc_id: m.doc_id,
    title: m.title ?? null,
    doi: m.doi ?? null,
    authors: m.authors?.slice(0, 10) ?? null,
    journal: m.journal ?? null,
    publication_date: m.publication_date ?? null,
    url: m.url ?? null,
    ...(m.integrity ? { integrity: m.integrity } : {}),
  };
}

/** The physical collections an alert watches: those it names, meta-collections resolved to their members. */
function physicalCollectionsOf(ctx: AlertsContext, def: Pick<AlertRow["definition"], "collections">): Set<string> {
  const { catalog } = ctx.deps.search;
  return new Set(
    def.collections.flatMap((name) => {
      const entry = catalog.resolveCollection(name);
      return entry ? catalog.physicalMembers(entry).map((p) => p.name) : [];
    }),
  );
}

/**
 * The active on_ingest alerts watching `collection` (directly or through a meta-collection), by id, with the columns
 * `columns` selects; `batch`: those whose id lies in it (byte order, as batchBounds sorts) and that were made by its
 * plan.
 */
async function watchingAlerts<R extends Pick<AlertRow, "alert_id" | "definition">>(
  ctx: AlertsContext,
  collection: string,
  columns: string,
  batch?: AlertBatchInput,
): Promise<R[]> {
  const inRange = batch
    ? ` AND alert_id COLLATE "C" >= $1 AND ($2::text IS NULL OR alert_id COLLATE "C" < $2) AND created_at <= $3`
    : "";
  const rows = (
    await ctx.db.query(
      `SELECT ${columns} FROM proj_alerts WHERE state = 'active' AND definition->>'schedule' = 'on_ingest'${inRange}`,
      batch ? [batch.from, batch.to, batch.plannedAt] : [],
    )
  ).map((r) => normalizeRow(ALERTS, r) as unknown as R);
  return rows
    .filter((r) => !batch || inBatch(r.alert_id, batch.from, batch.to))
    .filter((r) => physicalCollectionsOf(ctx, r.definition).has(collection))
    .sort((x, y) => (x.alert_id < y.alert_id ? -1 : x.alert_id > y.alert_id ? 1 : 0));
}

/**
 * After an ingestion committed added or changed documents in `collection`: one run of every active on_ingest alert
 * watching it, named by the alert and the ingestion. The runs are planned in batches of ALERT_BATCH_SIZE and started
 * as one workflow named by the ingestion (alertBatches.ts), so a retry starts nothing new. How many alerts watch it.
 */
export async function runAfterIngestion(ctx: AlertsContext, collection: string, ingestionId: string): Promise<number> {
  // ids and definitions only: the seen-sets of thousands of alerts are read by their batches, under the lock
  const watching = await watchingAlerts(ctx, collection, "alert_id, definition");
  if (watching.length === 0) return 0;
  const input: AlertBatchesInput = {
    ingestionId,
    collection,
    plannedAt: ctx.clock().toISOString(),
    bounds: batchBounds(watching.map((a) => a.alert_id)),
  };
  try {
    await ctx.client.workflow.start(alertBatchesWorkflow, {
      taskQueue: ctx.taskQueue,
      workflowId: alertBatchesWorkflowId(ingestionId),
      args: [input],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return watching.length;
}

/** Searches of one batch in flight at once (each waits on the engine in turn): 8 ended 10,000 runs sooner than 4. */
const BATCH_SEARCHES_IN_FLIGHT = 8;

/** Runs `each` over `items`, `lanes` at a time. */
async function inLanes<T>(items: readonly T[], lanes: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await each(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
}

/** The runs of these queryIds that were recorded, by queryId. */
async function runRows(ctx: AlertsContext, queryIds: string[]): Promise<Map<string, AlertRunRow>> {
  const rows = await ctx.db.query(`SELECT ${selectList(ALERT_RUNS)} FROM proj_alert_runs WHERE query_id = ANY($1)`, [
    queryIds,
  ]);
  return new Map(rows.map((r) => normalizeRow(ALERT_RUNS, r)).map((r) => [r.query_id, r]));
}

/** One run of a batch: its alert as the batch read it, and what names the run. */
interface BatchRun {
  alert: AlertRow;
  input: AlertRunInput;
}

/**
 * One batch of an ingestion's runs (alertBatches.ts): searched (a few at a time), recorded in one append with their
 * cached queries, and their `alert.matched` events in one more (webhooks.ts publishWithFirstAttempts); then each run
 * goes on when its own receiver answered: its first attempt recorded, and charged and ended on a 2xx, each in one
 * append with the other runs' that ended meanwhile (appendGrouped). So the store's append lock is taken a few times
 * per batch, not a few times per run, and a receiver that hangs holds its own run alone. A run without that proof yet
 * (its receiver failed, or it has no webhook and waits for a re-fetch) gets its own workflow, which waits for the proof
 * as every run does, and only then its webhook's retries begin. A retry of the batch repeats nothing already done.
 * `firstTry`: the batch's first execution (a crash test's pause applies to it alone).
 */
export async function runBatch(
  ctx: AlertsContext,
  batch: AlertBatchInput,
  firstTry: boolean,
): Promise<AlertBatchOutcome> {
  const publishNow = ctx.deps.publishNow?.(firstTry);
  if (!publishNow) throw new Error("alert batches need the publish with first attempts (AlertsDeps.publishNow)");
  const trigger = `ingestion:${batch.ingestionId}`;
  const runs: BatchRun[] = (await watchingAlerts<AlertRow>(ctx, batch.collection, selectList(ALERTS), batch)).map(
    (alert) => ({
      alert,
      input: runInput(ctx, alert.alert_id, runQueryId(alert.alert_id, trigger), trigger),
    }),
  );
  const outcome: AlertBatchOutcome = { delivered: 0, waiting: 0, empty: 0, skipped: 0 };
  const queryIds = runs.map((r) => r.input.queryId);
  await openRuns(ctx, runs, await runRows(ctx, queryIds));
  const recorded = await runRows(ctx, queryIds);
  const records = await loadQueryRecords(ctx.db, queryIds);
  const toSend: { run: BatchRun; record: QueryRecord }[] = [];
  for (const run of runs) {
    const row = recorded.get(run.input.queryId);
    const record =
      row?.state === "pending" ? await keepRunRecord(ctx, run.alert, row, records.get(row.query_id)) : null;
    if (record) toSend.push({ run, record });
    else outcome[row?.state === "empty" ? "empty" : "skipped"] += 1;
  }
  const settling = await publishNow(
    await Promise.all(toSend.map(({ run, record }) => matchedEvent(ctx, run.alert, run.input, record))),
  );
  // each run goes on when its own receiver answered: one that hangs holds no other run's charge
  const ended = await Promise.allSettled(
    toSend.map(async ({ run, record }, i) => {
      const published = await settling[i]!;
      if (published?.delivered) {
        const chargedMicros = await chargeDelivered(ctx, run.alert, record);
        await appendGrouped(ctx.db, ctx.clock, runEnded(recorded.get(run.input.queryId)!, "delivered", chargedMicros));
        // another of the organization's endpoints that failed its first attempt still gets its retries
        await published.retryLater();
        outcome.delivered += 1;
        return;
      }
      // the waiter first: a retry's 2xx (or a re-fetch) then always finds it
      if (ctx.deps.waiterDelayMs && firstTry) await new Promise((r) => setTimeout(r, ctx.deps.waiterDelayMs));
      try {
        await ctx.client.workflow.start(alertRunWorkflow, {
          taskQueue: ctx.taskQueue,
          workflowId: alertRunWorkflowId(run.input.queryId),
          args: [run.input],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      await published?.retryLater();
      outcome.waiting += 1;
    }),
  );
  // a run that failed fails the batch (retried, repeating nothing done) once every other run has gone as far as it can
  const failed = ended.find((e) => e.status === "rejected");
  if (failed) throw failed.reason;
  return outcome;
}

/**
 * The batch's runs not recorded yet, searched (a few at a time) as their alerts' keys, then recorded in one append:
 * each one's works not seen (AlertRunStarted, ended at once when there are none) with its cached query, in the same
 * statement. A run that cannot be paid for, or whose alert stopped meanwhile, is not recorded.
 */
async function openRuns(ctx: AlertsContext, runs: BatchRun[], known: Map<string, AlertRunRow>): Promise<void> {
  const found = new Map<string, FoundRows>();
  const searching = runs.filter((r) => !known.has(r.input.queryId));
  const { embedder } = ctx.deps.search;
  const [unstored, newWorks, listBest] = await Promise.all([
    loadAlertVectors(
      ctx.db,
      embedder,
      searching.map((r) => r.alert.definition.query),
    ),
    newWorksOf(
      ctx,
      searching.map((r) => r.alert),
    ),
    loadListBest(
      ctx.db,
      searching.map((r) => r.alert.alert_id),
      ctx.clock(),
    ),
  ]);
  const bests: { alertId: string; listBest: ListBest }[] = [];
  await inLanes(searching, BATCH_SEARCHES_IN_FLIGHT, async ({ alert, input }) => {
    const works = newWorks.get(alert.alert_id) ?? null;
    const outcome = await searchRun(ctx, alert, input, works && { works, knownBest: listBest.get(alert.alert_id) });
    if (outcome) found.set(input.queryId, outcome);
    if (outcome?.listBest) bests.push({ alertId: alert.alert_id, listBest: outcome.listBest });
  });
  // what the searches read of the lists' bests, for the next runs (derived data: a run without it reads it again)
  await keepListBest(ctx.db, bests, ctx.clock());
  // alerts made before their vectors were stored: the next runs load them
  await keepAlertVectors(ctx.db, embedder, unstored);
  const opening = runs.filter((r) => found.has(r.input.queryId));
  if (opening.length === 0) return;
  const worksFound = new Map(opening.map((r) => [r.input.queryId, worksOf(found.get(r.input.queryId)!.rows)]));
  const firstHeld = await firstHeldTimes(ctx, [...worksFound.values()].flat());
  // what its collections held when it was created counts as seen, found by its first search or not
  const heldAtCreation = new Map(
    opening.map(({ alert, input }) => [
      input.queryId,
      heldBefore(
        worksFound.get(input.queryId)!,
        firstHeldIn(firstHeld, physicalCollectionsOf(ctx, alert.definition)),
        new Date(alert.created_at),
      ),
    ]),
  );
  await appendStreams(ctx.db, ctx.clock, async (tx) => {
    // under the append lock: the seen-sets as the runs before these left them
    const now = new Map(
      (
        await tx.query(`SELECT ${selectList(ALERTS)} FROM proj_alerts WHERE alert_id = ANY($1)`, [
          opening.map((r) => r.input.alertId),
        ])
      )
        .map((r) => normalizeRow(ALERTS, r))
        .map((r) => [r.alert_id, r]),
    );
    return Promise.all(
      opening.map(async ({ alert, input }) => {
        const current = now.get(input.alertId);
        const searched = found.get(input.queryId)!;
        const seen = new Set([...(current?.seen ?? []), ...heldAtCreation.get(input.queryId)!]);
        const opened = current?.state === "active" ? runOpened(alert, input, searched, seen) : null;
        return {
          streamId: alertStream(input.alertId),
          actor: workflowActor(alertRunWorkflowId(input.queryId)),
          events: opened?.events ?? [],
          idempotencyKey: `alert-run:${input.queryId}`,
          ...(opened && opened.rows.length > 0
            ? { alsoWrite: await queryRecordInsert(runRecord(ctx, alert, input.queryId, opened.rows, searched)) }
            : {}),
        };
      }),
    );
  });
}

/** Each of these works' first times (work_first_held), by the collection that held it then. */
async function firstHeldTimes(ctx: AlertsContext, works: string[]): Promise<Map<string, FirstHeld[]>> {
  const wanted = [...new Set(works)];
  const times = new Map<string, FirstHeld[]>();
  if (wanted.length === 0) return times;
  const rows = await ctx.db.query<{ collection: string; work: string; first_at: Date | string }>(
    "SELECT collection, work, first_at FROM work_first_held WHERE work = ANY($1::text[])",
    [wanted],
  );
  for (const r of rows) {
    const entries = times.get(r.work) ?? [];
    entries.push({ collection: r.collection, at: new Date(r.first_at) });
    times.set(r.work, entries);
  }
  return times;
}

/**
 * What a run's search found: its rows, best first, what its cached query records of the search, and what it read of
 * its lists' bests (none when nothing was searched).
 */
type FoundRows = Pick<RetrievalOutcome, "rows" | "requested" | "filtersApplied"> & { listBest?: ListBest };

/**
 * Rows read from work_first_held for one batch at most (newest first): an alert whose window reaches past them searches
 * whole.
 */
const HELD_ROWS_READ = 10 * MAX_WORKS_SEARCHED;

/**
 * The works each active alert's run searches within (alertRules.ts worksToSearch), by alert id: those its collections
 * began to hold since its previous run, and those that run held back, less those it has seen; null: too many to name,
 * or more than one read could tell (the run searches its collections whole). One read of work_first_held per batch.
 */
async function newWorksOf(ctx: AlertsContext, alerts: readonly AlertRow[]): Promise<Map<string, string[] | null>> {
  const active = alerts.filter((a) => a.state === "active");
  const works = new Map<string, string[] | null>();
  if (active.length === 0) return works;
  const watched = new Map(active.map((a) => [a.alert_id, physicalCollectionsOf(ctx, a.definition)]));
  const since = new Date(Math.min(...active.map((a) => newSince(a).getTime())));
  const rows = await ctx.db.query<{ collection: string; work: string; first_at: Date | string }>(
    `SELECT collection, work, first_at FROM work_first_held WHERE collection = ANY($1::text[]) AND first_at >= $2
     ORDER BY first_at DESC LIMIT $3`,
    [[...new Set([...watched.values()].flatMap((c) => [...c]))], since, HELD_ROWS_READ],
  );
  const held: HeldWork[] = rows.map((r) => ({ collection: r.collection, work: r.work, at: new Date(r.first_at) }));
  // the read stopped short: an alert whose window starts at or before its oldest row may have more
  const readFrom = rows.length === HELD_ROWS_READ ? held[held.length - 1]!.at : null;
  for (const alert of active) {
    const from = newSince(alert);
    works.set(
      alert.alert_id,
      readFrom && from <= readFrom
        ? null
        : worksToSearch(held, watched.get(alert.alert_id)!, from, new Set(alert.seen), alert.deferred),
    );
  }
  return works;
}

/**
 * The search of a new run: only of an active alert, and only what could be paid for once delivered, as the alert's
 * key; undefined: the run is skipped. An alert on a collection retired meanwhile is paused here (told once).
 * `within.works`: the works new to it (newWorksOf), searched alone (none: nothing is searched, and the run finds
 * nothing), their relevance read against its lists' bests (`knownBest`, alertListBest.ts); null: its collections are
 * searched whole.
 */
async function searchRun(
  ctx: AlertsContext,
  alert: AlertRow,
  input: AlertRunInput,
  within: { works: string[]; knownBest?: ReadonlyMap<string, number> } | null,
): Promise<FoundRows | undefined> {
  if (alert.state !== "active") return undefined;
  // a collection it searches was retired (a retirement whose pauses were cut short): paused now, told once
  if (await pauseRetired(ctx, alert, workflowActor(alertRunWorkflowId(input.queryId)))) return undefined;
  const auth = await ctx.payingCaller(alert);
  if (!auth) return undefined;
  if (within?.works.length === 0) return { rows: [], requested: [] };
  return ctx.searchNow(auth, alert.definition, false, within ?? undefined);
}

/**
 * What a new run records: the works of `found` the alert has not seen (AlertRunStarted; ended at once when there are
 * none), with the rows it delivers.
 */
function runOpened(
  alert: AlertRow,
  input: AlertRunInput,
  found: FoundRows,
  seen: ReadonlySet<string>,
): { events: DomainEvent[]; rows: CachedRow[] } {
  const selected = selectRun(found.rows, seen, alert.definition);
  const ids = { orgId: alert.org_id, alertId: input.alertId, queryId: input.queryId };
  const events: DomainEvent[] = [
    {
      type: "AlertRunStarted",
      data: {
        ...ids,
        trigger: input.trigger,
        resultIds: selected.rows.map((r) => r.id),
        works: selected.works,
        costMicros: selected.costMicros.toString(),
        ...(selected.deferred.length > 0 ? { deferredWorks: selected.deferred } : {}),
      },
    },
  ];
  if (selected.rows.length === 0)
    events.push({ type: "AlertRunEnded", data: { ...ids, outcome: "empty", chargedMicros: "0" } });
  return { events, rows: selected.rows };
}

/** A run's cached query: the rows it delivers, as its search found them. */
const runRecord = (
  ctx: AlertsContext,
  alert: AlertRow,
  queryId: string,
  rows: CachedRow[],
  found: FoundRows,
): QueryRecord => ({
  queryId,
  orgId: alert.org_id,
  keyId: alert.key_id,
  kind: "alert",
  payloadVersion: PAYLOAD_VERSION,
  createdAt: ctx.clock(),
  payload: {
    query: alert.definition.query,
    collections: found.requested.map((r) => r.name),
    rows,
    filtersApplied: found.filtersApplied,
  },
});

/**
 * The run's cached query: as recorded (`kept`, when the caller read it already), or searched again when it is missing
 * (a run recorded without it by an earlier release); undefined when the alert's key can no longer search.
 */
async function keepRunRecord(
  ctx: AlertsContext,
  alert: AlertRow,
  run: AlertRunRow,
  kept?: QueryRecord,
): Promise<QueryRecord | undefined> {
  const record = kept ?? (await loadQueryRecord(ctx.db, run.query_id));
  if (record) return record;
  const auth = await ctx.callerOf(alert.org_id, alert.key_id);
  if (!auth) return undefined;
  const found = await ctx.searchNow(auth, alert.definition);
  const byId = new Map(found.rows.map((r) => [r.id, r]));
  const rows = run.result_ids.flatMap((id) => byId.get(id) ?? []);
  const searched = runRecord(ctx, alert, run.query_id, rows, found);
  await saveQueryRecord(ctx.db, searched);
  return searched;
}

/**
 * The run's works as `alert.matched`, each with its integrity, published once by the run's queryId (to the alert's
 * endpoint when it names one).
 */
async function matchedEvent(
  ctx: AlertsContext,
  alert: AlertRow,
  input: AlertRunInput,
  record: QueryRecord,
): Promise<WebhookEventToPublish> {
  const { deps } = ctx;
  const def = alert.definition;
  const rows = deps.integrity ? await rowsWithIntegrity(record.payload.rows, deps.integrity) : record.payload.rows;
  return {
    orgId: alert.org_id,
    type: "alert.matched",
    data: {
      alertId: input.alertId,
      queryId: input.queryId,
      query: def.query,
      resultsUrl: `/api/v1/search/results/${input.queryId}`,
      works: rows.map(workSummary),
    },
    source: `alert-run:${input.queryId}`,
    actor: workflowActor(alertRunWorkflowId(input.queryId)),
    ...(def.webhookEndpointId ? { only: def.webhookEndpointId } : {}),
  };
}

/**
 * A run up to its send: search as the alert's key, keep the works it has not seen (min_relevance, max_cost_per_run),
 * record them (seen from now on) with the run's cached query. Idempotent by the run's queryId: a run already recorded
 * is not searched again. The alert and the run's cached query when it has works to send; else how it ended.
 */
async function readyRun(
  ctx: AlertsContext,
  input: AlertRunInput,
): Promise<{ alert: AlertRow; works: number; record: QueryRecord } | { status: "empty" | "skipped" }> {
  const alert = await ctx.alertRow(input.alertId);
  if (!alert) return { status: "skipped" };
  let run = await ctx.runRow(input.queryId);
  if (!run) {
    await openRuns(ctx, [{ alert, input }], new Map());
    run = await ctx.runRow(input.queryId);
    if (!run) return { status: "skipped" };
  }
  if (run.state === "empty") return { status: "empty" };
  if (run.state !== "pending") return { status: "skipped" };
  const record = await keepRunRecord(ctx, alert, run);
  return record ? { alert, works: run.works.length, record } : { status: "skipped" };
}

/**
 * A run's first step in its own workflow: the run readied (readyRun), then its works sent as `alert.matched`.
 * Idempotent by the run's queryId: a retried step sends the same event again, which the webhooks publish once.
 */
export async function startRun(ctx: AlertsContext, input: AlertRunInput): Promise<AlertRunStart> {
  const ready = await readyRun(ctx, input);
  if ("status" in ready) return ready;
  const event = await matchedEvent(ctx, ready.alert, input, ready.record);
  await ctx.deps.publish(event.orgId, event.type, event.data, event.source, event.actor, event.only);
  return { status: "sent", works: ready.works };
}

/**
 * A delivered run's charge, tied to its queryId, in micro-credits: 0 when the balance or the key's cap ran out since
 * the run was sent (delivered, and nothing could be charged).
 */
async function chargeDelivered(ctx: AlertsContext, alert: AlertRow, record: QueryRecord | undefined): Promise<bigint> {
  const rows = record?.payload.rows ?? [];
  try {
    const charged = await ctx.deps.accounts.chargeSearch({
      orgId: alert.org_id,
      keyId: alert.key_id,
      queryId: record?.queryId ?? "",
      endpoint: ALERT_RUN_ENDPOINT,
      collections: chargeLines(
        rows.map((r) => ({
          collection: r.collection,
          tokens: r.tokens,
          pricePer1000Micros: BigInt(r.pricePer1000Micros),
        })),
      ),
      resultIds: rows.map((r) => r.id),
    });
    const event = charged.events.find((e) => e.type === "SearchCharged");
    return event && event.type === "SearchCharged" ? BigInt(event.data.amountMicros) : 0n;
  } catch (err) {
    if (!(err instanceof Rejection)) throw err;
    return 0n;
  }
}

/** A pending run's end (AlertRunEnded), appended once by its queryId. */
const runEnded = (run: AlertRunRow, outcome: AlertRunOutcome, chargedMicros: bigint): StreamAppend => ({
  streamId: alertStream(run.alert_id),
  actor: workflowActor(alertRunWorkflowId(run.query_id)),
  events: [
    {
      type: "AlertRunEnded",
      data: {
        orgId: run.org_id,
        alertId: run.alert_id,
        queryId: run.query_id,
        outcome,
        chargedMicros: chargedMicros.toString(),
      },
    },
  ],
  idempotencyKey: `alert-run-end:${run.query_id}`,
});

/** A run's last step: charged once (tied to its queryId) when its delivery was proven, else ended unpaid. */
export async function endRun(
  ctx: AlertsContext,
  input: { alertId: string; queryId: string; delivered: boolean },
): Promise<AlertRunOutcome> {
  const run = await ctx.runRow(input.queryId);
  if (!run) throw new Error(`no alert run ${input.queryId}`);
  if (run.state !== "pending") return run.state;
  const chargedMicros = input.delivered
    ? await chargeDelivered(ctx, (await ctx.alertRow(input.alertId))!, await loadQueryRecord(ctx.db, input.queryId))
    : 0n;
  const outcome: AlertRunOutcome = input.delivered ? "delivered" : "failed";
  await appendStreams(ctx.db, ctx.clock, async () => [runEnded(run, outcome, chargedMicros)]);
  return outcome;
}

/**
 * A re-fetch of a run's queryId is its delivery: the run is told (and charges); a run that ended unpaid is gone
 * (410), so its rows are never served without their charge.
 */
export async function deliveredOnRefetch(ctx: AlertsContext, record: QueryRecord): Promise<void> {
  if (record.kind !== "alert") return;
  const run = await ctx.runRow(record.queryId);
  if (run?.state === "failed")
    throw new Rejection(
      "CACHED_RESULT_EXPIRED",
      `the alert run ${record.queryId} was never delivered, so it was not charged and is no longer ` +
        "served; its works come again in no later run, so search for them instead",
    );
  if (run?.state === "pending") await proveRefetchedDelivery(ctx, run);
}

/**
 * A re-fetch's proof of delivery, which can come before the run's waiter starts (a batch starts it once the run's
 * matched event is published): signal-with-start starts the waiter holding the proof, and the batch's own start then
 * finds it running. A signal alone was lost in that gap, and the run ended unpaid with its rows served.
 */
async function proveRefetchedDelivery(ctx: AlertsContext, run: AlertRunRow): Promise<void> {
  await ctx.client.workflow
    .signalWithStart(alertRunWorkflow, {
      taskQueue: ctx.taskQueue,
      workflowId: alertRunWorkflowId(run.query_id),
      args: [runInput(ctx, run.alert_id, run.query_id, run.trigger)],
      signal: alertDeliveredSignal,
      signalArgs: [],
    })
    .catch(() => undefined);
}

/** Tells a run waiting for proof that it was delivered; a run that already ended has nothing to wait for. */
export async function proveAlertDelivery(client: Client, queryId: string): Promise<void> {
  await client.workflow
    .getHandle(alertRunWorkflowId(queryId))
    .signal(alertDeliveredSignal)
    .catch(() => undefined);
}
