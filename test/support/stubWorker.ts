// A workflow test with stub activities (the samples-typescript workflows-mocks pattern): Temporal's time-skipping test
// server, one worker on the real workflow bundle whose activities are the test's stubs, and the records of what the
// stubs were asked. The workflows' decisions are tested here; their activities are tested over the real stack.
import { afterAll, beforeAll } from "vitest";
import type { TestWorkflowEnvironment } from "@temporalio/testing";
import { DefaultLogger, Runtime, Worker } from "@temporalio/worker";
import { startTimeSkippingEnv } from "./timeSkipping.js";
import { workflowBundle } from "../../src/app/temporalWorker.js";
import { alertBatchTaskQueueOf, deliveryTaskQueueOf } from "../../workflows/shared.js";

export interface StubWorker {
  /** the time-skipping environment: its client skips time while a test awaits a workflow's result */
  env: TestWorkflowEnvironment;
}

/**
 * Starts the environment and a worker on `taskQueue` running `activities` (and, when given, one on its delivery queue
 * running `deliveryActivities` and one on its alerts' queue running `alertActivities`, as every worker process does)
 * before the calling file's tests, and stops them after them; the returned object's `env` is there once the tests
 * run.
 */
export function useStubWorker(
  taskQueue: string,
  activities: object,
  deliveryActivities?: object,
  alertActivities?: object,
): StubWorker {
  const harness = {} as StubWorker;
  const workers: Worker[] = [];
  let running: Promise<unknown> | undefined;
  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger("ERROR") });
    harness.env = await startTimeSkippingEnv();
    const connection = harness.env.nativeConnection;
    workers.push(await Worker.create({ connection, taskQueue, workflowBundle: await workflowBundle(), activities }));
    if (deliveryActivities)
      workers.push(
        await Worker.create({ connection, taskQueue: deliveryTaskQueueOf(taskQueue), activities: deliveryActivities }),
      );
    if (alertActivities)
      workers.push(
        await Worker.create({ connection, taskQueue: alertBatchTaskQueueOf(taskQueue), activities: alertActivities }),
      );
    running = Promise.all(workers.map((w) => w.run()));
  }, 240_000);
  afterAll(async () => {
    for (const w of workers) w.shutdown();
    await running;
    await harness.env?.teardown();
  });
  return harness;
}

/** A stub activity that records each input in `calls`, then answers what `answer` says for the current test. */
export function recorded<I, O>(calls: I[], answer: (input: I) => O): (input: I) => Promise<O> {
  return async (input) => {
    calls.push(input);
    return answer(input);
  };
}

/** Empties every list of a test file's call records, before a test runs its workflow. */
export function clearCalls(calls: Record<string, unknown[]>): void {
  for (const list of Object.values(calls)) list.length = 0;
}
