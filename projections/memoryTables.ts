// Every projection table in memory, a map by primary key, and the projection reader over them: replay folds the log
// into them before it compares with the live tables, and the decider tests' given events run on them (test/support).
import type { ProjectionReader } from "./project.js";
import {
  rowKey,
  tableList,
  type ProjectionTable,
  type ProjectionTables,
  type RowOf,
  type TableSpec,
} from "./tables.js";

/**
 * Every projection table as a map by primary key: replay's fold, and the decider tests' given events (test/support).
 */
export type MemoryTables = { [T in ProjectionTable]: Map<string, RowOf[T]> };

export const memoryTables = (tables: ProjectionTables): MemoryTables =>
  Object.fromEntries(tableList(tables).map((t) => [t.name, new Map()])) as MemoryTables;

/** Puts a projected row in its table's map, under its primary key (rowKey: the TableSpec's key columns). */
export function putRow(m: MemoryTables, spec: TableSpec, row: object): void {
  (m[spec.name] as Map<string, object>).set(rowKey(spec, row), row);
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
