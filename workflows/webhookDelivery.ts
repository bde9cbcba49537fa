// One webhook delivery: an attempt, then the next after each wait of the schedule, until a 2xx answers, the endpoint
// goes away, or the schedule runs out; then its end is recorded (which may disable an endpoint failing for days, and
// lets a delivered event prove delivery). Deterministic; activities do the I/O.
import { proxyActivities, sleep } from "@temporalio/workflow";
import type { WebhookActivities, WebhookDeliveryInput } from "./webhookTypes.js";
import type { WebhookDeliveryOutcome } from "../src/domain/events.js";

// An attempt records itself idempotently by its number, so a worker killed mid-attempt has it sent again (the same
// webhook-id) and recorded once; what the receiver answers is the activity's result, never a failure to retry. It
// heartbeats, so a dead worker is noticed within seconds.
const { attemptDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: "60 seconds",
  heartbeatTimeout: "5 seconds",
  retry: { initialInterval: "1 second", maximumInterval: "1 minute", backoffCoefficient: 2 },
});

// The end is recorded once by the series; it retries for as long as the store does not answer.
const { endDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: "30 seconds",
  retry: { initialInterval: "1 second", maximumInterval: "1 minute", backoffCoefficient: 2 },
});

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryOutcome> {
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
