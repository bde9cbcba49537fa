// A workflow for the time-skipping tests: waits up to 24 hours for an approval signal, then reports which came first.
import { condition, defineSignal, setHandler } from "@temporalio/workflow";

export const approveSignal = defineSignal<[approver: string]>("approve");

export type ApprovalOutcome =
  { outcome: "approved"; approver: string; waitedMs: number } | { outcome: "timedOut"; waitedMs: number };

export const APPROVAL_TIMEOUT = "24 hours";

export async function awaitApproval(): Promise<ApprovalOutcome> {
  let approver: string | undefined;
  setHandler(approveSignal, (name) => {
    approver = name;
  });
  const started = Date.now(); // workflow time: the server's clock, which the test server skips forward
  const approved = await condition(() => approver !== undefined, APPROVAL_TIMEOUT);
  const waitedMs = Date.now() - started;
  return approved && approver !== undefined
    ? { outcome: "approved", approver, waitedMs }
    : { outcome: "timedOut", waitedMs };
}
