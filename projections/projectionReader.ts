// What projecting an event reads and returns: the rows it may read, answered synchronously, and the rows it changes.
import type { ProjectionTable, RowOf } from "./tables.js";

/**
 * The rows projecting an event may read, answered synchronously: replay holds them in memory and the inline projector
 * fetches them in one query first (every row an event touches is named by the event itself).
 */
export interface ProjectionReader {
  organization(orgId: string): RowOf["organizations"] | undefined;
  balance(orgId: string): RowOf["balances"] | undefined;
  apiKey(keyId: string): RowOf["api_keys"] | undefined;
  usage(orgId: string, period: string): RowOf["usage"] | undefined;
  collectionUsage(orgId: string, day: string, collection: string): RowOf["collection_usage"] | undefined;
  invite(inviteId: string): RowOf["invites"] | undefined;
  member(memberId: string): RowOf["members"] | undefined;
  session(sessionId: string): RowOf["sessions"] | undefined;
  ingestion(ingestionId: string): RowOf["ingestions"] | undefined;
  webhookEndpoint(endpointId: string): RowOf["webhook_endpoints"] | undefined;
  webhookDelivery(messageId: string, endpointId: string): RowOf["webhook_deliveries"] | undefined;
  alert(alertId: string): RowOf["alerts"] | undefined;
  alertRun(queryId: string): RowOf["alert_runs"] | undefined;
}

export type Change = { [T in ProjectionTable]: { table: T; row: RowOf[T] } }[ProjectionTable];
