// The alerts use case: an organization's alerts on a saved search (create, list, show with runs, pause, resume,
// delete), what starts their runs (an ingestion that added or changed documents in a watched collection, a Temporal
// Schedule), and a run's two steps for its workflow: search and send the new works, then end it (charged once, only
// when its delivery was proven). The REST routes, the MCP tool and the activities call these.
import { createHash, randomBytes } from "node:crypto";
import { ScheduleNotFoundError, WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import type { Db } from "../../eventstore/db.js";
import { runStreamCommand } from "../../../projections/streamCommand.js";
import { Rejection } from "../../domain/rejection.js";
import {
  alertStream,
  type Actor,
  type AlertPausedReason,
  type AlertRunOutcome,
  type DomainEvent,
} from "../../domain/events.js";
import { formatCredits } from "../../domain/money.js";
import { assertSearchPayable, chargeLines } from "../../domain/organization.js";
import type { WebhookPayloadType } from "../../domain/webhooks.js";
import { EVERY_ROW } from "../../retrieval/rowSelection.js";
import { selectList, normalizeRow } from "../../../projections/sqlProjection.js";
import type { AlertRow, AlertRunRow } from "../../../projections/tables.js";
import { TASK_QUEUE } from "../../../workflows/shared.js";
import { alertRunWorkflow, alertScheduleWorkflow } from "../../../workflows/alertRun.js";
import {
  alertDeliveredSignal,
  alertRunWorkflowId,
  alertScheduleId,
  type AlertRunInput,
  type AlertRunStart,
} from "../../../workflows/alertTypes.js";
import type { AuthContext } from "../auth/context.js";
import { rowsWithIntegrity, type IntegrityOf } from "../works/integrityRows.js";
import type { Accounts } from "../accounts/accounts.js";
import { resolveTargets } from "../auth/keyScope.js";
import { retrieve, type RetrievalOutcome, type SearchDeps } from "../search/pipeline.js";
import {
  loadQueryRecord,
  PAYLOAD_VERSION,
  saveQueryRecord,
  type CachedRow,
  type QueryRecord,
} from "../search/queryCache.js";
import {
  ALERT_SEARCH_DEPTH,
  alertDefinitionOf,
  MAX_ALERTS_PER_ORG,
  pausedMessage,
  retiredReason,
  selectRun,
  worksOf,
  type AlertDefinition,
  type AlertRequest,
} from "./alertRules.js";

/** Why a sandbox key has no alerts (its 403). */
export const ALERTS_SANDBOX_REASON = "an alert runs live searches on new works and is charged when delivered";

/** The endpoint a run's charge names in the ledger (SearchCharged.endpoint). */
export const ALERT_RUN_ENDPOINT = "/alerts";
const DAY_MS = 24 * 60 * 60 * 1000;

export interface AlertsDeps {
  db: Db;
  client: Client;
  clock: () => Date;
  accounts: Accounts;
  search: SearchDeps;
  /** how long a run waits for proof of delivery before it ends unpaid */
  deliveryWaitMs: number;
  /** appends a webhook event once by its source and starts its deliveries (`only`: to that endpoint alone) */
  publish: (
    orgId: string,
    type: WebhookPayloadType,
    data: Record<string, unknown>,
    source: string,
    actor: Actor,
    only?: string,
  ) => Promise<unknown>;
  taskQueue?: string;
  /** each delivered work's integrity by the retraction rule (src/usecases/works/integrityRows.ts), as on every row */
  integrity?: IntegrityOf;
}

export interface AlertView {
  id: string;
  query: string;
  collections: string[];
  filters: unknown;
  min_relevance: number;
  one_per_document: boolean;
  schedule: AlertDefinition["schedule"];
  max_cost_per_run: string | null;
  webhook: string | null;
  status: "active" | "paused";
  /** why the service paused it (a collection it searches was retired); null when it runs or its owner paused it */
  pausedReason: AlertPausedReason | null;
  createdAt: string;
  lastRunAt: string | null;
  /** the works it counts as seen (held when it was created, or delivered since) */
  seenWorks: number;
  runCount: number;
}

export interface AlertRunView {
  queryId: string;
  trigger: string;
  createdAt: string;
  status: AlertRunRow["state"];
  /** the new works it delivered */
  works: number;
  results: number;
  /** what the rows cost; charged only once delivered */
  cost: string;
  charged: string;
  endedAt: string | null;
}

const viewOf = (r: AlertRow): AlertView => ({
  id: r.alert_id,
  query: r.definition.query,
  collections: r.definition.collections,
  filters: r.definition.filters,
  min_relevance: r.definition.minRelevance,
  one_per_document: r.definition.onePerDocument,
  schedule: r.definition.schedule,
  max_cost_per_run:
    r.definition.maxCostPerRunMicros === null ? null : formatCredits(BigInt(r.definition.maxCostPerRunMicros)),
  webhook: r.definition.webhookEndpointId,
  status: r.state === "paused" ? "paused" : "active",
  pausedReason: r.state === "paused" ? (r.paused_reason ?? null) : null,
  createdAt: r.created_at,
  lastRunAt: r.last_run_at,
  seenWorks: r.seen.length,
  runCount: r.runs,
});

const runViewOf = (r: AlertRunRow): AlertRunView => ({
  queryId: r.query_id,
  trigger: r.trigger,
  createdAt: r.created_at,
  status: r.state,
  works: r.works.length,
  results: r.result_ids.length,
  cost: formatCredits(BigInt(r.cost_micros)),
  charged: formatCredits(BigInt(r.amount_micros)),
  endedAt: r.ended_at,
});

export const ALERT_ID_PATTERN = /^al_[A-Za-z0-9]{24}$/;
const notFound = (id: string) =>
  new Rejection("NOT_FOUND", `no alert ${id} in this organization; GET /api/v1/alerts lists yours`);

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

export function createAlerts(deps: AlertsDeps) {
  const { db, client, clock } = deps;
  const taskQueue = deps.taskQueue ?? TASK_QUEUE;
  const workflowActor = (id: string): Actor => ({ kind: "workflow", id });

  async function alertRow(alertId: string): Promise<AlertRow | undefined> {
    const [row] = await db.query(`SELECT ${selectList("alerts")} FROM proj_alerts WHERE alert_id = $1`, [alertId]);
    return row ? normalizeRow("alerts", row) : undefined;
  }
  async function runRow(queryId: string): Promise<AlertRunRow | undefined> {
    const [row] = await db.query(`SELECT ${selectList("alert_runs")} FROM proj_alert_runs WHERE query_id = $1`, [
      queryId,
    ]);
    return row ? normalizeRow("alert_runs", row) : undefined;
  }

  /** The organization's alert, not deleted; another organization's id (or a malformed one) reads as unknown. */
  async function ownAlert(orgId: string, alertId: string): Promise<AlertRow> {
    const row = ALERT_ID_PATTERN.test(alertId) ? await alertRow(alertId) : undefined;
    if (!row || row.org_id !== orgId || row.state === "deleted") throw notFound(alertId);
    return row;
  }

  async function callerOf(orgId: string, keyId: string): Promise<AuthContext | undefined> {
    const [org, key] = await Promise.all([deps.accounts.getOrganization(orgId), deps.accounts.getKey(keyId)]);
    if (!org || !key || key.revoked || key.mode !== "live") return undefined;
    return { org, key, billingMode: org.billingMode };
  }

  /**
   * The alert's key as a caller that can pay for a run (a run is sent only when it could be charged once delivered).
   */
  async function payingCaller(alert: AlertRow): Promise<AuthContext | undefined> {
    const auth = await callerOf(alert.org_id, alert.key_id);
    if (!auth) return undefined;
    try {
      assertSearchPayable(auth.org, auth.key);
      return auth;
    } catch (err) {
      if (err instanceof Rejection) return undefined;
      throw err;
    }
  }

  /** The rows a search of the alert finds now, best first, as a search of the key that made it. */
  const searchNow = (auth: AuthContext, def: AlertDefinition) =>
    retrieve(deps.search, auth, {
      collections: def.collections,
      query: def.query,
      limit: ALERT_SEARCH_DEPTH,
      filters: def.filters,
      selection: EVERY_ROW,
    });

  /** The first collection the alert searches that was retired, as its pause's reason; null while all are in force. */
  const retiredReasonOf = (alert: AlertRow) =>
    retiredReason(alert.definition, (name) => deps.search.catalog.retiredAt?.(name));

  async function changeState(
    orgId: string,
    alertId: string,
    type: "AlertPaused" | "AlertResumed" | "AlertDeleted",
    actor: Actor,
    reason?: AlertPausedReason,
  ): Promise<AlertRow> {
    const row = await ownAlert(orgId, alertId);
    if (type === "AlertResumed") {
      // an alert on a retired collection stays paused: it would search nothing
      const retired = retiredReasonOf(row);
      if (retired)
        throw new Rejection("COLLECTION_NOT_FOUND", pausedMessage(retired, "cannot resume"), {
          collection: retired.collection,
          retired: true,
          retiredAt: retired.retiredAt,
        });
    }
    const wanted = type === "AlertPaused" ? "paused" : type === "AlertResumed" ? "active" : "deleted";
    await runStreamCommand(db, clock, alertStream(alertId), actor, async (tx) => {
      const [now] = await tx.query<{ state: string }>(`SELECT state FROM proj_alerts WHERE alert_id = $1`, [alertId]);
      if (!now || now.state === wanted || now.state === "deleted") return { version: "any", events: [] };
      return { version: "any", events: [{ type, data: { orgId, alertId, ...(reason ? { reason } : {}) } }] };
    });
    if (row.definition.schedule !== "on_ingest") {
      const handle = client.schedule.getHandle(alertScheduleId(alertId));
      const step =
        type === "AlertPaused"
          ? handle.pause(reason ? `collection ${reason.collection} retired` : "paused by its organization")
          : type === "AlertResumed"
            ? handle.unpause("resumed by its organization")
            : handle.delete();
      await step.catch((err: unknown) => {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
      });
    }
    return (await alertRow(alertId))!;
  }

  /** Pauses an alert one of whose collections was retired, telling its owner; false when none of them was. */
  async function pauseRetired(alert: AlertRow, actor: Actor): Promise<boolean> {
    const reason = retiredReasonOf(alert);
    if (!reason) return false;
    await changeState(alert.org_id, alert.alert_id, "AlertPaused", actor, reason);
    const now = await alertRow(alert.alert_id);
    if (now?.state !== "paused" || now.paused_reason?.collection !== reason.collection) return true;
    await deps.publish(
      alert.org_id,
      "alert.paused",
      {
        alertId: alert.alert_id,
        query: alert.definition.query,
        collections: alert.definition.collections,
        reason,
        message: pausedMessage(reason),
      },
      `alert-paused:${alert.alert_id}:${reason.collection}`,
      actor,
      alert.definition.webhookEndpointId ?? undefined,
    );
    return true;
  }

  const alerts = {
    async create(auth: AuthContext, body: AlertRequest, actor: Actor): Promise<AlertView> {
      const def = alertDefinitionOf(body);
      // the key must reach every collection now (404, 403 as a search answers)
      resolveTargets(deps.search.catalog, auth, def.collections);
      if (def.webhookEndpointId !== null) {
        const [endpoint] = await db.query<{ org_id: string; state: string }>(
          `SELECT org_id, state FROM proj_webhook_endpoints WHERE endpoint_id = $1`,
          [def.webhookEndpointId],
        );
        if (!endpoint || endpoint.org_id !== auth.org.id || endpoint.state === "deleted")
          throw new Rejection(
            "VALIDATION_ERROR",
            `webhook: no webhook endpoint ${def.webhookEndpointId} in this organization; GET /api/v1/webhooks ` +
              "lists yours",
            { field: "webhook" },
          );
        if (endpoint.state !== "enabled")
          throw new Rejection(
            "VALIDATION_ERROR",
            `webhook: endpoint ${def.webhookEndpointId} is disabled; create a new endpoint for a working receiver`,
            { field: "webhook" },
          );
      }
      // what the collections hold now counts as seen: the customer already has this search for them
      const seed = await searchNow(auth, def);
      const alertId = `al_${randomBytes(24)
        .toString("base64")
        .replace(/[^A-Za-z0-9]/g, "")
        .slice(0, 24)
        .padEnd(24, "0")}`;
      await runStreamCommand(db, clock, alertStream(alertId), actor, async (tx) => {
        const [count] = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM proj_alerts WHERE org_id = $1 AND state <> 'deleted'`,
          [auth.org.id],
        );
        if ((count?.n ?? 0) >= MAX_ALERTS_PER_ORG)
          throw new Rejection("CONFLICT", `an organization has at most ${MAX_ALERTS_PER_ORG} alerts; delete one first`);
        return {
          version: 0,
          events: [
            {
              type: "AlertCreated",
              data: { orgId: auth.org.id, alertId, keyId: auth.key.id, definition: def, seenWorks: worksOf(seed.rows) },
            },
          ],
        };
      });
      if (def.schedule !== "on_ingest") {
        await client.schedule.create({
          scheduleId: alertScheduleId(alertId),
          spec: { intervals: [{ every: def.schedule === "daily" ? DAY_MS : 7 * DAY_MS }] },
          action: {
            type: "startWorkflow",
            workflowType: alertScheduleWorkflow,
            taskQueue,
            args: [{ alertId, deliveryWaitMs: deps.deliveryWaitMs }],
          },
        });
      }
      return viewOf((await alertRow(alertId))!);
    },

    /**
     * An alert created on the dashboard: the live key of the organization that pays for its runs, as if that key had
     * made it (`admit` takes its request slot); a key of another organization, revoked or sandbox is refused (422).
     */
    async createForKey(
      orgId: string,
      keyId: string,
      body: AlertRequest,
      actor: Actor,
      admit: (auth: AuthContext) => Promise<void>,
    ): Promise<AlertView> {
      const auth = await callerOf(orgId, keyId);
      if (!auth || auth.key.orgId !== orgId)
        throw new Rejection(
          "VALIDATION_ERROR",
          "key: choose a live, unrevoked key of this organization to pay for the alert's runs",
          { field: "key" },
        );
      await admit(auth);
      return alerts.create(auth, body, actor);
    },

    async list(orgId: string): Promise<AlertView[]> {
      const rows = await db.query(
        `SELECT ${selectList("alerts")} FROM proj_alerts WHERE org_id = $1 AND state <> 'deleted' ORDER BY ` +
          "created_at, alert_id",
        [orgId],
      );
      return rows.map((r) => viewOf(normalizeRow("alerts", r)));
    },

    /** The alert with its runs, newest first. */
    async get(orgId: string, alertId: string, limit = 50): Promise<AlertView & { runs: AlertRunView[] }> {
      const row = await ownAlert(orgId, alertId);
      const runs = await db.query(
        `SELECT ${selectList("alert_runs")} FROM proj_alert_runs WHERE alert_id = $1 ORDER BY created_at ` +
          `DESC, query_id LIMIT $2`,
        [alertId, limit],
      );
      return { ...viewOf(row), runs: runs.map((r) => runViewOf(normalizeRow("alert_runs", r))) };
    },

    pause: async (orgId: string, alertId: string, actor: Actor) =>
      viewOf(await changeState(orgId, alertId, "AlertPaused", actor)),
    resume: async (orgId: string, alertId: string, actor: Actor) =>
      viewOf(await changeState(orgId, alertId, "AlertResumed", actor)),
    async remove(orgId: string, alertId: string, actor: Actor): Promise<{ id: string; deleted: true }> {
      await changeState(orgId, alertId, "AlertDeleted", actor);
      return { id: alertId, deleted: true };
    },

    /**
     * After `collection` was retired: every active alert that names it is paused with the reason (an AlertPaused event
     * on its stream, its schedule paused) and its organization told by an `alert.paused` webhook, published once per
     * alert and collection. Idempotent: an alert paused already is left as it is. A run of an alert on a retired
     * collection pauses it the same way (alertRunStart), so a retirement this missed is caught at the alert's next run.
     */
    async pauseForRetiredCollection(collection: string, actor: Actor): Promise<string[]> {
      const rows = (await db.query(`SELECT ${selectList("alerts")} FROM proj_alerts WHERE state = 'active'`)).map((r) =>
        normalizeRow("alerts", r),
      );
      const lower = collection.toLowerCase();
      const paused: string[] = [];
      for (const alert of rows.filter((r) => r.definition.collections.some((n) => n.toLowerCase() === lower)))
        if (await pauseRetired(alert, actor)) paused.push(alert.alert_id);
      return paused;
    },

    /**
     * After an ingestion committed added or changed documents in `collection`: one run of every active on_ingest
     * alert watching it (directly or through a meta-collection), named by the ingestion so a retry starts nothing new.
     */
    async runAfterIngestion(collection: string, ingestionId: string): Promise<string[]> {
      const rows = (
        await db.query(
          `SELECT ${selectList("alerts")} FROM proj_alerts WHERE state = 'active' AND definition->>'schedule' ` +
            "= 'on_ingest'",
        )
      ).map((r) => normalizeRow("alerts", r));
      const watching = rows.filter((r) =>
        r.definition.collections.some((name) => {
          const entry = deps.search.catalog.resolveCollection(name);
          return entry != null && deps.search.catalog.physicalMembers(entry).some((p) => p.name === collection);
        }),
      );
      const started: string[] = [];
      for (const alert of watching) {
        const trigger = `ingestion:${ingestionId}`;
        const queryId = runQueryId(alert.alert_id, trigger);
        const input: AlertRunInput = { alertId: alert.alert_id, queryId, trigger, deliveryWaitMs: deps.deliveryWaitMs };
        try {
          await client.workflow.start(alertRunWorkflow, {
            taskQueue,
            workflowId: alertRunWorkflowId(queryId),
            args: [input],
          });
        } catch (err) {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        }
        started.push(queryId);
      }
      return started;
    },

    /**
     * A run's first step: search as the alert's key, keep the works it has not seen (min_relevance, max_cost_per_run),
     * record them (seen from now on) with the run's cached query, and send them as `alert.matched`. Idempotent by the
     * run's queryId: a retried step sends the same event again, which the webhooks publish once.
     */
    async startRun(input: AlertRunInput): Promise<AlertRunStart> {
      const alert = await alertRow(input.alertId);
      if (!alert) return { status: "skipped" };
      const def = alert.definition;
      let run = await runRow(input.queryId);
      let found: RetrievalOutcome | undefined;
      if (!run) {
        // a new run: only of an active alert, and only what could be paid for once delivered
        if (alert.state !== "active") return { status: "skipped" };
        // a collection it searches was retired (a retirement whose pauses were cut short): paused now, told once
        if (await pauseRetired(alert, workflowActor(alertRunWorkflowId(input.queryId)))) return { status: "skipped" };
        const auth = await payingCaller(alert);
        if (!auth) return { status: "skipped" };
        const outcome = (found = await searchNow(auth, def));
        await runStreamCommand(
          db,
          clock,
          alertStream(input.alertId),
          workflowActor(alertRunWorkflowId(input.queryId)),
          async (tx) => {
            // under the append lock: the seen-set as the runs before this one left it
            const [raw] = await tx.query(`SELECT ${selectList("alerts")} FROM proj_alerts WHERE alert_id = $1`, [
              input.alertId,
            ]);
            const now = raw ? normalizeRow("alerts", raw) : undefined;
            const [started] = await tx.query(`SELECT 1 AS one FROM proj_alert_runs WHERE query_id = $1`, [
              input.queryId,
            ]);
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
        run = await runRow(input.queryId);
        if (!run) return { status: "skipped" };
      }
      if (run.state === "empty") return { status: "empty" };
      if (run.state !== "pending") return { status: "skipped" };
      if (!(await loadQueryRecord(db, input.queryId))) {
        // the run's cached query: its rows as the search found them (searched again when a retried step lost them)
        if (!found) {
          const auth = await callerOf(alert.org_id, alert.key_id);
          if (!auth) return { status: "skipped" };
          found = await searchNow(auth, def);
        }
        const byId = new Map(found.rows.map((r) => [r.id, r]));
        const rows = run.result_ids.flatMap((id) => byId.get(id) ?? []);
        await saveQueryRecord(db, {
          queryId: input.queryId,
          orgId: alert.org_id,
          keyId: alert.key_id,
          kind: "alert",
          payloadVersion: PAYLOAD_VERSION,
          createdAt: clock(),
          payload: {
            query: def.query,
            collections: found.requested.map((r) => r.name),
            rows,
            filtersApplied: found.filtersApplied,
          },
        });
      }
      const record = (await loadQueryRecord(db, input.queryId))!;
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
      return { status: "sent", works: run.works.length };
    },

    /** A run's last step: charged once (tied to its queryId) when its delivery was proven, else ended unpaid. */
    async endRun(input: { alertId: string; queryId: string; delivered: boolean }): Promise<AlertRunOutcome> {
      const run = await runRow(input.queryId);
      if (!run) throw new Error(`no alert run ${input.queryId}`);
      if (run.state !== "pending") return run.state;
      let chargedMicros = 0n;
      if (input.delivered) {
        const alert = (await alertRow(input.alertId))!;
        const record = await loadQueryRecord(db, input.queryId);
        const rows = record?.payload.rows ?? [];
        try {
          const charged = await deps.accounts.chargeSearch({
            orgId: alert.org_id,
            keyId: alert.key_id,
            queryId: input.queryId,
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
          chargedMicros = event && event.type === "SearchCharged" ? BigInt(event.data.amountMicros) : 0n;
        } catch (err) {
          // the balance or the key's cap ran out since the run was sent: delivered, and nothing could be charged
          if (!(err instanceof Rejection)) throw err;
        }
      }
      const outcome: AlertRunOutcome = input.delivered ? "delivered" : "failed";
      await runStreamCommand(
        db,
        clock,
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
    },

    /**
     * A re-fetch of a run's queryId is its delivery: the run is told (and charges); a run that ended unpaid is gone
     * (410), so its rows are never served without their charge.
     */
    async deliveredOnRefetch(record: QueryRecord): Promise<void> {
      if (record.kind !== "alert") return;
      const run = await runRow(record.queryId);
      if (run?.state === "failed")
        throw new Rejection(
          "CACHED_RESULT_EXPIRED",
          `the alert run ${record.queryId} was never delivered, so it was not charged and is no longer ` +
            "served; its works come again in no later run, so search for them instead",
        );
      if (run?.state === "pending") await proveAlertDelivery(client, record.queryId);
    },
  };
  return alerts;
}

/** Tells a run waiting for proof that it was delivered; a run that already ended has nothing to wait for. */
export async function proveAlertDelivery(client: Client, queryId: string): Promise<void> {
  await client.workflow
    .getHandle(alertRunWorkflowId(queryId))
    .signal(alertDeliveredSignal)
    .catch(() => undefined);
}

export type Alerts = ReturnType<typeof createAlerts>;
