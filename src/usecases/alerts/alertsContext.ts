// What every alert operation shares: its dependencies, the alert and run rows of the projection, the alert's key as a
// caller, and a search as that key. The operations (alerts.ts, alertState.ts, alertRuns.ts) take it as `ctx`.
import type { Client } from "@temporalio/client";
import type { Db } from "../../eventstore/db.js";
import { Rejection } from "../../domain/rejection.js";
import type { Actor } from "../../domain/events.js";
import { assertSearchPayable } from "../../domain/organization.js";
import type { PublishWebhookEvent, PublishWebhookEventsNow } from "../../domain/webhookPublish.js";
import { EVERY_ROW } from "../../retrieval/rowSelection.js";
import { selectList, normalizeRow } from "../../../projections/sqlProjection.js";
import { ALERTS, ALERT_RUNS, type AlertRow, type AlertRunRow } from "./alertTables.js";
import { TASK_QUEUE } from "../../../workflows/shared.js";
import type { AuthContext } from "../auth/context.js";
import type { IntegrityOf } from "../works/integrityRows.js";
import type { Accounts } from "../accounts/accounts.js";
import { retrieve, type AuthorFilterCheck, type SearchDeps } from "../search/pipeline.js";
import { ALERT_SEARCH_DEPTH, retiredReason, worksCondition, type AlertDefinition } from "./alertRules.js";

export interface AlertsDeps {
  db: Db;
  client: Client;
  clock: () => Date;
  accounts: Accounts;
  search: SearchDeps;
  /** how long a run waits for proof of delivery before it ends unpaid */
  deliveryWaitMs: number;
  publish: PublishWebhookEvent;
  /**
   * the publish of an ingestion's batches of runs, each event's first attempt sent at once (`firstTry`: the batch's
   * first execution); without it this process runs no batch
   */
  publishNow?: (firstTry: boolean) => PublishWebhookEventsNow;
  /** fault injection for tests only: a batch's first try pauses this long before it starts its runs' waiters */
  waiterDelayMs?: number;
  taskQueue?: string;
  /** each delivered work's integrity by the retraction rule (src/usecases/works/integrityRows.ts), as on every row */
  integrity?: IntegrityOf;
  /**
   * the author_id check a search makes (404 AUTHOR_NOT_FOUND for an id no reachable collection holds), made when an
   * alert is created; its runs never make it: a person whose works left the collections is a run that finds nothing
   */
  authorFilter?: AuthorFilterCheck;
}

const ALERT_ID_PATTERN = /^al_[A-Za-z0-9]{24}$/;
const notFound = (id: string) =>
  new Rejection("NOT_FOUND", `no alert ${id} in this organization; GET /api/v1/alerts lists yours`);

export const workflowActor = (id: string): Actor => ({ kind: "workflow", id });

export type AlertsContext = ReturnType<typeof alertsContext>;

export function alertsContext(deps: AlertsDeps) {
  const { db, client, clock } = deps;
  const taskQueue = deps.taskQueue ?? TASK_QUEUE;

  async function alertRow(alertId: string): Promise<AlertRow | undefined> {
    const [row] = await db.query(`SELECT ${selectList(ALERTS)} FROM proj_alerts WHERE alert_id = $1`, [alertId]);
    return row ? normalizeRow(ALERTS, row) : undefined;
  }
  async function runRow(queryId: string): Promise<AlertRunRow | undefined> {
    const [row] = await db.query(`SELECT ${selectList(ALERT_RUNS)} FROM proj_alert_runs WHERE query_id = $1`, [
      queryId,
    ]);
    return row ? normalizeRow(ALERT_RUNS, row) : undefined;
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

  /**
   * The rows a search of the alert finds now, best first, as a search of the key that made it. `creating`: the
   * search that seeds a new alert, which checks its author ids as a search does. `within.works`: only these works'
   * chunks (alertRules.ts worksToSearch), each row's relevance read against its whole collection's best (`knownBest`
   * where the alert keeps it, alertListBest.ts).
   */
  const searchNow = (
    auth: AuthContext,
    def: AlertDefinition,
    creating = false,
    within?: { works: readonly string[]; knownBest?: ReadonlyMap<string, number> },
  ) =>
    retrieve(creating ? { ...deps.search, authorFilter: deps.authorFilter } : deps.search, auth, {
      collections: def.collections,
      query: def.query,
      limit: ALERT_SEARCH_DEPTH,
      filters: def.filters,
      selection: EVERY_ROW,
      ...(within
        ? {
            within: {
              condition: (physical: string) => worksCondition(within.works, physical),
              knownBest: within.knownBest,
            },
          }
        : {}),
    });

  /** The first collection the alert searches that was retired, as its pause's reason; null while all are in force. */
  const retiredReasonOf = (alert: AlertRow) =>
    retiredReason(alert.definition, (name) => deps.search.catalog.retiredAt?.(name));

  return {
    deps,
    db,
    client,
    clock,
    taskQueue,
    alertRow,
    runRow,
    ownAlert,
    callerOf,
    payingCaller,
    searchNow,
    retiredReasonOf,
  };
}
