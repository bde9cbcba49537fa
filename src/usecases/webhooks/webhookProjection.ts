// What a webhook's events change: its endpoints, the deliveries of each event to them, every attempt, and an
// organization's notification settings. project() hands these events here; the same handler feeds the inline
// projector and replay.
import type { ProjectableEvent } from "../../domain/events.js";
import { isDelivered } from "../../domain/webhooks.js";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "./webhookTables.js";
import type { Change, ProjectionReader } from "../../../projections/projectionReader.js";

type WebhookEvent = Extract<
  ProjectableEvent,
  {
    type:
      | "WebhookEndpointCreated"
      | "WebhookSecretRotated"
      | "WebhookEndpointDeleted"
      | "WebhookEndpointDisabled"
      | "WebhookEventCreated"
      | "WebhookAttemptRecorded"
      | "WebhookDeliveryEnded"
      | "WebhookRedeliveryRequested"
      | "NotificationSettingsChanged";
  }
>;

function requireEndpoint(read: ProjectionReader, endpointId: string): WebhookEndpointRow {
  const row = read.webhookEndpoint(endpointId);
  if (!row) throw new Error(`projection: no webhook endpoint ${endpointId}`);
  return row;
}

function requireDelivery(read: ProjectionReader, messageId: string, endpointId: string): WebhookDeliveryRow {
  const row = read.webhookDelivery(messageId, endpointId);
  if (!row) throw new Error(`projection: no webhook delivery of ${messageId} to ${endpointId}`);
  return row;
}

export function projectWebhook(e: WebhookEvent, read: ProjectionReader): Change[] {
  switch (e.type) {
    case "WebhookEndpointCreated": {
      const d = e.data;
      return [
        {
          table: "webhook_endpoints",
          row: {
            endpoint_id: d.endpointId,
            org_id: d.orgId,
            url: d.url,
            events: [...d.events],
            description: d.description,
            state: "enabled",
            secret_version: 1,
            previous_secret_expires_at: null,
            created_at: e.recordedAt,
            disabled_at: null,
            disabled_reason: null,
            failing_since: null,
            last_success_at: null,
          },
        },
      ];
    }
    case "WebhookSecretRotated":
      return [
        {
          table: "webhook_endpoints",
          row: Object.assign(requireEndpoint(read, e.data.endpointId), {
            secret_version: e.data.secretVersion,
            previous_secret_expires_at: e.data.previousSecretExpiresAt,
          }),
        },
      ];
    case "WebhookEndpointDeleted":
      return [
        {
          table: "webhook_endpoints",
          row: Object.assign(requireEndpoint(read, e.data.endpointId), { state: "deleted" }),
        },
      ];
    case "WebhookEndpointDisabled":
      return [
        {
          table: "webhook_endpoints",
          row: Object.assign(requireEndpoint(read, e.data.endpointId), {
            state: "disabled",
            disabled_at: e.recordedAt,
            disabled_reason: e.data.reason,
          }),
        },
      ];
    case "WebhookEventCreated": {
      const d = e.data;
      return d.endpointIds.map((endpointId): Change => ({
        table: "webhook_deliveries",
        row: {
          message_id: d.messageId,
          endpoint_id: endpointId,
          org_id: d.orgId,
          event_type: d.eventType,
          created_at: e.recordedAt,
          state: "pending",
          attempts: 0,
          last_status: null,
          last_attempt_at: null,
          ended_at: null,
        },
      }));
    }
    case "WebhookAttemptRecorded": {
      const d = e.data;
      const delivery = requireDelivery(read, d.messageId, d.endpointId);
      const endpoint = requireEndpoint(read, d.endpointId);
      const ok = isDelivered(d.status);
      return [
        {
          table: "webhook_attempts",
          row: {
            position: e.position,
            message_id: d.messageId,
            endpoint_id: d.endpointId,
            org_id: d.orgId,
            attempt: d.attempt,
            time: e.recordedAt,
            status: d.status,
            latency_ms: d.latencyMs,
            excerpt: d.excerpt,
            error: d.error,
          },
        },
        {
          table: "webhook_deliveries",
          row: Object.assign(delivery, {
            attempts: Math.max(delivery.attempts, d.attempt),
            last_status: d.status,
            last_attempt_at: e.recordedAt,
          }),
        },
        {
          table: "webhook_endpoints",
          row: Object.assign(
            endpoint,
            ok
              ? { failing_since: null, last_success_at: e.recordedAt }
              : { failing_since: endpoint.failing_since ?? e.recordedAt },
          ),
        },
      ];
    }
    case "WebhookDeliveryEnded":
      return [
        {
          table: "webhook_deliveries",
          row: Object.assign(requireDelivery(read, e.data.messageId, e.data.endpointId), {
            state: e.data.outcome,
            ended_at: e.recordedAt,
          }),
        },
      ];
    case "WebhookRedeliveryRequested":
      return [
        {
          table: "webhook_deliveries",
          row: Object.assign(requireDelivery(read, e.data.messageId, e.data.endpointId), {
            state: "pending",
            ended_at: null,
          }),
        },
      ];
    case "NotificationSettingsChanged":
      return [
        {
          table: "notification_settings",
          row: { org_id: e.data.orgId, balance_low_micros: e.data.balanceLowThresholdMicros },
        },
      ];
    default: {
      const unknownEvent: never = e;
      throw new Error(`projection: unknown webhook event ${JSON.stringify(unknownEvent)}`);
    }
  }
}
