// The projection registry, written once: every projectable event has one home, the feature whose events it is, and
// project() hands it to that feature's projector, with an exhaustive check that no event goes unhandled. The handlers
// sit beside their features' use cases: the accounts' money, usage, prices and organizations
// (src/usecases/accounts/accountProjection.ts, with the money helpers of moneyProjection.ts), unlocks
// (src/usecases/unlock/unlockProjection.ts), keys (src/usecases/accounts/keyProjection.ts), members, invites and
// sessions (src/usecases/members/memberProjection.ts), ingestions (src/usecases/collections/ingestionProjection.ts),
// webhooks (src/usecases/webhooks/webhookProjection.ts) and alerts (src/usecases/alerts/alertProjection.ts), each with
// the tables it writes beside it (*Tables.ts, declared into tables.ts's RowOf). This registry knows them only by the
// events each one takes (FeatureProjectors): the event store is opened with them and their tables (FeatureProjection;
// src/app/projectors.ts lists both for the composition root, benchmarks and tests), and the inline projector and
// replay run the store's (Db.projectors). What they read and return: projectionReader.ts.
// The same function feeds the inline projector (SQL, in the append transaction) and replay (memory, then bulk).
// Handlers update the rows their reader hands out in place and return them as the changes: both readers give the
// projector rows it owns, and replay folds millions of events, where a copy per change is most of the cost.
import type { ProjectableEvent } from "../src/domain/events.js";
import type { Change, ProjectionReader } from "./projectionReader.js";
import type { ProjectionTables } from "./tables.js";

export type { Change, ProjectionReader } from "./projectionReader.js";

type EventsOf<T extends ProjectableEvent["type"]> = Extract<ProjectableEvent, { type: T }>;
type FeatureProjector<T extends ProjectableEvent["type"]> = (e: EventsOf<T>, read: ProjectionReader) => Change[];

/** The features' own projectors, by the events each one takes (every event has one home: project's switch). */
interface FeatureProjectors {
  accounts: FeatureProjector<
    | "OrganizationCreated"
    | "CreditsAdded"
    | "RefundIssued"
    | "SearchCharged"
    | "ToolCallCharged"
    | "LimitsChanged"
    | "BillingSettingsChanged"
    | "PriceOverrideSet"
    | "BillingSuspended"
    | "BillingResumed"
    | "CatalogueAnswered"
    | "WorksFacetsCounted"
    | "JournalRequested"
  >;
  unlock: FeatureProjector<"ResultsUnlocked">;
  keys: FeatureProjector<"ApiKeyCreated" | "ApiKeyRevoked" | "ApiKeySpendingCapChanged">;
  members: FeatureProjector<
    "MemberInvited" | "InviteAccepted" | "MemberRemoved" | "InviteCancelled" | "SessionStarted" | "SessionEnded"
  >;
  ingestions: FeatureProjector<"IngestionStarted" | "IngestionCompleted" | "IngestionFailed">;
  webhooks: FeatureProjector<
    | "WebhookEndpointCreated"
    | "WebhookSecretRotated"
    | "WebhookEndpointDeleted"
    | "WebhookEndpointDisabled"
    | "WebhookEventCreated"
    | "WebhookAttemptRecorded"
    | "WebhookDeliveryEnded"
    | "WebhookRedeliveryRequested"
    | "NotificationSettingsChanged"
  >;
  alerts: FeatureProjector<
    "AlertCreated" | "AlertPaused" | "AlertResumed" | "AlertDeleted" | "AlertRunStarted" | "AlertRunEnded"
  >;
}

/** What a store is opened with: the features' projectors and every table they write (src/app/projectors.ts). */
export interface FeatureProjection extends FeatureProjectors {
  tables: ProjectionTables;
}

// The store carries what it was opened with as this type (src/eventstore/db.ts's StoreProjectors).
declare module "../src/eventstore/db.js" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface StoreProjectors extends FeatureProjection {}
}

/** What one event changes, through the feature projectors given (a store's: Db.projectors). */
export function project(f: FeatureProjectors, e: ProjectableEvent, read: ProjectionReader): Change[] {
  switch (e.type) {
    case "OrganizationCreated":
    case "CreditsAdded":
    case "RefundIssued":
    case "SearchCharged":
    case "ToolCallCharged":
    case "LimitsChanged":
    case "BillingSettingsChanged":
    case "PriceOverrideSet":
    case "BillingSuspended":
    case "BillingResumed":
    case "CatalogueAnswered":
    case "WorksFacetsCounted":
    case "JournalRequested":
      return f.accounts(e, read);
    case "ResultsUnlocked":
      return f.unlock(e, read);
    case "ApiKeyCreated":
    case "ApiKeyRevoked":
    case "ApiKeySpendingCapChanged":
      return f.keys(e, read);
    case "MemberInvited":
    case "InviteAccepted":
    case "MemberRemoved":
    case "InviteCancelled":
    case "SessionStarted":
    case "SessionEnded":
      return f.members(e, read);
    case "IngestionStarted":
    case "IngestionCompleted":
    case "IngestionFailed":
      return f.ingestions(e, read);
    case "WebhookEndpointCreated":
    case "WebhookSecretRotated":
    case "WebhookEndpointDeleted":
    case "WebhookEndpointDisabled":
    case "WebhookEventCreated":
    case "WebhookAttemptRecorded":
    case "WebhookDeliveryEnded":
    case "WebhookRedeliveryRequested":
    case "NotificationSettingsChanged":
      return f.webhooks(e, read);
    case "AlertCreated":
    case "AlertPaused":
    case "AlertResumed":
    case "AlertDeleted":
    case "AlertRunStarted":
    case "AlertRunEnded":
      return f.alerts(e, read);
    case "RetractionsLoaded":
      // the list in force is read from the retractions stream itself (src/ingest/liveRetractions.ts)
      return [];
    case "CollectionDefined":
    case "CollectionChanged":
    case "CollectionRetired":
    case "MetaCollectionDefined":
    case "MetaCollectionRetired":
      // no table: the catalogue in force is read from its stream (src/usecases/collections/catalogueInForce.ts)
      return [];
    default: {
      const unknownEvent: never = e;
      throw new Error(`projection: unknown event ${JSON.stringify(unknownEvent)}`);
    }
  }
}
