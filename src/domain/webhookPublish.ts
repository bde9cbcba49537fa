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
