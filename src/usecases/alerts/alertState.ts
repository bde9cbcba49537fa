// An alert paused, resumed or deleted (its event and its schedule), and the pause of an alert whose collection was
// retired, told to its owner once, one alert or every alert on a collection.
import { ScheduleNotFoundError } from "@temporalio/client";
import { runStreamCommand } from "../../../projections/streamCommand.js";
import { Rejection } from "../../domain/rejection.js";
import { alertStream, type Actor, type AlertPausedReason } from "../../domain/events.js";
import { normalizeRow, selectList } from "../../../projections/sqlProjection.js";
import { ALERTS, type AlertRow } from "./alertTables.js";
import { alertScheduleId } from "../../../workflows/alertTypes.js";
import { pausedMessage } from "./alertRules.js";
import type { AlertsContext } from "./alertsContext.js";
import { forgetListBest } from "./alertListBest.js";

export async function changeState(
  ctx: AlertsContext,
  orgId: string,
  alertId: string,
  type: "AlertPaused" | "AlertResumed" | "AlertDeleted",
  actor: Actor,
  reason?: AlertPausedReason,
): Promise<AlertRow> {
  const row = await ctx.ownAlert(orgId, alertId);
  if (type === "AlertResumed") {
    // an alert on a retired collection stays paused: it would search nothing
    const retired = ctx.retiredReasonOf(row);
    if (retired)
      throw new Rejection("COLLECTION_NOT_FOUND", pausedMessage(retired, "cannot resume"), {
        collection: retired.collection,
        retired: true,
        retiredAt: retired.retiredAt,
      });
  }
  const wanted = type === "AlertPaused" ? "paused" : type === "AlertResumed" ? "active" : "deleted";
  await runStreamCommand(ctx.db, ctx.clock, alertStream(alertId), actor, async (tx) => {
    const [now] = await tx.query<{ state: string }>(`SELECT state FROM proj_alerts WHERE alert_id = $1`, [alertId]);
    if (!now || now.state === wanted || now.state === "deleted") return { version: "any", events: [] };
    return { version: "any", events: [{ type, data: { orgId, alertId, ...(reason ? { reason } : {}) } }] };
  });
  if (type === "AlertDeleted") await forgetListBest(ctx.db, alertId);
  if (row.definition.schedule !== "on_ingest") {
    const handle = ctx.client.schedule.getHandle(alertScheduleId(alertId));
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
  return (await ctx.alertRow(alertId))!;
}

/** Pauses an alert one of whose collections was retired, telling its owner; false when none of them was. */
export async function pauseRetired(ctx: AlertsContext, alert: AlertRow, actor: Actor): Promise<boolean> {
  const reason = ctx.retiredReasonOf(alert);
  if (!reason) return false;
  await changeState(ctx, alert.org_id, alert.alert_id, "AlertPaused", actor, reason);
  const now = await ctx.alertRow(alert.alert_id);
  if (now?.state !== "paused" || now.paused_reason?.collection !== reason.collection) return true;
  await ctx.deps.publish(
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

/**
 * After `collection` was retired: every active alert that names it is paused with the reason (an AlertPaused event
 * on its stream, its schedule paused) and its organization told by an `alert.paused` webhook, published once per
 * alert and collection. Idempotent: an alert paused already is left as it is. A run of an alert on a retired
 * collection pauses it the same way (alertRunStart), so a retirement this missed is caught at the alert's next run.
 */
export async function pauseForRetiredCollection(
  ctx: AlertsContext,
  collection: string,
  actor: Actor,
): Promise<string[]> {
  const rows = (await ctx.db.query(`SELECT ${selectList(ALERTS)} FROM proj_alerts WHERE state = 'active'`)).map((r) =>
    normalizeRow(ALERTS, r),
  );
  const lower = collection.toLowerCase();
  const paused: string[] = [];
  for (const alert of rows.filter((r) => r.definition.collections.some((n) => n.toLowerCase() === lower)))
    if (await pauseRetired(ctx, alert, actor)) paused.push(alert.alert_id);
  return paused;
}
