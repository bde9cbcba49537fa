// Webhook delivery activities: one signed attempt (checked, sent to the checked address, recorded once by its number),
// and the end of a delivery (recorded once; may disable the endpoint; a delivered event proves delivery).
import { Context } from '@temporalio/activity';
import { asActivity } from './asActivity.js';
import { createDeliveryAttempts, type DeliveryAttemptDeps } from '../src/usecases/webhooks/deliveryAttempts.js';
import type { AttemptVerdict, EndDeliveryInput, WebhookDeliveryInput } from '../workflows/webhookTypes.js';

export type WebhookActivityDeps = DeliveryAttemptDeps;

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const attempts = createDeliveryAttempts(deps);
  return {
    async attemptDelivery(input: WebhookDeliveryInput & { attempt: number }): Promise<AttemptVerdict> {
      // heartbeats while the attempt runs: a worker killed mid-attempt is noticed in seconds, and the attempt sent again
      const beat = setInterval(() => Context.current().heartbeat(), 1000);
      try {
        return await asActivity(() => attempts.attempt(input, input.attempt));
      } finally {
        clearInterval(beat);
      }
    },
    async endDelivery(input: EndDeliveryInput): Promise<void> {
      return asActivity(() => attempts.end(input.delivery, input.outcome));
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
