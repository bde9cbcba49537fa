// An alert's runs: an ingestion's runs in batches (each searched, sent, and charged at once when its receiver answered
// 2xx), a run's own workflow's two steps (search and send the new works; end, charged once only when its delivery was
// proven), and a re-fetch of a run's queryId as its delivery.
import { createHash } from "node:crypto";
import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import { runStreamCommand } from "../../../projections/streamCommand.js";
import { Rejection } from "../../domain/rejection.js";
import { alertStream, type AlertRunOutcome, type DomainEvent } from "../../domain/events.js";
import { chargeLines } from "../../domain/organization.js";
import { selectList, normalizeRow } from "../../../projections/sqlProjection.js";
import { ALERTS, type AlertRow, type AlertRunRow } from "./alertTables.js";
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
import type { PublishWebhookEvent, PublishWebhookEventNow } from "../../domain/webhookPublish.js";
import { rowsWithIntegrity } from "../works/integrityRows.js";
import type { RetrievalOutcome } from "../search/pipeline.js";
import { loadQueryRecord, PAYLOAD_VERSION, saveQueryRecord, type QueryRecord } from "../search/queryCache.js";
import type { CachedRow } from "../../domain/resultRow.js";
import { batchBounds, inBatch, selectRun } from "./alertRules.js";
import { workflowActor, type AlertsContext } from "./alertsContext.js";
import { pauseRetired } from "./alertState.js";

/** The endpoint a run's charge names in the ledger (SearchCharged.endpoint). */
const ALERT_RUN_ENDPOINT = "/alerts";

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

/**
 * The active on_ingest alerts watching `collection` (directly or through a meta-collection), by id; `batch`: those
 * whose id lies in it (byte order, as batchBounds sorts) and that were made by its plan.
 */
async function watchingAlerts(ctx: AlertsContext, collection: string, batch?: AlertBatchInput): Promise<AlertRow[]> {
  const { deps } = ctx;
  const inRange = batch
    ? ` AND alert_id COLLATE "C" >= $1 AND ($2::text IS NULL OR alert_id COLLATE "C" < $2) AND created_at <= $3`
    : "";
  const rows = (
    await ctx.db.query(
      `SELECT ${selectList(ALERTS)} FROM proj_alerts WHERE state = 'active' AND definition->>'schedule' ` +
        `= 'on_ingest'${inRange}`,
      batch ? [batch.from, batch.to, batch.plannedAt] : [],
    )
  ).map((r) => normalizeRow(ALERTS, r));
  return rows
    .filter((r) => !batch || inBatch(r.alert_id, batch.from, batch.to))
    .filter((r) =>
      r.definition.collections.some((name) => {
        const entry = deps.search.catalog.resolveCollection(name);
        return entry != null && deps.search.catalog.physicalMembers(entry).some((p) => p.name === collection);
      }),
    )
    .sort((x, y) => (x.alert_id < y.alert_id ? -1 : x.alert_id > y.alert_id ? 1 : 0));
}

/**
 * After an ingestion committed added or changed documents in `collection`: one run of every active on_ingest alert
 * watching it, named by the alert and the ingestion. The runs are planned in batches of ALERT_BATCH_SIZE and started
 * as one workflow named by the ingestion (alertBatches.ts), so a retry starts nothing new. How many alerts watch it.
 */
export async function runAfterIngestion(ctx: AlertsContext, collection: string, ingestionId: string): Promise<number> {
  const watching = await watchingAlerts(ctx, collection);
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

/** Runs of one batch in flight at once: each waits on the engine, the store and its receiver in turn. */
const BATCH_RUNS_IN_FLIGHT = 4;

/**
 * One batch of an ingestion's runs (alertBatches.ts): each run searched, recorded and sent with its first attempt made
 * here; a run its receiver acknowledged (2xx) is charged here too. A run without that proof yet (its receiver failed,
 * or it has no webhook and waits for a re-fetch) gets its own workflow, which waits for the proof as every run does,
 * and only then its webhook's retries begin. A retry of the batch repeats nothing already done. `firstTry`: the
 * batch's first execution (a crash test's pause applies to it alone).
 */
export async function runBatch(
  ctx: AlertsContext,
  batch: AlertBatchInput,
  firstTry: boolean,
): Promise<AlertBatchOutcome> {
  const publishNow = ctx.deps.publishNow?.(firstTry);
  if (!publishNow) throw new Error("alert batches need the publish with first attempts (AlertsDeps.publishNow)");
  const alerts = await watchingAlerts(ctx, batch.collection, batch);
  const trigger = `ingestion:${batch.ingestionId}`;
  const outcome: AlertBatchOutcome = { delivered: 0, waiting: 0, empty: 0, skipped: 0 };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < alerts.length) {
      const alert = alerts[next++]!;
      const input: AlertRunInput = {
        alertId: alert.alert_id,
        queryId: runQueryId(alert.alert_id, trigger),
        trigger,
        deliveryWaitMs: ctx.deps.deliveryWaitMs,
      };
      outcome[await runNow(ctx, input, publishNow)] += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_RUNS_IN_FLIGHT, alerts.length) }, lane));
  return outcome;
}

/** One run of a batch, as far as it goes without waiting: delivered and charged, or left to its own workflow. */
async function runNow(
  ctx: AlertsContext,
  input: AlertRunInput,
  publishNow: PublishWebhookEventNow,
): Promise<keyof AlertBatchOutcome> {
  const ready = await readyRun(ctx, input);
  if ("status" in ready) return ready.status;
  const published = await sendRun(ctx, ready.alert, input, publishNow);
  if (published?.delivered) {
    await endRun(ctx, { alertId: input.alertId, queryId: input.queryId, delivered: true });
    // another of the organization's endpoints that failed its first attempt still gets its retries
    await published.retryLater();
    return "delivered";
  }
  // the waiter first: a retry's 2xx (or a re-fetch) then always finds it
  try {
    await ctx.client.workflow.start(alertRunWorkflow, {
      taskQueue: ctx.taskQueue,
      workflowId: alertRunWorkflowId(input.queryId),
      args: [input],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await published?.retryLater();
  return "waiting";
}

/**
 * A new run: only of an active alert, and only what could be paid for once delivered. Searches as the alert's key and
 * records the works it has not seen (AlertRunStarted, ended at once when there are none); undefined: skipped.
 */
async function openRun(
  ctx: AlertsContext,
  alert: AlertRow,
  input: AlertRunInput,
): Promise<{ run: AlertRunRow; found: RetrievalOutcome } | undefined> {
  const def = alert.definition;
  if (alert.state !== "active") return undefined;
  // a collection it searches was retired (a retirement whose pauses were cut short): paused now, told once
  if (await pauseRetired(ctx, alert, workflowActor(alertRunWorkflowId(input.queryId)))) return undefined;
  const auth = await ctx.payingCaller(alert);
  if (!auth) return undefined;
  const outcome = await ctx.searchNow(auth, def);
  await runStreamCommand(
    ctx.db,
    ctx.clock,
    alertStream(input.alertId),
    workflowActor(alertRunWorkflowId(input.queryId)),
    async (tx) => {
      // under the append lock: the seen-set as the runs before this one left it
      const [raw] = await tx.query(`SELECT ${selectList(ALERTS)} FROM proj_alerts WHERE alert_id = $1`, [
        input.alertId,
      ]);
      const now = raw ? normalizeRow(ALERTS, raw) : undefined;
      const [started] = await tx.query(`SELECT 1 AS one FROM proj_alert_runs WHERE query_id = $1`, [input.queryId]);
      if (!now || now.state !== "active" || started) return { version: "any", events: [] };
      const selected = selectRun(outcome.rows, new Set(now.seen), def);
      const events: DomainEvent[] = [
        {
          type: "AlertRunStarted",
          data: {
            orgId: alert.org_id,
            alertId: input.alertId,
            queryId: input.queryId,
            trigger: input.trigger,
            resultIds: selected.rows.map((r) => r.id),
            works: selected.works,
            costMicros: selected.costMicros.toString(),
          },
        },
      ];
      if (selected.rows.length === 0)
        events.push({
          type: "AlertRunEnded",
          data: {
            orgId: alert.org_id,
            alertId: input.alertId,
            queryId: input.queryId,
            outcome: "empty",
            chargedMicros: "0",
          },
        });
      return { version: "any", events };
    },
    { idempotencyKey: `alert-run:${input.queryId}` },
  );
  const run = await ctx.runRow(input.queryId);
  return run ? { run, found: outcome } : undefined;
}

/**
 * The run's cached query: its rows as the search found them (searched again when a retried step lost them); false when
 * the alert's key can no longer search.
 */
async function keepRunRecord(
  ctx: AlertsContext,
  alert: AlertRow,
  run: AlertRunRow,
  queryId: string,
  searched: RetrievalOutcome | undefined,
): Promise<boolean> {
  if (await loadQueryRecord(ctx.db, queryId)) return true;
  let found = searched;
  if (!found) {
    const auth = await ctx.callerOf(alert.org_id, alert.key_id);
    if (!auth) return false;
    found = await ctx.searchNow(auth, alert.definition);
  }
  const byId = new Map(found.rows.map((r) => [r.id, r]));
  const rows = run.result_ids.flatMap((id) => byId.get(id) ?? []);
  await saveQueryRecord(ctx.db, {
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
  return true;
}

/**
 * Sends the run's works as `alert.matched`, each with its integrity; published once by the run's queryId. What the
 * publish answers.
 */
async function sendRun<R>(
  ctx: AlertsContext,
  alert: AlertRow,
  input: AlertRunInput,
  publish: (...args: Parameters<PublishWebhookEvent>) => Promise<R>,
): Promise<R> {
  const { deps } = ctx;
  const def = alert.definition;
  const record = (await loadQueryRecord(ctx.db, input.queryId))!;
  const rows = deps.integrity ? await rowsWithIntegrity(record.payload.rows, deps.integrity) : record.payload.rows;
  return publish(
    alert.org_id,
    "alert.matched",
    {
      alertId: input.alertId,
      queryId: input.queryId,
      query: def.query,
      resultsUrl: `/api/v1/search/results/${input.queryId}`,
      works: rows.map(workSummary),
    },
    `alert-run:${input.queryId}`,
    workflowActor(alertRunWorkflowId(input.queryId)),
    def.webhookEndpointId ?? undefined,
  );
}

/**
 * A run up to its send: search as the alert's key, keep the works it has not seen (min_relevance, max_cost_per_run),
 * record them (seen from now on) with the run's cached query. Idempotent by the run's queryId: a run already recorded
 * is not searched again. The alert when the run has works to send; else how it ended.
 */
async function readyRun(
  ctx: AlertsContext,
  input: AlertRunInput,
): Promise<{ alert: AlertRow; works: number } | { status: "empty" | "skipped" }> {
  const alert = await ctx.alertRow(input.alertId);
  if (!alert) return { status: "skipped" };
  let run = await ctx.runRow(input.queryId);
  let found: RetrievalOutcome | undefined;
  if (!run) {
    const opened = await openRun(ctx, alert, input);
    if (!opened) return { status: "skipped" };
    ({ run, found } = opened);
  }
  if (run.state === "empty") return { status: "empty" };
  if (run.state !== "pending") return { status: "skipped" };
  if (!(await keepRunRecord(ctx, alert, run, input.queryId, found))) return { status: "skipped" };
  return { alert, works: run.works.length };
}

/**
 * A run's first step in its own workflow: the run readied (readyRun), then its works sent as `alert.matched`.
 * Idempotent by the run's queryId: a retried step sends the same event again, which the webhooks publish once.
 */
export async function startRun(ctx: AlertsContext, input: AlertRunInput): Promise<AlertRunStart> {
  const ready = await readyRun(ctx, input);
  if ("status" in ready) return ready;
  await sendRun(ctx, ready.alert, input, ctx.deps.publish);
  return { status: "sent", works: ready.works };
}

/**
 * A delivered run's charge, tied to its queryId, in micro-credits: 0 when the balance or the key's cap ran out since
 * the run was sent (delivered, and nothing could be charged).
 */
async function chargeDelivered(ctx: AlertsContext, alertId: string, queryId: string): Promise<bigint> {
  const alert = (await ctx.alertRow(alertId))!;
  const record = await loadQueryRecord(ctx.db, queryId);
  const rows = record?.payload.rows ?? [];
  try {
    const charged = await ctx.deps.accounts.chargeSearch({
      orgId: alert.org_id,
      keyId: alert.key_id,
      queryId,
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

/** A run's last step: charged once (tied to its queryId) when its delivery was proven, else ended unpaid. */
export async function endRun(
  ctx: AlertsContext,
  input: { alertId: string; queryId: string; delivered: boolean },
): Promise<AlertRunOutcome> {
  const run = await ctx.runRow(input.queryId);
  if (!run) throw new Error(`no alert run ${input.queryId}`);
  if (run.state !== "pending") return run.state;
  const chargedMicros = input.delivered ? await chargeDelivered(ctx, input.alertId, input.queryId) : 0n;
  const outcome: AlertRunOutcome = input.delivered ? "delivered" : "failed";
  await runStreamCommand(
    ctx.db,
    ctx.clock,
    alertStream(input.alertId),
    workflowActor(alertRunWorkflowId(input.queryId)),
    async () => ({
      version: "any",
      events: [
        {
          type: "AlertRunEnded",
          data: {
            orgId: run.org_id,
            alertId: input.alertId,
            queryId: input.queryId,
            outcome,
            chargedMicros: chargedMicros.toString(),
          },
        },
      ],
    }),
    {
      idempotencyKey: `alert-run-end:${input.queryId}`,
    },
  );
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
  if (run?.state === "pending") await proveAlertDelivery(ctx.client, record.queryId);
}

/** Tells a run waiting for proof that it was delivered; a run that already ended has nothing to wait for. */
export async function proveAlertDelivery(client: Client, queryId: string): Promise<void> {
  await client.workflow
    .getHandle(alertRunWorkflowId(queryId))
    .signal(alertDeliveredSignal)
    .catch(() => undefined);
}
