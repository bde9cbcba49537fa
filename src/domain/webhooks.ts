// Webhooks as the Standard Webhooks specification has them: the event types a customer subscribes to, the payload
// shape, the signing secrets (derived per endpoint from the service's master key), the signature, the retry schedule
// and the rule that disables an endpoint that keeps failing. Pure: no I/O.
import { createHmac } from "node:crypto";

/** The event types an endpoint subscribes to. */
export const WEBHOOK_EVENT_TYPES = [
  "assisted.completed",
  "alert.matched",
  "alert.paused",
  "balance.low",
  "key.budget_exhausted",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** what POST /webhooks/{id}/test sends, whatever the endpoint subscribes to */
export const WEBHOOK_TEST_EVENT = "webhook.test";
export type WebhookPayloadType = WebhookEventType | typeof WEBHOOK_TEST_EVENT;

/**
 * Whether an endpoint subscribed to `events` is sent `type`: what it subscribed to, and `alert.paused` to an endpoint
 * that takes `alert.matched` too (the alerts it receives stopped: it is told why).
 */
export function subscribesTo(events: readonly string[], type: WebhookPayloadType): boolean {
  return events.includes(type) || (type === "alert.paused" && events.includes("alert.matched"));
}

export const isWebhookEventType = (t: string): t is WebhookEventType =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(t);

/** The body every delivery carries (Standard Webhooks' recommended shape). */
export interface WebhookPayload {
  type: WebhookPayloadType;
  /** when the event happened (ISO 8601, UTC) */
  timestamp: string;
  data: Record<string, unknown>;
}

/** A payload larger than this is never sent (receivers and proxies commonly refuse more). */
export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;
/** Endpoints one organization may have at once. */
export const MAX_ENDPOINTS_PER_ORG = 16;
/** After a rotation the previous secret still signs (beside the new one) this long, so receivers can switch over. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * An endpoint's signing secret, derived from the master key, the endpoint id and the secret's version: nothing that
 * signs is stored, a rotation is a new version, and the secret can be shown again only by rotating it.
 */
export function endpointSecret(masterKey: string, endpointId: string, version: number): string {
  const bytes = createHmac("sha256", masterKey)
    .update(`litsearch-webhook-secret\u0000${endpointId}\u0000${version}`)
    .digest();
  return `whsec_${bytes.toString("base64")}`;
}

/** `v1,<base64 HMAC-SHA256>` over `id.timestamp.body`, keyed by the base64 part of a `whsec_` secret. */
function signatureOf(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${messageId}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/** The three Standard Webhooks headers of one attempt; several secrets (a rotation's grace) sign side by side. */
export function signedHeaders(
  secrets: string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": secrets.map((s) => signatureOf(s, messageId, timestampSeconds, body)).join(" "),
  };
}

/** The secret versions that sign now: the current one, and the previous one during its grace after a rotation. */
export function signingVersions(
  endpoint: { secretVersion: number; previousSecretExpiresAt: string | null },
  now: Date,
): number[] {
  const grace =
    endpoint.previousSecretExpiresAt !== null && now.getTime() < Date.parse(endpoint.previousSecretExpiresAt);
  return grace && endpoint.secretVersion > 1
    ? [endpoint.secretVersion, endpoint.secretVersion - 1]
    : [endpoint.secretVersion];
}

/** Stripe's schedule, about 3 days: 5 min, 30 min, 2 h, 5 h, 10 h, then every 12 h. */
const DEFAULT_RETRY_SECONDS = [300, 1800, 7200, 18000, 36000, 43200, 43200, 43200, 43200, 43200, 43200];

/** WEBHOOK_RETRY_SECONDS: the waits between attempts, comma-separated seconds; empty: the default. */
export function parseRetrySchedule(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === "") return DEFAULT_RETRY_SECONDS;
  const waits = raw.split(",").map((s) => s.trim());
  if (waits.length > 50 || waits.some((w) => !/^\d+(\.\d+)?$/.test(w) || Number(w) <= 0)) {
    throw new Error(
      "WEBHOOK_RETRY_SECONDS must be at most 50 positive numbers of seconds separated by commas (such as " +
        `300,1800,7200), got ${raw}`,
    );
  }
  return waits.map(Number);
}

/** Whether a status ends a delivery: any 2xx. */
export const isDelivered = (status: number | null) => status !== null && status >= 200 && status < 300;

/**
 * Whether an endpoint failing since `failingSince` (its first failed attempt after its last success) is disabled when
 * a delivery to it fails for good: it has failed for at least `disableAfterMs`.
 */
export function shouldDisable(failingSince: string | null, now: Date, disableAfterMs: number): boolean {
  return failingSince !== null && now.getTime() - Date.parse(failingSince) >= disableAfterMs;
}

/** An endpoint's id: `we_…`. */
export const ENDPOINT_ID_PATTERN = /^we_[A-Za-z0-9]{20,40}$/;

/** The first bytes of a receiver's answer kept with the attempt, as text. */
export const RESPONSE_EXCERPT_CHARS = 512;
