// The webhook delivery workflow on Temporal's time-skipping test server, with stub activities for each branch: the
// default schedule retries over about three days (at least 24 hours) and then ends as failed; a 2xx ends it at once;
// an endpoint gone ends it as cancelled. Its steps run on the delivery queue.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Worker } from "@temporalio/worker";
import type { TestWorkflowEnvironment } from "@temporalio/testing";
import { startTimeSkippingEnv } from "../support/timeSkipping.js";
import { workflowBundle } from "../../src/app/temporalWorker.js";
import { webhookDeliveryWorkflow } from "../../workflows/webhookDelivery.js";
import { parseRetrySchedule } from "../../src/domain/webhooks.js";
import { deliveryTaskQueueOf } from "../../workflows/shared.js";
import type { AttemptVerdict, EndDeliveryInput, WebhookDeliveryInput } from "../../workflows/webhookTypes.js";

const TASK_QUEUE = "webhook-delivery-time-skipping";
/** the schedule the service runs when WEBHOOK_RETRY_SECONDS is unset */
const DEFAULT_SCHEDULE = parseRetrySchedule(undefined);
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await startTimeSkippingEnv();
}, 120_000);

afterAll(async () => {
  await env?.teardown();
});

/**
 * Runs one delivery whose n-th attempt answers `verdicts[n-1]` (then 'failed'); returns the attempts' times and the
 * end.
 */
async function deliver(verdicts: AttemptVerdict[], id: string) {
  const attempts: { attempt: number; at: number }[] = [];
  const ends: EndDeliveryInput[] = [];
  // the workflow on the main queue, its steps on the delivery queue (as every worker process polls both): a step sent
  // to the main queue would find no activity there and never run
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities: {},
  });
  const steps = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: deliveryTaskQueueOf(TASK_QUEUE),
    activities: {
      attemptDelivery: async (input: WebhookDeliveryInput & { attempt: number }): Promise<AttemptVerdict> => {
        attempts.push({ attempt: input.attempt, at: await env.currentTimeMs() });
        return verdicts[input.attempt - 1] ?? "failed";
      },
      endDelivery: async (input: EndDeliveryInput) => void ends.push(input),
    },
  });
  const input: WebhookDeliveryInput = {
    orgId: "org",
    messageId: `msg_${id}`,
    endpointId: "we_x",
    retrySeconds: DEFAULT_SCHEDULE,
    firstAttempt: 1,
    round: 0,
  };
  const outcome = await worker.runUntil(
    steps.runUntil(
      env.client.workflow.execute(webhookDeliveryWorkflow, {
        taskQueue: TASK_QUEUE,
        workflowId: `webhook-test-${id}`,
        args: [input],
      }),
    ),
  );
  return { outcome, attempts, ends };
}

describe("the webhook delivery workflow", () => {
  it("a receiver that never answers 2xx: every wait of the schedule, over at least 24 hours, then failed", async () => {
    const { outcome, attempts, ends } = await deliver([], "down");
    expect(outcome).toBe("failed");
    expect(attempts.map((a) => a.attempt)).toEqual(
      Array.from({ length: DEFAULT_SCHEDULE.length + 1 }, (_, i) => i + 1),
    );
    expect(attempts.at(-1)!.at - attempts[0]!.at).toBeGreaterThanOrEqual(24 * 3600 * 1000);
    expect(ends.map((e) => e.outcome)).toEqual(["failed"]);
  }, 120_000);

  it("a 2xx ends it at once, after the failures before it", async () => {
    const { outcome, attempts, ends } = await deliver(["failed", "failed", "failed", "delivered"], "flaky");
    expect(outcome).toBe("delivered");
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(ends.map((e) => e.outcome)).toEqual(["delivered"]);
  }, 120_000);

  it("an endpoint deleted or disabled meanwhile: cancelled, nothing more sent", async () => {
    const { outcome, attempts, ends } = await deliver(["failed", "gone"], "gone");
    expect(outcome).toBe("cancelled");
    expect(attempts).toHaveLength(2);
    expect(ends.map((e) => e.outcome)).toEqual(["cancelled"]);
  }, 120_000);
});
