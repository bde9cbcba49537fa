// The delivery step of assisted search, a saga's compensation: the charge pushes its undo (a refund of exactly that
// charge); the run then waits a bounded time for proof that the answer reached its caller, and without it runs the
// undo.
import { CancellationScope, condition, proxyActivities, setHandler } from "@temporalio/workflow";
import {
  type AssistedActivities,
  deliveredUpdate,
  type AssistedInput,
  type AssistedProgress,
  type ChargeAssistedOutcome,
  type DeliveryState,
} from "./assistedTypes.js";
import { BUSINESS_ANSWERS } from "./shared.js";

// A refund must land: retried with backoff for as long as the store does not answer; a refusal by the rules is final.
const { refundUndelivered } = proxyActivities<AssistedActivities>({
  startToCloseTimeout: "15 seconds",
  retry: {
    initialInterval: "200 milliseconds",
    maximumInterval: "30 seconds",
    nonRetryableErrorTypes: BUSINESS_ANSWERS,
  },
});

interface Compensation {
  what: string;
  undo: () => Promise<void>;
}

/**
 * Accepts proof of delivery while the run waits for it (and again once delivered); a refunded answer stays refunded.
 */
export function acceptDeliveryProof(progress: AssistedProgress): void {
  setHandler(
    deliveredUpdate,
    () => {
      progress.delivery = "delivered";
    },
    {
      validator: () => {
        if (progress.delivery === "refunded")
          throw new Error("refunded: this answer was not delivered in time and its charge was refunded");
        if (progress.delivery !== "awaiting" && progress.delivery !== "delivered")
          throw new Error("this assisted search has no charged answer waiting for delivery");
      },
    },
  );
}

/**
 * After the charge: waits up to `input.deliveryWaitMs` for proof of delivery; without it, refunds the charge. Nothing
 * charged, nothing to wait for. Not cancellable: a cancel after the charge (the HTTP call's bound) must not skip the
 * refund.
 */
export async function awaitDelivery(
  input: AssistedInput,
  charge: ChargeAssistedOutcome,
  progress: AssistedProgress,
): Promise<DeliveryState | "nothing_charged"> {
  const compensations: Compensation[] = [];
  if (BigInt(charge.chargedMicros) > 0n) {
    compensations.unshift({
      what: "refund the undelivered charge",
      undo: () => refundUndelivered({ orgId: input.orgId, queryId: input.queryId, amountMicros: charge.chargedMicros }),
    });
  }
  if (compensations.length === 0 || input.deliveryWaitMs === undefined) return "nothing_charged";
  return CancellationScope.nonCancellable(async () => {
    progress.delivery = "awaiting";
    const delivered = await condition(() => progress.delivery === "delivered", input.deliveryWaitMs!);
    if (delivered) return "delivered";
    // set before the refund runs: from here on a late proof of delivery is refused, so no answer is served refunded
    progress.delivery = "refunded";
    await compensate(compensations);
    return "refunded";
  });
}

/**
 * The undo steps, most recent first. A refund the rules refuse (an operator refunded the query meanwhile) is not
 * retried.
 */
async function compensate(compensations: Compensation[]): Promise<void> {
  for (const c of compensations) {
    try {
      await c.undo();
    } catch {
      // a business refusal (nothing left to refund) is final; the ledger already says what the query was given back
    }
  }
}
