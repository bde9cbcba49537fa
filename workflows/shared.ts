// What the workflows, their activities, the worker and the use cases that start runs all agree on: the task queue and
// which failures are business answers. No I/O, safe inside the workflow sandbox.
import { STATUS_OF, type ErrorCode } from "../src/domain/errorCodes.js";

/** The one task queue the worker polls and the use cases start runs on. */
export const TASK_QUEUE = "litsearch";

/**
 * The queue of the short steps that end work already done: a webhook's attempts and its end, an alert run's charge.
 * Every worker process polls it with slots of its own, so a storm of alert runs' searches on the main queue never
 * makes a delivery or a charge wait behind them.
 */
export const deliveryTaskQueueOf = (taskQueue: string) => `${taskQueue}-deliver`;

/**
 * The queue of an ingestion's batches of alert runs: every worker process polls it with a few slots of its own, so a
 * thousand alerts spread over all workers and never take the main queue's slots from unlocks and assisted searches.
 */
export const alertBatchTaskQueueOf = (taskQueue: string) => `${taskQueue}-alerts`;

/**
 * A rejection with a 4xx code of the spec is a business answer: final, never retried. A 5xx (the store unreachable) is
 * a fault the retry policy may outlast. The activities type their failures with the code, the workflows' retry policies
 * list these, and the use cases turn any failure carrying a code back into that Rejection.
 */
export const isBusinessAnswer = (code: ErrorCode): boolean => STATUS_OF[code] < 500;

export const BUSINESS_ANSWERS: ErrorCode[] = (Object.keys(STATUS_OF) as ErrorCode[]).filter(isBusinessAnswer);
