// An alert's runs: started after an ingestion, then the workflow's two steps (search and send the new works; end,
// charged once only when its delivery was proven), and a re-fetch of a run's queryId as its delivery.
import { createHash } from "node:crypto";
import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import { runStreamCommand } from "../../../projections/streamCommand.js";
import { Rejection } from "../../domain/rejection.js";
import { alertStream, type AlertRunOutcome, type DomainEvent } from "../../domain/events.js";
import { chargeLines } from "../../domain/organization.js";
import { selectList, normalizeRow } from "../../../projections/sqlProjection.js";
import { ALERTS, type AlertRow, type AlertRunRow } from "./alertTables.js";
import { alertRunWorkflow } from "../../../workflows/alertRun.js";
import {
  alertDeliveredSignal,
  alertRunWorkflowId,
  type AlertRunInput,
  type AlertRunStart,
} from "../../../workflows/alertTypes.js";
import { rowsWithIntegrity } from "../works/integrityRows.js";
import type { RetrievalOutcome } from "../search/pipeline.js";
import { loadQueryRecord, PAYLOAD_VERSION, saveQueryRecord, type QueryRecord } from "../search/queryCache.js";
import type { CachedRow } from "../../domain/resultRow.js";
import { selectRun } from "./alertRules.js";
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
 * How many run starts an ingestion's commit keeps in flight at once: each is one round-trip to Temporal, so one after
 * another 2,000 of them took minutes (and outlasted the activity's timeout); 32 at a time keep Temporal's frontend busy
 * without flooding it.
 */
const RUN_STARTS_IN_FLIGHT = 32;

/**
 * After an ingestion committed added or changed documents in `collection`: one run of every active on_ingest
 * alert watching it (directly or through a meta-collection), named by the ingestion so a retry starts nothing new.
 * The runs start RUN_STARTS_IN_FLIGHT at a time.
 */
export async function runAfterIngestion(
  ctx: AlertsContext,
  collection: string,
  ingestionId: string,
): Promise<string[]> {
  const { deps } = ctx;
  const rows = (
    await ctx.db.query(
      `SELECT ${selectList(ALERTS)} FROM proj_alerts WHERE state = 'active' AND definition->>'schedule' ` +
        "= 'on_ingest'",
    )
  ).map((r) => normalizeRow(ALERTS, r));
  const watching = rows.filter((r) =>
    r.definition.collections.some((name) => {
      const entry = deps.search.catalog.resolveCollection(name);
      return entry != null && deps.search.catalog.physicalMembers(entry).some((p) => p.name === collection);
    }),
  );
  const trigger = `ingestion:${ingestionId}`;
  const queryIds = watching.map((alert) => runQueryId(alert.alert_id, trigger));
  const startOne = async (k: number): Promise<void> => {
    const input: AlertRunInput = {
      alertId: watching[k]!.alert_id,
      queryId: queryIds[k]!,
      trigger,
      deliveryWaitMs: deps.deliveryWaitMs,
    };
    try {
      await ctx.client.workflow.start(alertRunWorkflow, {
        taskQueue: ctx.taskQueue,
        workflowId: alertRunWorkflowId(input.queryId),
        args: [input],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < watching.length) await startOne(next++);
  };
  await Promise.all(Array.from({ length: Math.min(RUN_STARTS_IN_FLIGHT, watching.length) }, lane));
  return queryIds;
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

/** Sends the run's works as `alert.matched`, each with its integrity; published once by the run's queryId. */
async function sendRun(ctx: AlertsContext, alert: AlertRow, input: AlertRunInput): Promise<void> {
  const { deps } = ctx;
  const def = alert.definition;
  const record = (await loadQueryRecord(ctx.db, input.queryId))!;
  const rows = deps.integrity ? await rowsWithIntegrity(record.payload.rows, deps.integrity) : record.payload.rows;
  await deps.publish(
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
 * A run's first step: search as the alert's key, keep the works it has not seen (min_relevance, max_cost_per_run),
 * record them (seen from now on) with the run's cached query, and send them as `alert.matched`. Idempotent by the
 * run's queryId: a retried step sends the same event again, which the webhooks publish once.
 */
export async function startRun(ctx: AlertsContext, input: AlertRunInput): Promise<AlertRunStart> {
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
  await sendRun(ctx, alert, input);
  return { status: "sent", works: run.works.length };
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
