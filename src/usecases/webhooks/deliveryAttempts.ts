// The steps of one webhook delivery (the workflow in workflows/webhookDelivery.ts runs them): an attempt checks the
// endpoint's URL again (a name may have been rebound to a private address since registration), signs the stored
// payload, sends it to the checked address and records the attempt once by its number; the end of a delivery is
// recorded once, disables an endpoint failing for longer than the configured time, and hands a delivered event to
// whatever waits for proof of its delivery.
import type { Db } from "../../eventstore/db.js";
import { readByIdempotencyKey, readStream } from "../../eventstore/eventStore.js";
import { runStreamCommand } from "../../../projections/streamCommand.js";
import { Rejection } from "../../domain/rejection.js";
import {
  webhookDeliveryStream,
  webhookEndpointStream,
  webhookMessageStream,
  type Actor,
  type DomainEvent,
  type WebhookDeliveryOutcome,
} from "../../domain/events.js";
import {
  endpointSecret,
  isDelivered,
  shouldDisable,
  signedHeaders,
  signingVersions,
  type WebhookPayload,
} from "../../domain/webhooks.js";
import { normalizeRow, selectList } from "../../../projections/sqlProjection.js";
import { WEBHOOK_ENDPOINTS, type WebhookEndpointRow } from "./webhookTables.js";
import type { AttemptVerdict, WebhookDeliveryInput } from "../../../workflows/webhookTypes.js";
import { checkWebhookUrl, type HostLookup } from "./urlGuard.js";
import { sendWebhook, type AttemptOutcome } from "./sendWebhook.js";

export interface DeliveryAttemptDeps {
  db: Db;
  clock: () => Date;
  secretKey: string;
  allowPrivateUrls: boolean;
  /** an endpoint failing this long when a delivery fails for good is disabled */
  disableAfterMs: number;
  lookup?: HostLookup;
  /** how long one attempt waits for an answer */
  timeoutMs?: number;
  /**
   * fault injection for crash tests: the first try of an attempt pauses after the receiver answered, before it is
   * recorded
   */
  afterSendDelayMs?: number;
  /** told when an event reached an endpoint (a 2xx): the proof of delivery of what is charged only when delivered */
  onDelivered?: (payload: WebhookPayload, orgId: string) => Promise<void>;
}

const ACTOR = (d: WebhookDeliveryInput): Actor => ({ kind: "workflow", id: `webhook-${d.messageId}-${d.endpointId}` });
const DEFAULT_TIMEOUT_MS = 10_000;

export function createDeliveryAttempts(deps: DeliveryAttemptDeps) {
  const { db, clock } = deps;

  async function endpoint(endpointId: string): Promise<WebhookEndpointRow | undefined> {
    const [row] = await db.query(
      `SELECT ${selectList(WEBHOOK_ENDPOINTS)} FROM proj_webhook_endpoints WHERE endpoint_id = $1`,
      [endpointId],
    );
    return row ? normalizeRow(WEBHOOK_ENDPOINTS, row) : undefined;
  }

  /**
   * Appends `event` on `stream` as the delivery's workflow, once per `idempotencyKey` (a retried activity appends
   * nothing); each of these streams has one writer at a time, so no version check.
   */
  async function recordOnce(
    stream: string,
    d: WebhookDeliveryInput,
    event: DomainEvent,
    idempotencyKey: string,
  ): Promise<void> {
    await runStreamCommand(db, clock, stream, ACTOR(d), async () => ({ version: "any", events: [event] }), {
      idempotencyKey,
    });
  }

  async function payloadOf(messageId: string): Promise<WebhookPayload> {
    const created = (await readStream(db, webhookMessageStream(messageId))).find(
      (e) => e.type === "WebhookEventCreated",
    );
    if (!created || created.type !== "WebhookEventCreated")
      throw new Error(`webhook event ${messageId} is not in the store`);
    return created.data.payload;
  }

  return {
    /**
     * `firstTry`: the first execution of this attempt (a crash test's pause applies to it alone, so a retry goes
     * through).
     */
    async attempt(d: WebhookDeliveryInput, attempt: number, firstTry = true): Promise<AttemptVerdict> {
      const key = `webhook-attempt:${d.messageId}:${d.endpointId}:${attempt}`;
      // a retried activity whose attempt was recorded (the worker died after the record): that attempt's verdict
      const earlier = (await readByIdempotencyKey(db, key)).find((e) => e.type === "WebhookAttemptRecorded");
      if (earlier?.type === "WebhookAttemptRecorded") return isDelivered(earlier.data.status) ? "delivered" : "failed";
      const row = await endpoint(d.endpointId);
      if (!row || row.state !== "enabled") return "gone";
      const payload = await payloadOf(d.messageId);
      const body = JSON.stringify(payload);
      let outcome: AttemptOutcome;
      try {
        const target = await checkWebhookUrl(row.url, { allowPrivate: deps.allowPrivateUrls, lookup: deps.lookup });
        const secrets = signingVersions(
          { secretVersion: row.secret_version, previousSecretExpiresAt: row.previous_secret_expires_at },
          clock(),
        ).map((v) => endpointSecret(deps.secretKey, row.endpoint_id, v));
        // wall time: receivers compare webhook-timestamp with their own clock
        outcome = await sendWebhook(
          target,
          body,
          signedHeaders(secrets, d.messageId, Math.floor(Date.now() / 1000), body),
          deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        );
      } catch (err) {
        if (!(err instanceof Rejection)) throw err;
        outcome = { status: null, latencyMs: 0, excerpt: "", error: `refused before sending: ${err.message}` };
      }
      if (deps.afterSendDelayMs && firstTry) await new Promise((r) => setTimeout(r, deps.afterSendDelayMs));
      await recordOnce(
        webhookDeliveryStream(d.messageId, d.endpointId),
        d,
        {
          type: "WebhookAttemptRecorded",
          data: {
            orgId: d.orgId,
            messageId: d.messageId,
            endpointId: d.endpointId,
            attempt,
            status: outcome.status,
            latencyMs: outcome.latencyMs,
            excerpt: outcome.excerpt,
            error: outcome.error,
          },
        },
        key,
      );
      return isDelivered(outcome.status) ? "delivered" : "failed";
    },

    async end(d: WebhookDeliveryInput, outcome: WebhookDeliveryOutcome): Promise<void> {
      // a delivery this store does not hold (a run of another deployment sharing the Temporal namespace) has nothing to
      // end
      const [known] = await db.query(
        `SELECT 1 AS one FROM proj_webhook_deliveries WHERE message_id = $1 AND endpoint_id = $2`,
        [d.messageId, d.endpointId],
      );
      if (!known) return;
      await recordOnce(
        webhookDeliveryStream(d.messageId, d.endpointId),
        d,
        {
          type: "WebhookDeliveryEnded",
          data: { orgId: d.orgId, messageId: d.messageId, endpointId: d.endpointId, outcome },
        },
        `webhook-end:${d.messageId}:${d.endpointId}:${d.round}`,
      );
      if (outcome === "failed") {
        const row = await endpoint(d.endpointId);
        if (row && row.state === "enabled" && shouldDisable(row.failing_since, clock(), deps.disableAfterMs)) {
          await recordOnce(
            webhookEndpointStream(d.endpointId),
            d,
            {
              type: "WebhookEndpointDisabled",
              data: {
                orgId: d.orgId,
                endpointId: d.endpointId,
                reason: `every attempt failed since ${row.failing_since}`,
              },
            },
            `webhook-disable:${d.endpointId}:${row.failing_since}`,
          );
        }
      }
      if (outcome === "delivered" && deps.onDelivered) await deps.onDelivered(await payloadOf(d.messageId), d.orgId);
    },
  };
}

export type DeliveryAttempts = ReturnType<typeof createDeliveryAttempts>;
