// One webhook delivery: an attempt, then the next after each wait of the schedule, until a 2xx answers, the endpoint
// goes away, or the schedule runs out; then its end is recorded (which may disable an endpoint failing for days, and
// lets a delivered event prove delivery). Deterministic; activities do the I/O.
import { patched, proxyActivities, sleep, workflowInfo } from "@temporalio/workflow";
import type { WebhookActivities, WebhookDeliveryInput } from "./webhookTypes.js";
import type { WebhookDeliveryOutcome } from "../src/domain/events.js";
import { deliveryTaskQueueOf } from "./shared.js";

// An attempt records itself idempotently by its number, so a worker killed mid-attempt has it sent again (the same
// webhook-id) and recorded once; what the receiver answers is the activity's result, never a failure to retry. It
// heartbeats, so a dead worker is noticed within seconds.
const attemptOptions = {
  startToCloseTimeout: "60 seconds",
  heartbeatTimeout: "5 seconds",
  retry: { initialInterval: "1 second", maximumInterval: "1 minute", backoffCoefficient: 2 },
} as const;
// The end is recorded once by the series; it retries for as long as the store does not answer.
const endOptions = {
  startToCloseTimeout: "30 seconds",
  retry: { initialInterval: "1 second", maximumInterval: "1 minute", backoffCoefficient: 2 },
} as const;

/**
 * The delivery's steps: on the delivery queue (its own slots on every worker, never behind a storm of alert runs'
 * searches); a delivery started before that queue existed replays on the workflow's own queue.
 */
function deliverySteps(): Pick<WebhookActivities, "attemptDelivery" | "endDelivery"> {
  const taskQueue = patched("deliveries-own-queue") ? deliveryTaskQueueOf(workflowInfo().taskQueue) : undefined;
  const { attemptDelivery } = proxyActivities<WebhookActivities>({ ...attemptOptions, taskQueue });
  const { endDelivery } = proxyActivities<WebhookActivities>({ ...endOptions, taskQueue });
  return { attemptDelivery, endDelivery };
}

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryOutcome> {
  const { attemptDelivery, endDelivery } = deliverySteps();
  let outcome: WebhookDeliveryOutcome = "failed";
  for (let i = 0; ; i++) {
    const verdict = await attemptDelivery({ ...input, attempt: input.firstAttempt + i });
    if (verdict === "delivered" || verdict === "gone") {
      outcome = verdict === "delivered" ? "delivered" : "cancelled";
      break;
    }
    const wait = input.retrySeconds[i];
    if (wait === undefined) break;
    await sleep(wait * 1000);
  }
  await endDelivery({ delivery: input, outcome });
  return outcome;
}
