// What a delivered webhook proves: an `assisted.completed` that reached its receiver delivered that answer, so the
// run keeps its charge; an `alert.matched` delivered that alert run, which is charged then (a 2xx is proof, as a
// re-fetch is).
import type { Client } from "@temporalio/client";
import type { WebhookPayload } from "../../domain/webhooks.js";
import { proveAssistedDelivery } from "../assisted/assistedDelivery.js";
import { proveAlertDelivery } from "../alerts/alertRuns.js";

export function deliveryProofs(client: () => Client) {
  return async (payload: WebhookPayload): Promise<void> => {
    if (payload.type === "assisted.completed" && typeof payload.data.queryId === "string")
      await proveAssistedDelivery(client(), payload.data.queryId);
    if (payload.type === "alert.matched" && typeof payload.data.queryId === "string")
      await proveAlertDelivery(client(), payload.data.queryId);
  };
}
