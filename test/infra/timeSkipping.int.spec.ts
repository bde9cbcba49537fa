// The time-skipping test environment on the provisioned Java test server: a 24-hour condition times out in well under a
// second of wall time, and a signal after 23 skipped hours resumes the workflow.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { WorkflowHandle } from "@temporalio/client";
import type { TestWorkflowEnvironment } from "@temporalio/testing";
import { DefaultLogger, Runtime, Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTimeSkippingEnv } from "../support/timeSkipping.js";
import { approveSignal, awaitApproval } from "../support/workflows/awaitApproval.js";

const HOUR_MS = 3_600_000;
const TASK_QUEUE = "time-skipping-check";
const WORKFLOWS_PATH = fileURLToPath(new URL("../support/workflows/awaitApproval.ts", import.meta.url));

describe("startTimeSkippingEnv", () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger("WARN") }); // the worker's state changes at INFO are noise here
    const t0 = performance.now();
    env = await startTimeSkippingEnv();
    const serverMs = performance.now() - t0;
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowsPath: WORKFLOWS_PATH,
    });
    running = worker.run();
    console.log(
      `[time skipping] test server up in ${serverMs.toFixed(0)} ms; worker (bundling) ready after ` +
        `${(performance.now() - t0).toFixed(0)} ms`,
    );
  });

  afterAll(async () => {
    if (worker !== undefined) {
      worker.shutdown();
      await running;
    }
    await env?.teardown();
  });

  it("is a time-skipping environment", () => {
    expect(env.supportsTimeSkipping).toBe(true);
  });

  it("lets a 24-hour condition time out in well under a few seconds of wall time", async () => {
    const serverBefore = await env.currentTimeMs();
    const wallStart = performance.now();
    const result = await env.client.workflow.execute(awaitApproval, {
      taskQueue: TASK_QUEUE,
      workflowId: `time-out-${Date.now()}`,
    });
    const wallMs = performance.now() - wallStart;

    expect(result.outcome).toBe("timedOut");
    expect(result.waitedMs).toBeGreaterThanOrEqual(24 * HOUR_MS);
    expect(result.waitedMs).toBeLessThan(25 * HOUR_MS);
    expect((await env.currentTimeMs()) - serverBefore).toBeGreaterThanOrEqual(24 * HOUR_MS);
    expect(wallMs).toBeLessThan(5_000); // about 1 s on a busy 2-core machine; 24 hours of timer skipped
  });

  it("resumes the workflow when the signal arrives after 23 skipped hours", async () => {
    const wallStart = performance.now();
    const handle = await env.client.workflow.start(awaitApproval, {
      taskQueue: TASK_QUEUE,
      workflowId: `approve-${Date.now()}`,
    });
    await timerStarted(handle); // the condition is waiting: skipping now cannot run ahead of the workflow's start
    await env.sleep("23 hours");
    await handle.signal(approveSignal, "editor");
    const result = await handle.result();
    const wallMs = performance.now() - wallStart;

    expect(result).toMatchObject({ outcome: "approved", approver: "editor" });
    expect(result.waitedMs).toBeGreaterThanOrEqual(23 * HOUR_MS);
    expect(result.waitedMs).toBeLessThan(24 * HOUR_MS);
    expect(wallMs).toBeLessThan(5_000); // 23 hours skipped, then a signal: well under a second of work
  });
});

describe("startTimeSkippingEnv without a provisioned server", () => {
  it("fails, naming the missing component and how to provision it", async () => {
    const emptyCache = mkdtempSync(join(tmpdir(), "litsearch-no-test-server-"));
    try {
      await expect(startTimeSkippingEnv(emptyCache)).rejects.toThrow(
        /components manifest not provisioned: file does not exist .*Run npm run provision/,
      );
      // a manifest written by a provision.sh that predates the test server
      writeFileSync(join(emptyCache, "components.json"), JSON.stringify({ temporalCli: "/bin/true" }));
      await expect(startTimeSkippingEnv(emptyCache)).rejects.toThrow(
        /temporalTestServer not provisioned: no "temporalTestServer" entry .*Run npm run provision/,
      );
    } finally {
      rmSync(emptyCache, { recursive: true, force: true });
    }
  });
});

async function timerStarted(handle: WorkflowHandle): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const history = await handle.fetchHistory();
    if (history.events?.some((event) => event.timerStartedEventAttributes != null)) return;
    if (Date.now() > deadline) throw new Error(`workflow ${handle.workflowId} started no timer within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
