// Webhook delivery activities: one signed attempt (checked, sent to the checked address, recorded once by its number),
// and the end of a delivery (recorded once; may disable the endpoint; a delivered event proves delivery).
import { Context } from "@temporalio/activity";
import { asActivity, heartbeating } from "./asActivity.js";
import { createDeliveryAttempts, type DeliveryAttemptDeps } from "../src/usecases/webhooks/deliveryAttempts.js";
import type { WebhookEventType } from "../src/domain/webhooks.js";
import type {
  AttemptVerdict,
  EndDeliveryInput,
  PublishInput,
  WebhookActivities,
  WebhookDeliveryInput,
} from "../workflows/webhookTypes.js";

export interface WebhookActivityDeps extends DeliveryAttemptDeps {
  /** appends an event once by its source and starts its deliveries (the webhooks use case's publish) */
  publish: (orgId: string, type: WebhookEventType, data: Record<string, unknown>, source: string) => Promise<unknown>;
}

export function createWebhookActivities(deps: WebhookActivityDeps): WebhookActivities {
  const attempts = createDeliveryAttempts(deps);
  return {
    async attemptDelivery(input: WebhookDeliveryInput & { attempt: number }): Promise<AttemptVerdict> {
      // heartbeats while the attempt runs: a worker killed mid-attempt is noticed in seconds, and the attempt sent
      // again
      const first = Context.current().info.attempt === 1;
      return heartbeating(() => asActivity(() => attempts.attempt(input, input.attempt, first)), 1000);
    },
    async publishWebhookEvent(input: PublishInput): Promise<void> {
      await asActivity(() => deps.publish(input.orgId, input.type, input.data, input.source));
    },
    async endDelivery(input: EndDeliveryInput): Promise<void> {
      return asActivity(() => attempts.end(input.delivery, input.outcome));
    },
  };
}

export type { WebhookActivities };
