// The steps of one webhook delivery (the workflow in workflows/webhookDelivery.ts runs them): an attempt checks the
// endpoint's URL again (a name may have been rebound to a private address since registration), signs the stored
// payload, sends it to the checked address and records the attempt once by its number; the end of a delivery is
// recorded once, disables an endpoint failing for longer than the configured time, and hands a delivered event to
// whatever waits for proof of its delivery.
import type { Db } from "../../eventstore/db.js";
import { readByIdempotencyKey, readStream } from "../../eventstore/eventStore.js";
import { appendGrouped, runStreamCommand } from "../../../projections/streamCommand.js";
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

/** A delivery's first attempt sent at publish, with the payload it carries. */
interface FirstAttempt {
  delivery: WebhookDeliveryInput;
  payload: WebhookPayload;
}

/** Each attempt is recorded once by its number; each round of a delivery ends once. */
const attemptKey = (d: WebhookDeliveryInput, attempt: number) =>
  `webhook-attempt:${d.messageId}:${d.endpointId}:${attempt}`;
const endKey = (d: WebhookDeliveryInput) => `webhook-end:${d.messageId}:${d.endpointId}:${d.round}`;

/** The status each of these attempts was recorded with (null: no answer), by its key; unrecorded ones are missing. */
async function recordedStatuses(db: Db, keys: string[]): Promise<Map<string, number | null>> {
  const rows = await db.query<{ key: string; status: number | null }>(
    `SELECT idempotency_key AS key, (data->>'status')::int AS status FROM events
      WHERE idempotency_key = ANY($1) AND type = 'WebhookAttemptRecorded'`,
    [keys],
  );
  return new Map(rows.map((r) => [r.key, r.status]));
}

/** The endpoints' rows by id (deleted ones too: the caller decides what a state allows). */
export async function endpointsById(db: Db, ids: string[]): Promise<Map<string, WebhookEndpointRow>> {
  const rows = await db.query(
    `SELECT ${selectList(WEBHOOK_ENDPOINTS)} FROM proj_webhook_endpoints WHERE endpoint_id = ANY($1)`,
    [[...new Set(ids)]],
  );
  return new Map(rows.map((r) => normalizeRow(WEBHOOK_ENDPOINTS, r)).map((r) => [r.endpoint_id, r]));
}

const attemptRecorded = (d: WebhookDeliveryInput, attempt: number, outcome: AttemptOutcome): DomainEvent => ({
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
});

const deliveryEnded = (d: WebhookDeliveryInput, outcome: WebhookDeliveryOutcome): DomainEvent => ({
  type: "WebhookDeliveryEnded",
  data: { orgId: d.orgId, messageId: d.messageId, endpointId: d.endpointId, outcome },
});

async function payloadOf(db: Db, messageId: string): Promise<WebhookPayload> {
  const created = (await readStream(db, webhookMessageStream(messageId))).find((e) => e.type === "WebhookEventCreated");
  if (!created || created.type !== "WebhookEventCreated")
    throw new Error(`webhook event ${messageId} is not in the store`);
  return created.data.payload;
}

/**
 * Checks the endpoint's URL again (a name may have been rebound to a private address since registration), signs the
 * body with its secrets and sends it to the checked address; a refused URL is an attempt that sent nothing.
 */
async function send(
  deps: DeliveryAttemptDeps,
  row: WebhookEndpointRow,
  messageId: string,
  body: string,
): Promise<AttemptOutcome> {
  try {
    const target = await checkWebhookUrl(row.url, { allowPrivate: deps.allowPrivateUrls, lookup: deps.lookup });
    const secrets = signingVersions(
      { secretVersion: row.secret_version, previousSecretExpiresAt: row.previous_secret_expires_at },
      deps.clock(),
    ).map((v) => endpointSecret(deps.secretKey, row.endpoint_id, v));
    // wall time: receivers compare webhook-timestamp with their own clock
    return await sendWebhook(
      target,
      body,
      signedHeaders(secrets, messageId, Math.floor(Date.now() / 1000), body),
      deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
  } catch (err) {
    if (!(err instanceof Rejection)) throw err;
    return { status: null, latencyMs: 0, excerpt: "", error: `refused before sending: ${err.message}` };
  }
}

export function createDeliveryAttempts(deps: DeliveryAttemptDeps) {
  const { db, clock } = deps;

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

  /** The crash tests' pause after the receiver answered, before the attempt is recorded: on a first try alone. */
  const pauseAfterSend = async (firstTry: boolean) => {
    if (deps.afterSendDelayMs && firstTry) await new Promise((r) => setTimeout(r, deps.afterSendDelayMs));
  };

  return {
    /**
     * `firstTry`: the first execution of this attempt (a crash test's pause applies to it alone, so a retry goes
     * through).
     */
    async attempt(d: WebhookDeliveryInput, attempt: number, firstTry = true): Promise<AttemptVerdict> {
      const key = attemptKey(d, attempt);
      // a retried activity whose attempt was recorded (the worker died after the record): that attempt's verdict
      const earlier = (await readByIdempotencyKey(db, key)).find((e) => e.type === "WebhookAttemptRecorded");
      if (earlier?.type === "WebhookAttemptRecorded") return isDelivered(earlier.data.status) ? "delivered" : "failed";
      const row = (await endpointsById(db, [d.endpointId])).get(d.endpointId);
      if (!row || row.state !== "enabled") return "gone";
      const outcome = await send(deps, row, d.messageId, JSON.stringify(await payloadOf(db, d.messageId)));
      await pauseAfterSend(firstTry);
      await recordOnce(webhookDeliveryStream(d.messageId, d.endpointId), d, attemptRecorded(d, attempt, outcome), key);
      return isDelivered(outcome.status) ? "delivered" : "failed";
    },

    /**
     * Many deliveries' first attempts at once (events published with them, webhooks.ts publishWithFirstAttempts):
     * what a retried step recorded already, and the endpoints, are read once for all; each attempt is then sent and
     * recorded as soon as its own receiver answers, in one append with the others recorded meanwhile (appendGrouped),
     * so a receiver that hangs holds no other's record. The same checks, signature and records as `attempt` 1 of
     * each. Each verdict settles on its own.
     */
    async firstAttempts(list: FirstAttempt[], firstTry: boolean): Promise<Promise<AttemptVerdict>[]> {
      if (list.length === 0) return [];
      const recorded = await recordedStatuses(
        db,
        list.map((a) => attemptKey(a.delivery, 1)),
      );
      const rows = await endpointsById(
        db,
        list.map((a) => a.delivery.endpointId),
      );
      return list.map((a) => {
        const verdict = (async ({ delivery: d, payload }: FirstAttempt): Promise<AttemptVerdict> => {
          const key = attemptKey(d, 1);
          if (recorded.has(key)) return isDelivered(recorded.get(key) ?? null) ? "delivered" : "failed";
          const row = rows.get(d.endpointId);
          if (!row || row.state !== "enabled") return "gone";
          const outcome = await send(deps, row, d.messageId, JSON.stringify(payload));
          await pauseAfterSend(firstTry);
          await appendGrouped(db, clock, {
            streamId: webhookDeliveryStream(d.messageId, d.endpointId),
            actor: ACTOR(d),
            events: [attemptRecorded(d, 1, outcome)],
            idempotencyKey: key,
          });
          return isDelivered(outcome.status) ? "delivered" : "failed";
        })(a);
        // the caller awaits each in turn: a failure before it does is not an unhandled one
        verdict.catch(() => undefined);
        return verdict;
      });
    },

    /**
     * The end of a delivery its first attempt settled (delivered, or its endpoint gone), grouped with the ends recorded
     * meanwhile; recorded once, and a delivered one handed to what waits for its proof, as `end` does.
     */
    async endSettled(d: WebhookDeliveryInput, outcome: "delivered" | "cancelled"): Promise<void> {
      await appendGrouped(db, clock, {
        streamId: webhookDeliveryStream(d.messageId, d.endpointId),
        actor: ACTOR(d),
        events: [deliveryEnded(d, outcome)],
        idempotencyKey: endKey(d),
      });
      if (outcome === "delivered" && deps.onDelivered)
        await deps.onDelivered(await payloadOf(db, d.messageId), d.orgId);
    },

    async end(d: WebhookDeliveryInput, outcome: WebhookDeliveryOutcome): Promise<void> {
      // a delivery this store does not hold (a run of another deployment sharing the Temporal namespace) has nothing to
      // end
      const [known] = await db.query(
        `SELECT 1 AS one FROM proj_webhook_deliveries WHERE message_id = $1 AND endpoint_id = $2`,
        [d.messageId, d.endpointId],
      );
      if (!known) return;
      await recordOnce(webhookDeliveryStream(d.messageId, d.endpointId), d, deliveryEnded(d, outcome), endKey(d));
      if (outcome === "failed") {
        const row = (await endpointsById(db, [d.endpointId])).get(d.endpointId);
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
      if (outcome === "delivered" && deps.onDelivered)
        await deps.onDelivered(await payloadOf(db, d.messageId), d.orgId);
    },
  };
}

export type DeliveryAttempts = ReturnType<typeof createDeliveryAttempts>;
