// Every projection table in memory, a map by primary key, and the projection reader over them: replay folds the log
// into them before it compares with the live tables, and the decider tests' given events run on them (test/support).
import type { ProjectionReader } from "./project.js";
import { tableList, type ProjectionTable, type ProjectionTables, type RowOf } from "./tables.js";

/**
 * Every projection table as a map by primary key: replay's fold, and the decider tests' given events (test/support).
 */
export type MemoryTables = { [T in ProjectionTable]: Map<string, RowOf[T]> };

export const memoryTables = (tables: ProjectionTables): MemoryTables =>
  Object.fromEntries(tableList(tables).map((t) => [t.name, new Map()])) as MemoryTables;

/** The in-memory key of a row: its primary-key values joined (hot in replay, so spelled out per table). */
export function pkOf(table: ProjectionTable, row: object): string {
  const r = row as Record<string, unknown>;
  switch (table) {
    case "organizations":
    case "balances":
      return r.org_id as string;
    case "ledger":
      return String(r.position);
    case "api_keys":
      return r.key_id as string;
    case "unlocks":
      return `${r.query_id}\u0000${r.result_id}`;
    case "usage":
      return `${r.org_id}\u0000${r.period}`;
    case "collection_usage":
      return `${r.org_id}\u0000${r.day}\u0000${r.collection}`;
    case "price_overrides":
      return `${r.org_id}\u0000${r.collection}`;
    case "key_last_used":
      return r.key_id as string;
    case "members":
      return r.member_id as string;
    case "invites":
      return r.invite_id as string;
    case "sessions":
      return r.session_id as string;
    case "ingestions":
      return r.ingestion_id as string;
    case "webhook_endpoints":
      return r.endpoint_id as string;
    case "webhook_deliveries":
      return `${r.message_id}\u0000${r.endpoint_id}`;
    case "webhook_attempts":
      return String(r.position);
    case "notification_settings":
      return r.org_id as string;
    case "alerts":
      return r.alert_id as string;
    case "alert_runs":
      return r.query_id as string;
  }
}

export function memoryReader(m: MemoryTables): ProjectionReader {
  return {
    organization: (orgId) => m.organizations.get(orgId),
    balance: (orgId) => m.balances.get(orgId),
    apiKey: (keyId) => m.api_keys.get(keyId),
    usage: (orgId, period) => m.usage.get(`${orgId}\u0000${period}`),
    collectionUsage: (orgId, day, collection) => m.collection_usage.get(`${orgId}\u0000${day}\u0000${collection}`),
    invite: (inviteId) => m.invites.get(inviteId),
    member: (memberId) => m.members.get(memberId),
    session: (sessionId) => m.sessions.get(sessionId),
    ingestion: (ingestionId) => m.ingestions.get(ingestionId),
    webhookEndpoint: (endpointId) => m.webhook_endpoints.get(endpointId),
    webhookDelivery: (messageId, endpointId) => m.webhook_deliveries.get(`${messageId}\u0000${endpointId}`),
    alert: (alertId) => m.alerts.get(alertId),
    alertRun: (queryId) => m.alert_runs.get(queryId),
  };
}
