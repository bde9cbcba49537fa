// Assisted search on Temporal's time-skipping test server: the real workflow, activities and use case over a real test
// service (event store, embedded engine, embedding model, built-in reasoner); time moves only when a test skips it.
import pino from "pino";
import { afterAll, beforeAll } from "vitest";
import { Client } from "@temporalio/client";
import type { TestWorkflowEnvironment } from "@temporalio/testing";
import { DefaultLogger, Runtime, Worker } from "@temporalio/worker";
import { startTimeSkippingEnv } from "./timeSkipping.js";
import { httpClient, operatorSteps, startTestService, type TestService } from "./testService.js";
import { openAssistedActivityDeps } from "../../src/app/composition.js";
import { createAssistedActivities } from "../../activities/assisted.js";
import { workflowBundle } from "../../src/app/temporalWorker.js";
import { createAssistedSearch, type AssistedSearch } from "../../src/usecases/assisted/assistedSearch.js";
import type { AuthContext } from "../../src/usecases/auth/context.js";

export interface AssistedTimeSkipping {
  svc: TestService;
  env: TestWorkflowEnvironment;
  /**
   * a plain client: time moves only when the test skips it (the environment's own client skips while awaiting a result)
   */
  client: Client;
  assisted: AssistedSearch;
  /** a new organization with 10.00 credits and a live key, as the use case's caller */
  caller(): Promise<{ auth: AuthContext; orgId: string }>;
  stop(): Promise<void>;
}

export async function startAssistedTimeSkipping(options: {
  taskQueue: string;
  deliveryWaitMs: number;
}): Promise<AssistedTimeSkipping> {
  Runtime.install({ logger: new DefaultLogger("WARN") });
  const svc = await startTestService();
  const env = await startTimeSkippingEnv();
  const r = svc.runtime;
  const deps = await openAssistedActivityDeps(r.config, {
    db: r.db,
    accounts: r.accounts,
    engine: r.engine,
    embedder: r.embedder,
    catalog: r.catalog,
    clock: () => new Date(),
    log: pino({ level: "silent" }),
  });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: options.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createAssistedActivities(deps),
  });
  const running = worker.run();
  const client = new Client({ connection: env.connection, namespace: "default" });
  const assisted = createAssistedSearch({
    client,
    db: r.db,
    accounts: r.accounts,
    clock: () => new Date(),
    catalog: r.catalog,
    search: r.search,
    taskQueue: options.taskQueue,
    waitMs: 60_000,
    deliveryWaitMs: options.deliveryWaitMs,
  });
  return {
    svc,
    env,
    client,
    assisted,
    async caller() {
      const ops = operatorSteps(httpClient(svc.baseUrl), svc.adminToken);
      const org = await ops.newOrg({}, "10.00");
      const created = await ops.newKey(org.id);
      const [o, k] = await Promise.all([r.accounts.getOrganization(org.id), r.accounts.getKey(created.id)]);
      return { auth: { org: o!, key: k!, billingMode: o!.billingMode }, orgId: org.id };
    },
    async stop() {
      worker.shutdown();
      await running;
      await env.teardown();
      await svc.close();
    },
  };
}

/**
 * Registers the harness for the calling test file (started before its tests, stopped after them) and returns it; its
 * fields are there once the file's tests run.
 */
export function useAssistedTimeSkipping(options: { taskQueue: string; deliveryWaitMs: number }): AssistedTimeSkipping {
  const harness = {} as AssistedTimeSkipping;
  beforeAll(async () => {
    Object.assign(harness, await startAssistedTimeSkipping(options));
  }, 600_000);
  afterAll(async () => {
    await harness.stop?.();
  });
  return harness;
}
