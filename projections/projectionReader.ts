// What projecting an event reads and returns: the rows it may read, answered synchronously, and the rows it changes.
import type {
  AlertRow,
  AlertRunRow,
  ApiKeyRow,
  BalanceRow,
  CollectionUsageRow,
  IngestionRow,
  InviteRow,
  MemberRow,
  OrganizationRow,
  ProjectionTable,
  RowOf,
  SessionRow,
  UsageRow,
  WebhookDeliveryRow,
  WebhookEndpointRow,
} from "./tables.js";

/**
 * The rows projecting an event may read, answered synchronously: replay holds them in memory and the inline projector
 * fetches them in one query first (every row an event touches is named by the event itself).
 */
export interface ProjectionReader {
  organization(orgId: string): OrganizationRow | undefined;
  balance(orgId: string): BalanceRow | undefined;
  apiKey(keyId: string): ApiKeyRow | undefined;
  usage(orgId: string, period: string): UsageRow | undefined;
  collectionUsage(orgId: string, day: string, collection: string): CollectionUsageRow | undefined;
  invite(inviteId: string): InviteRow | undefined;
  member(memberId: string): MemberRow | undefined;
  session(sessionId: string): SessionRow | undefined;
  ingestion(ingestionId: string): IngestionRow | undefined;
  webhookEndpoint(endpointId: string): WebhookEndpointRow | undefined;
  webhookDelivery(messageId: string, endpointId: string): WebhookDeliveryRow | undefined;
  alert(alertId: string): AlertRow | undefined;
  alertRun(queryId: string): AlertRunRow | undefined;
}

export type Change = { [T in ProjectionTable]: { table: T; row: RowOf[T] } }[ProjectionTable];
