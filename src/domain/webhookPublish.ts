// The port a feature publishes webhook events through (the webhooks use case implements it; alerts call it).
import type { Actor } from "./events.js";
import type { WebhookPayloadType } from "./webhooks.js";

/** Appends a webhook event once by its source and starts its deliveries (`only`: to that endpoint alone). */
export type PublishWebhookEvent = (
  orgId: string,
  type: WebhookPayloadType,
  data: Record<string, unknown>,
  source: string,
  actor: Actor,
  only?: string,
) => Promise<unknown>;

/** An event published with its first attempts sent: `delivered` when an endpoint answered 2xx. */
export interface PublishedNow {
  delivered: boolean;
  /** starts the deliveries whose first attempt failed (the rest of their schedule); idempotent */
  retryLater: () => Promise<void>;
}

/** One event of a batch: what PublishWebhookEvent takes. */
export interface WebhookEventToPublish {
  orgId: string;
  type: WebhookPayloadType;
  data: Record<string, unknown>;
  source: string;
  actor: Actor;
  only?: string;
}

/**
 * Appends webhook events once each by its source and sends each endpoint's first attempt; answers once they are
 * appended, with each event's own settling: what its first attempts proved, or null for an event no enabled endpoint
 * subscribes to.
 */
export type PublishWebhookEventsNow = (events: WebhookEventToPublish[]) => Promise<Promise<PublishedNow | null>[]>;
