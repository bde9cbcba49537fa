// What the webhook delivery workflow, its activities and the use case that starts it agree on; no I/O.
import type { WebhookDeliveryOutcome } from "../src/domain/events.js";
import type { WebhookEventType } from "../src/domain/webhooks.js";

export interface WebhookDeliveryInput {
  orgId: string;
  /** every attempt's webhook-id */
  messageId: string;
  endpointId: string;
  /** the waits between attempts (seconds), fixed when the delivery starts */
  retrySeconds: number[];
  /** the number of this series' first attempt (a redelivery goes on counting from the delivery's last attempt) */
  firstAttempt: number;
  /** 0 for the first series, n for the n-th redelivery: names the end event of the series */
  round: number;
}

/** delivered: a 2xx; failed: anything else (retried); gone: the endpoint was deleted or disabled, nothing sent */
export type AttemptVerdict = "delivered" | "failed" | "gone";

export interface EndDeliveryInput {
  delivery: WebhookDeliveryInput;
  outcome: WebhookDeliveryOutcome;
}

/**
 * One workflow per event and endpoint, its id derived from both: a worker killed mid-attempt has the attempt retried
 * by another worker with the same webhook-id, and starting it twice (a retried publish) starts nothing new.
 */
export const webhookWorkflowId = (messageId: string, endpointId: string, round = 0) =>
  `webhook-${messageId}-${endpointId}${round > 0 ? `-r${round}` : ""}`;

export interface PublishInput {
  orgId: string;
  type: WebhookEventType;
  data: Record<string, unknown>;
  /** names the event: publishing the same source again publishes nothing new */
  source: string;
}

/** The webhook steps workflows run; activities/webhooks.ts implements them. */
export interface WebhookActivities {
  attemptDelivery(input: WebhookDeliveryInput & { attempt: number }): Promise<AttemptVerdict>;
  /** Tells the organization's endpoints that subscribe to `type` (a workflow's step: assisted answers, alert runs). */
  publishWebhookEvent(input: PublishInput): Promise<void>;
  endDelivery(input: EndDeliveryInput): Promise<void>;
}
