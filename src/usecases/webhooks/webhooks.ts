// The webhooks use case: an organization's endpoints (create, list, delete, rotate the secret, send a test, list the
// deliveries with their attempts, send a delivery again), and publishing an event: appended once, then one delivery
// workflow per subscribed endpoint. The REST routes, the operator API and the CLI call these.
import { takeMinuteBudgetOf, type BudgetPayer } from "../limits/quotas.js";
import { createHash, randomBytes } from "node:crypto";
import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import type { Db } from "../../eventstore/db.js";
import { appendStreams, runStreamCommand } from "../../../projections/streamCommand.js";
import { readStream } from "../../eventstore/eventStore.js";
import { Rejection } from "../../domain/rejection.js";
import {
  notificationSettingsStream,
  webhookDeliveryStream,
  webhookEndpointStream,
  webhookMessageStream,
  type Actor,
  type DomainEvent,
} from "../../domain/events.js";
import { formatCredits } from "../../domain/money.js";
import {
  endpointSecret,
  isWebhookEventType,
  MAX_ENDPOINTS_PER_ORG,
  MAX_WEBHOOK_BODY_BYTES,
  PREVIOUS_SECRET_GRACE_MS,
  subscribesTo,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT,
  type WebhookPayload,
} from "../../domain/webhooks.js";
import type {
  PublishedNow,
  PublishWebhookEvent,
  PublishWebhookEventsNow,
  WebhookEventToPublish,
} from "../../domain/webhookPublish.js";
import { checkWebhookUrl, namesAnAddress, type HostLookup } from "./urlGuard.js";
import { selectList, normalizeRow } from "../../../projections/sqlProjection.js";
import {
  WEBHOOK_ATTEMPTS,
  WEBHOOK_DELIVERIES,
  WEBHOOK_ENDPOINTS,
  type WebhookAttemptRow,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from "./webhookTables.js";
import { TASK_QUEUE } from "../../../workflows/shared.js";
import { webhookDeliveryWorkflow } from "../../../workflows/webhookDelivery.js";
import { webhookWorkflowId, type AttemptVerdict, type WebhookDeliveryInput } from "../../../workflows/webhookTypes.js";
import { endpointsById, type DeliveryAttempts } from "./deliveryAttempts.js";

/** First attempts made at publish and their ends, as the delivery workflow's steps make them (deliveryAttempts.ts). */
type FirstAttempts = Pick<DeliveryAttempts, "firstAttempts" | "endSettled" | "end">;

interface WebhookSettings {
  /** the master key endpoint secrets are derived from */
  secretKey: string;
  retrySeconds: number[];
  allowPrivateUrls: boolean;
}

interface WebhooksDeps {
  db: Db;
  client: Client;
  clock: () => Date;
  settings: WebhookSettings;
  /** the name lookup the URL guard uses (tests give their own) */
  lookup?: HostLookup;
  taskQueue?: string;
}

export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: "enabled" | "disabled";
  /** why the service stopped sending (an endpoint failing for days), with when */
  disabledReason: string | null;
  disabledAt: string | null;
  /** the first failed attempt since the last success: the endpoint is failing since then */
  failingSince: string | null;
  createdAt: string;
}

interface AttemptView {
  attempt: number;
  at: string;
  /** the receiver's HTTP status; null when no answer came */
  status: number | null;
  latencyMs: number;
  responseExcerpt: string;
  error: string | null;
}

export interface DeliveryView {
  eventId: string;
  type: string;
  createdAt: string;
  status: WebhookDeliveryRow["state"];
  attempts: AttemptView[];
}

export interface NewEndpointInput {
  url: string;
  events: string[];
  description?: string | null;
}

/**
 * The message id (every attempt's webhook-id) of an event named by its source: a retried publish names the same one.
 */
const messageIdOf = (source: string) => `msg_${createHash("sha256").update(source).digest("base64url").slice(0, 32)}`;

const endpointView = (r: WebhookEndpointRow): EndpointView => ({
  id: r.endpoint_id,
  url: r.url,
  events: r.events,
  description: r.description,
  status: r.state === "disabled" ? "disabled" : "enabled",
  disabledReason: r.disabled_reason,
  disabledAt: r.disabled_at,
  failingSince: r.failing_since,
  createdAt: r.created_at,
});

const notFound = (id: string) => new Rejection("NOT_FOUND", `no webhook endpoint ${id} in this organization`);

/** What every webhook operation shares: its dependencies, an endpoint's row, and a delivery's workflow started once. */
function webhooksContext(deps: WebhooksDeps) {
  const { db, client, clock, settings } = deps;
  const taskQueue = deps.taskQueue ?? TASK_QUEUE;

  const endpointRow = async (endpointId: string): Promise<WebhookEndpointRow | undefined> =>
    (await endpointsById(db, [endpointId])).get(endpointId);

  /** The organization's endpoint, not deleted; another organization's id reads as unknown. */
  async function ownEndpoint(orgId: string, endpointId: string): Promise<WebhookEndpointRow> {
    const row = await endpointRow(endpointId);
    if (!row || row.org_id !== orgId || row.state === "deleted") throw notFound(endpointId);
    return row;
  }

  /** `delayMs`: its first attempt waits that long (a delivery whose first attempt was sent at publish). */
  async function startDelivery(input: WebhookDeliveryInput, delayMs = 0): Promise<void> {
    try {
      await client.workflow.start(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId: webhookWorkflowId(input.messageId, input.endpointId, input.round),
        args: [input],
        ...(delayMs > 0 ? { startDelay: delayMs } : {}),
      });
    } catch (err) {
      // a retried publish: the delivery runs already
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }

  return { deps, db, clock, settings, endpointRow, ownEndpoint, startDelivery };
}

type WebhooksContext = ReturnType<typeof webhooksContext>;

function checkEvents(events: string[]): string[] {
  const unknown = events.filter((e) => !isWebhookEventType(e));
  if (unknown.length > 0)
    throw new Rejection(
      "VALIDATION_ERROR",
      `unknown event type ${JSON.stringify(unknown[0])}; events are ${WEBHOOK_EVENT_TYPES.join(", ")}`,
    );
  return [...new Set(events)];
}

/**
 * The event for the organization's enabled `endpoints` that subscribe to `type` (`only`: to that endpoint alone,
 * whatever it subscribes to: a test event); none when there is none.
 */
function eventCreated(
  e: WebhookEventToPublish,
  messageId: string,
  endpoints: WebhookEndpointRow[],
  at: Date,
): DomainEvent[] {
  const to = endpoints.filter(
    (r) => r.org_id === e.orgId && (e.only ? r.endpoint_id === e.only : subscribesTo(r.events, e.type)),
  );
  if (to.length === 0) return [];
  const payload: WebhookPayload = { type: e.type, timestamp: at.toISOString(), data: e.data };
  if (Buffer.byteLength(JSON.stringify(payload)) > MAX_WEBHOOK_BODY_BYTES)
    throw new Error(`a ${e.type} payload is larger than ${MAX_WEBHOOK_BODY_BYTES} bytes`);
  return [
    {
      type: "WebhookEventCreated",
      data: { orgId: e.orgId, messageId, eventType: e.type, payload, endpointIds: to.map((r) => r.endpoint_id) },
    },
  ];
}

interface CreatedEvent {
  messageId: string;
  endpointIds: string[];
  payload: WebhookPayload;
}

/**
 * Appends each event once (by its source) for its organization's enabled endpoints that subscribe to it, all in one
 * append; null for one that no endpoint takes. A retried append names the same events and the same endpoints.
 */
async function appendEvents(ctx: WebhooksContext, events: WebhookEventToPublish[]): Promise<(CreatedEvent | null)[]> {
  const { db, clock } = ctx;
  const messageIds = events.map((e) => messageIdOf(e.source));
  const keyOf = (messageId: string) => `webhook-message:${messageId}`;
  const written = await appendStreams(db, clock, async (tx, at) => {
    const endpoints = (
      await tx.query(
        `SELECT ${selectList(WEBHOOK_ENDPOINTS)} FROM proj_webhook_endpoints WHERE org_id = ANY($1) AND state ` +
          "= 'enabled' ORDER BY endpoint_id",
        [[...new Set(events.map((e) => e.orgId))]],
      )
    ).map((r) => normalizeRow(WEBHOOK_ENDPOINTS, r));
    return events.map((e, i) => ({
      streamId: webhookMessageStream(messageIds[i]!),
      actor: e.actor,
      events: eventCreated(e, messageIds[i]!, endpoints, at),
      idempotencyKey: keyOf(messageIds[i]!),
    }));
  });
  // what this append did not write: appended by an earlier try of the same publish, or taken by no endpoint
  const earlier = new Map(
    (
      await db.query<{ data: { messageId: string; endpointIds: string[]; payload: WebhookPayload } }>(
        `SELECT data FROM events WHERE idempotency_key = ANY($1) AND type = 'WebhookEventCreated'`,
        [messageIds.filter((_, i) => written[i]!.length === 0).map(keyOf)],
      )
    ).map((r) => [r.data.messageId, r.data]),
  );
  return messageIds.map((messageId, i) => {
    const created = written[i]!.find((e) => e.type === "WebhookEventCreated") ?? undefined;
    const data = created?.type === "WebhookEventCreated" ? created.data : earlier.get(messageId);
    return data ? { messageId, endpointIds: data.endpointIds, payload: data.payload } : null;
  });
}

/**
 * Appends the event once (by its source) for the organization's enabled endpoints that subscribe to `type` (`only`:
 * to that endpoint alone, whatever it subscribes to: a test event); null when there is none.
 */
async function appendEvent(
  ctx: WebhooksContext,
  ...[orgId, type, data, source, actor, only]: Parameters<PublishWebhookEvent>
): Promise<CreatedEvent | null> {
  const [created] = await appendEvents(ctx, [{ orgId, type, data, source, actor, ...(only ? { only } : {}) }]);
  return created ?? null;
}

/** Appends the event once (by its source) and starts its deliveries; nothing when no enabled endpoint subscribes. */
async function publishEvent(
  ctx: WebhooksContext,
  ...args: Parameters<PublishWebhookEvent>
): Promise<{ eventId: string; endpointIds: string[] } | null> {
  const [orgId] = args;
  const event = await appendEvent(ctx, ...args);
  if (!event) return null;
  for (const endpointId of event.endpointIds)
    await ctx.startDelivery(firstDelivery(ctx, orgId, event.messageId, endpointId));
  return { eventId: event.messageId, endpointIds: event.endpointIds };
}

const firstDelivery = (
  ctx: WebhooksContext,
  orgId: string,
  messageId: string,
  endpointId: string,
): WebhookDeliveryInput => ({
  orgId,
  messageId,
  endpointId,
  retrySeconds: ctx.settings.retrySeconds,
  firstAttempt: 1,
  round: 0,
});

/**
 * Appends the events once (in one append) and sends each endpoint's first attempt here, not in a delivery workflow:
 * a 2xx ends that delivery at once, with no workflow at all, so a storm of events (an ingestion's alert runs) costs
 * Temporal nothing when the receivers answer, and the store a few appends for all of them. An endpoint that did not
 * answer 2xx gets its delivery workflow for the rest of the schedule (attempt 2 after the first wait) when the caller
 * calls `retryLater`: a caller that waits for proof of delivery starts its waiter first, so the retries' 2xx always
 * finds it. Idempotent by the sources: a retried call sends no attempt that was recorded (it returns that attempt's
 * verdict), and resends one that was not with the same webhook-id. The caller takes a 2xx as its proof of delivery
 * (nothing else is told). Answers once the events are appended, with each event's own settling: a receiver that
 * hangs delays its event alone.
 */
async function publishWithFirstAttempts(
  ctx: WebhooksContext,
  attempts: FirstAttempts,
  firstTry: boolean,
  events: WebhookEventToPublish[],
): Promise<Promise<PublishedNow | null>[]> {
  const created = await appendEvents(ctx, events);
  const firsts = created.flatMap((c, i) =>
    c
      ? c.endpointIds.map((endpointId) => ({
          of: i,
          delivery: firstDelivery(ctx, events[i]!.orgId, c.messageId, endpointId),
          payload: c.payload,
        }))
      : [],
  );
  const verdicts = await attempts.firstAttempts(firsts, firstTry);
  return created.map((c, i) => {
    if (!c) return Promise.resolve(null);
    const own = firsts.flatMap((f, j) => (f.of === i ? [{ delivery: f.delivery, verdict: verdicts[j]! }] : []));
    const settled = settleFirst(ctx, attempts, own);
    // the caller awaits each in turn: a failure before it does is not an unhandled one
    settled.catch(() => undefined);
    return settled;
  });
}

/**
 * One event's first attempts settled: each delivery a 2xx or a gone endpoint ended, one that failed given the rest of
 * its schedule by `retryLater` (or ended failed when there is none).
 */
async function settleFirst(
  ctx: WebhooksContext,
  attempts: FirstAttempts,
  own: { delivery: WebhookDeliveryInput; verdict: Promise<AttemptVerdict> }[],
): Promise<PublishedNow> {
  const { retrySeconds } = ctx.settings;
  let delivered = false;
  const retries: WebhookDeliveryInput[] = [];
  for (const { delivery, verdict: pending } of own) {
    const verdict = await pending;
    if (verdict === "delivered") delivered = true;
    if (verdict === "failed" && retrySeconds.length > 0)
      retries.push({ ...delivery, firstAttempt: 2, retrySeconds: retrySeconds.slice(1) });
    else if (verdict === "failed") await attempts.end(delivery, "failed");
    else await attempts.endSettled(delivery, verdict === "delivered" ? "delivered" : "cancelled");
  }
  return {
    delivered,
    retryLater: async () => {
      for (const retry of retries) await ctx.startDelivery(retry, retrySeconds[0]! * 1000);
    },
  };
}

/** A new endpoint: its events known, its URL public, at most MAX_ENDPOINTS_PER_ORG; its secret shown once. */
async function createEndpoint(
  ctx: WebhooksContext,
  orgId: string,
  input: NewEndpointInput,
  actor: Actor,
  payer: BudgetPayer,
): Promise<EndpointView & { secret: string }> {
  const { db, clock, settings, deps } = ctx;
  const events = checkEvents(input.events);
  const guard = { allowPrivate: settings.allowPrivateUrls, lookup: deps.lookup };
  // what needs no name lookup (the events, the URL's form, an address written in it) is refused before the per-minute
  // budget, as a search's checks are; a name's lookup takes a slot
  const early = namesAnAddress(input.url, guard.allowPrivate) ? await checkWebhookUrl(input.url, guard) : undefined;
  await takeMinuteBudgetOf(db, payer, clock());
  const target = early ?? (await checkWebhookUrl(input.url, guard));
  const endpointId =
    "we_" + `${randomBytes(15).toString("base64url").replace(/[-_]/g, "")}` + `${randomBytes(4).toString("hex")}`;
  await runStreamCommand(db, clock, webhookEndpointStream(endpointId), actor, async (tx) => {
    const [count] = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM proj_webhook_endpoints WHERE org_id = $1 AND state <> 'deleted'`,
      [orgId],
    );
    if ((count?.n ?? 0) >= MAX_ENDPOINTS_PER_ORG)
      throw new Rejection(
        "CONFLICT",
        `an organization has at most ${MAX_ENDPOINTS_PER_ORG} webhook endpoints; delete one first`,
      );
    return {
      version: 0,
      events: [
        {
          type: "WebhookEndpointCreated",
          data: { orgId, endpointId, url: target.url.toString(), events, description: input.description ?? null },
        },
      ],
    };
  });
  const row = (await ctx.endpointRow(endpointId))!;
  return { ...endpointView(row), secret: endpointSecret(settings.secretKey, endpointId, row.secret_version) };
}

/** A new secret, shown once; the previous one keeps signing beside it for 24 hours. */
async function rotateSecret(
  ctx: WebhooksContext,
  orgId: string,
  endpointId: string,
  actor: Actor,
): Promise<EndpointView & { secret: string; previousSecretExpiresAt: string }> {
  const { db, clock, settings } = ctx;
  const current = await ctx.ownEndpoint(orgId, endpointId);
  const version = current.secret_version + 1;
  const previousSecretExpiresAt = new Date(clock().getTime() + PREVIOUS_SECRET_GRACE_MS).toISOString();
  await runStreamCommand(db, clock, webhookEndpointStream(endpointId), actor, async (tx) => {
    const [row] = await tx.query<{ v: number }>(
      `SELECT secret_version AS v FROM proj_webhook_endpoints WHERE endpoint_id = $1`,
      [endpointId],
    );
    if (row?.v !== current.secret_version)
      throw new Rejection("CONFLICT", "the secret was rotated meanwhile; rotate again if you need another");
    return {
      version: "any",
      events: [
        {
          type: "WebhookSecretRotated",
          data: { orgId, endpointId, secretVersion: version, previousSecretExpiresAt },
        },
      ],
    };
  });
  return {
    ...endpointView((await ctx.endpointRow(endpointId))!),
    secret: endpointSecret(settings.secretKey, endpointId, version),
    previousSecretExpiresAt,
  };
}

/** A `webhook.test` event to this endpoint, whatever it subscribes to. */
async function sendTest(
  ctx: WebhooksContext,
  orgId: string,
  endpointId: string,
  actor: Actor,
  payer: BudgetPayer,
): Promise<{ eventId: string }> {
  await takeMinuteBudgetOf(ctx.db, payer, ctx.clock());
  const row = await ctx.ownEndpoint(orgId, endpointId);
  if (row.state !== "enabled")
    throw new Rejection(
      "CONFLICT",
      `webhook endpoint ${endpointId} is disabled (${row.disabled_reason ?? "it kept failing"}); create a ` +
        "new endpoint for a working receiver",
    );
  const published = await publishEvent(
    ctx,
    orgId,
    WEBHOOK_TEST_EVENT,
    { endpointId, message: "A test event sent on request." },
    `test:${endpointId}:${randomBytes(12).toString("hex")}`,
    actor,
    endpointId,
  );
  if (!published) throw notFound(endpointId);
  return { eventId: published.eventId };
}

/** The endpoint's deliveries, newest first, each with its attempts. */
async function endpointDeliveries(
  ctx: WebhooksContext,
  orgId: string,
  endpointId: string,
  limit = 50,
): Promise<DeliveryView[]> {
  const { db } = ctx;
  await ctx.ownEndpoint(orgId, endpointId);
  const rows = (
    await db.query(
      `SELECT ${selectList(WEBHOOK_DELIVERIES)} FROM proj_webhook_deliveries WHERE endpoint_id = $1 ` +
        `ORDER BY created_at DESC, message_id LIMIT $2`,
      [endpointId, limit],
    )
  ).map((r) => normalizeRow(WEBHOOK_DELIVERIES, r));
  const attempts =
    rows.length === 0
      ? []
      : (
          await db.query(
            `SELECT ${selectList(WEBHOOK_ATTEMPTS)} FROM proj_webhook_attempts WHERE endpoint_id = $1 ` +
              `AND message_id = ANY($2) ORDER BY attempt, position`,
            [endpointId, rows.map((r) => r.message_id)],
          )
        ).map((r) => normalizeRow(WEBHOOK_ATTEMPTS, r));
  const byMessage = new Map<string, WebhookAttemptRow[]>();
  for (const a of attempts) byMessage.set(a.message_id, [...(byMessage.get(a.message_id) ?? []), a]);
  return rows.map((r) => ({
    eventId: r.message_id,
    type: r.event_type,
    createdAt: r.created_at,
    status: r.state,
    attempts: (byMessage.get(r.message_id) ?? []).map((a) => ({
      attempt: a.attempt,
      at: a.time,
      status: a.status,
      latencyMs: a.latency_ms,
      responseExcerpt: a.excerpt,
      error: a.error,
    })),
  }));
}

/** Sends an ended delivery again: a new series of attempts with the same webhook-id and body. */
async function redeliver(
  ctx: WebhooksContext,
  orgId: string,
  endpointId: string,
  eventId: string,
  actor: Actor,
  payer: BudgetPayer,
): Promise<{ eventId: string; status: "pending" }> {
  const { db, clock, settings } = ctx;
  await takeMinuteBudgetOf(db, payer, clock());
  const endpoint = await ctx.ownEndpoint(orgId, endpointId);
  if (endpoint.state !== "enabled")
    throw new Rejection(
      "CONFLICT",
      `webhook endpoint ${endpointId} is disabled; create a new endpoint for a working receiver`,
    );
  const [raw] = await db.query(
    `SELECT ${selectList(WEBHOOK_DELIVERIES)} FROM proj_webhook_deliveries WHERE message_id = $1 AND ` +
      `endpoint_id = $2`,
    [eventId, endpointId],
  );
  if (!raw) throw new Rejection("NOT_FOUND", `no delivery of event ${eventId} to webhook endpoint ${endpointId}`);
  const delivery = normalizeRow(WEBHOOK_DELIVERIES, raw);
  if (delivery.state === "pending")
    throw new Rejection("CONFLICT", `the delivery of ${eventId} is still under way; wait for it to end`);
  const stored = await runStreamCommand(db, clock, webhookDeliveryStream(eventId, endpointId), actor, async () => ({
    version: "any",
    events: [{ type: "WebhookRedeliveryRequested", data: { orgId, messageId: eventId, endpointId } }],
  }));
  const rounds = (await readStream(db, webhookDeliveryStream(eventId, endpointId))).filter(
    (e) => e.type === "WebhookRedeliveryRequested",
  ).length;
  await ctx.startDelivery({
    orgId,
    messageId: eventId,
    endpointId,
    retrySeconds: settings.retrySeconds,
    firstAttempt: delivery.attempts + 1,
    round: Math.max(rounds, stored.length),
  });
  return { eventId, status: "pending" };
}

export function createWebhooks(deps: WebhooksDeps) {
  const ctx = webhooksContext(deps);
  const { db, clock } = ctx;
  const publish = (...args: Parameters<PublishWebhookEvent>) => publishEvent(ctx, ...args);

  return {
    publish,

    /**
     * The publish of a storm of events: each one's first attempt sent here with `attempts` (publishWithFirstAttempts);
     * `firstTry`: the first execution of the caller's step (a crash test's pause applies to it alone).
     */
    publishWithFirstAttempts:
      (attempts: FirstAttempts, firstTry: boolean): PublishWebhookEventsNow =>
      (events) =>
        publishWithFirstAttempts(ctx, attempts, firstTry, events),

    /** A new endpoint; `payer` takes the request's slot of the per-minute budget (as do sendTest and redeliver). */
    create: (orgId: string, input: NewEndpointInput, actor: Actor, payer: BudgetPayer) =>
      createEndpoint(ctx, orgId, input, actor, payer),

    /** What the organization is told about its account: `balance.low` below this balance (null: never). */
    async notificationSettings(orgId: string): Promise<{ balanceLowThreshold: string | null }> {
      const [row] = await db.query<{ t: string | null }>(
        `SELECT balance_low_micros::text AS t FROM proj_notification_settings WHERE org_id = $1`,
        [orgId],
      );
      return { balanceLowThreshold: row?.t == null ? null : formatCredits(BigInt(row.t)) };
    },

    async setNotificationSettings(
      orgId: string,
      balanceLowThresholdMicros: bigint | null,
      actor: Actor,
    ): Promise<{ balanceLowThreshold: string | null }> {
      await runStreamCommand(db, clock, notificationSettingsStream(orgId), actor, async () => ({
        version: "any",
        events: [
          {
            type: "NotificationSettingsChanged",
            data: {
              orgId,
              balanceLowThresholdMicros:
                balanceLowThresholdMicros === null ? null : balanceLowThresholdMicros.toString(),
            },
          },
        ],
      }));
      return {
        balanceLowThreshold: balanceLowThresholdMicros === null ? null : formatCredits(balanceLowThresholdMicros),
      };
    },

    async list(orgId: string): Promise<EndpointView[]> {
      const rows = await db.query(
        `SELECT ${selectList(WEBHOOK_ENDPOINTS)} FROM proj_webhook_endpoints WHERE org_id = $1 AND state <> ` +
          "'deleted' ORDER BY created_at, endpoint_id",
        [orgId],
      );
      return rows.map((r) => endpointView(normalizeRow(WEBHOOK_ENDPOINTS, r)));
    },

    async get(orgId: string, endpointId: string): Promise<EndpointView> {
      return endpointView(await ctx.ownEndpoint(orgId, endpointId));
    },

    /** Deleted: nothing more is sent to it, deliveries under way stop before their next attempt. */
    async remove(orgId: string, endpointId: string, actor: Actor): Promise<{ id: string; deleted: true }> {
      await ctx.ownEndpoint(orgId, endpointId);
      await runStreamCommand(db, clock, webhookEndpointStream(endpointId), actor, async (tx) => {
        const row = await tx.query<{ state: string }>(
          `SELECT state FROM proj_webhook_endpoints WHERE endpoint_id = $1`,
          [endpointId],
        );
        if (row[0]?.state === "deleted") return { version: "any", events: [] };
        return { version: "any", events: [{ type: "WebhookEndpointDeleted", data: { orgId, endpointId } }] };
      });
      return { id: endpointId, deleted: true };
    },

    rotateSecret: (orgId: string, endpointId: string, actor: Actor) => rotateSecret(ctx, orgId, endpointId, actor),
    sendTest: (orgId: string, endpointId: string, actor: Actor, payer: BudgetPayer) =>
      sendTest(ctx, orgId, endpointId, actor, payer),
    deliveries: (orgId: string, endpointId: string, limit?: number) =>
      endpointDeliveries(ctx, orgId, endpointId, limit),
    redeliver: (orgId: string, endpointId: string, eventId: string, actor: Actor, payer: BudgetPayer) =>
      redeliver(ctx, orgId, endpointId, eventId, actor, payer),
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
