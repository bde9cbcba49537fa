// One run of an alert: search and record the new works (sent as `alert.matched`), then wait for proof of delivery
// (the webhook's 2xx or a re-fetch of the run's queryId); with it the run is charged once, without it nothing is.
// A scheduled alert's workflow starts one such run each time its Temporal Schedule fires. Deterministic; activities do
// the I/O.
import {
  condition,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  uuid4,
  workflowInfo,
} from "@temporalio/workflow";
import {
  alertDeliveredSignal,
  alertRunWorkflowId,
  alertStepRetry,
  type AlertActivities,
  type AlertRunInput,
  type AlertScheduleInput,
} from "./alertTypes.js";
import { BUSINESS_ANSWERS, deliveryTaskQueueOf } from "./shared.js";

const stepOptions = {
  startToCloseTimeout: "5 minutes",
  // the steps beat every 2 s: a worker killed mid-step is noticed within this, not after the 5 minutes
  heartbeatTimeout: "10 seconds",
  retry: alertStepRetry(BUSINESS_ANSWERS),
};
const { startAlertRun } = proxyActivities<AlertActivities>(stepOptions);

/**
 * The run's charge: on the delivery queue (its own slots on every worker), so a delivered run is charged while a storm
 * of other runs' searches fills the main queue; a run started before that queue existed replays on its own queue.
 */
function chargeStep(): AlertActivities["endAlertRun"] {
  const taskQueue = patched("alert-charge-own-queue") ? deliveryTaskQueueOf(workflowInfo().taskQueue) : undefined;
  return proxyActivities<AlertActivities>({ ...stepOptions, taskQueue }).endAlertRun;
}

export async function alertRunWorkflow(input: AlertRunInput): Promise<string> {
  let delivered = false;
  setHandler(alertDeliveredSignal, () => {
    delivered = true;
  });
  const started = await startAlertRun(input);
  if (started.status !== "sent") return started.status;
  const proven = await condition(() => delivered, input.deliveryWaitMs);
  await chargeStep()({ alertId: input.alertId, queryId: input.queryId, delivered: proven });
  return proven ? "delivered" : "failed";
}

/** What a daily or weekly alert's Schedule starts: one run, under its own workflow id, left running on its own. */
export async function alertScheduleWorkflow(input: AlertScheduleInput): Promise<string> {
  const queryId = uuid4();
  await startChild(alertRunWorkflow, {
    workflowId: alertRunWorkflowId(queryId),
    args: [
      {
        alertId: input.alertId,
        queryId,
        trigger: `schedule:${workflowInfo().workflowId}`,
        deliveryWaitMs: input.deliveryWaitMs,
      },
    ],
    parentClosePolicy: ParentClosePolicy.ABANDON,
  });
  return queryId;
}
