// Builds the Temporal worker that runs the workflows in workflows/ with activities from their factories.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createUnlockActivities, type UnlockActivityDeps } from '../../activities/unlock.js';
import { createAssistedActivities, type AssistedActivityDeps } from '../../activities/assisted.js';
import { TASK_QUEUE } from '../../workflows/shared.js';

// the queue this worker polls; the composition root reads it here (use cases take it from workflows/shared.ts)
export { TASK_QUEUE };

const WORKFLOWS_PATH = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Bundles the workflow code once per process (webpack is slow; several workers in a test share it). */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (m: string) => console.warn(m), error: (m: string) => console.error(m) } });
  return bundle;
}

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue?: string;
  deps: UnlockActivityDeps;
  /** the assisted-search activities' dependencies; without them this worker runs only unlocks */
  assisted?: AssistedActivityDeps;
}

export async function createTemporalWorker(opts: WorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: opts.address });
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue ?? TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities: { ...createUnlockActivities(opts.deps), ...(opts.assisted ? createAssistedActivities(opts.assisted) : {}) },
    // this service runs its work inline on two cores; small slots keep latency predictable
    maxConcurrentActivityTaskExecutions: 20,
    maxConcurrentWorkflowTaskExecutions: 20,
  });
  return { worker, connection };
}
