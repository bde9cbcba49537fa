// The features' projectors and the tables they write, the list every event store is opened with: each feature keeps
// its projection and its tables beside its use cases, and the store runs this list inline and in replay; migration
// creates the tables in the order listed here (their DDL). The composition root opens its stores with it, as do the
// benchmarks and the tests that open a store by hand or project events in memory.
import type { FeatureProjection } from "../../projections/project.js";
import { projectionReadModels } from "../../projections/readModels.js";
import type { ProjectionTables } from "../../projections/tables.js";
import { projectAccount } from "../usecases/accounts/accountProjection.js";
import {
  BALANCES,
  COLLECTION_USAGE,
  KEY_LAST_USED,
  LEDGER,
  ORGANIZATIONS,
  PRICE_OVERRIDES,
  USAGE,
} from "../usecases/accounts/accountTables.js";
import { projectKey } from "../usecases/accounts/keyProjection.js";
import { API_KEYS } from "../usecases/accounts/keyTables.js";
import { projectAlert } from "../usecases/alerts/alertProjection.js";
import { ALERT_RUNS, ALERTS } from "../usecases/alerts/alertTables.js";
import { projectIngestion } from "../usecases/collections/ingestionProjection.js";
import { INGESTIONS } from "../usecases/collections/ingestionTables.js";
import { projectMember } from "../usecases/members/memberProjection.js";
import { INVITES, MEMBERS, SESSIONS } from "../usecases/members/memberTables.js";
import { projectUnlock } from "../usecases/unlock/unlockProjection.js";
import { UNLOCKS } from "../usecases/unlock/unlockTables.js";
import { projectWebhook } from "../usecases/webhooks/webhookProjection.js";
import {
  NOTIFICATION_SETTINGS,
  WEBHOOK_ATTEMPTS,
  WEBHOOK_DELIVERIES,
  WEBHOOK_ENDPOINTS,
} from "../usecases/webhooks/webhookTables.js";

/** Every projection table, in the order migration creates them (test/projections/tablesDdl holds that DDL). */
const FEATURE_TABLES: ProjectionTables = {
  organizations: ORGANIZATIONS,
  balances: BALANCES,
  ledger: LEDGER,
  api_keys: API_KEYS,
  unlocks: UNLOCKS,
  usage: USAGE,
  collection_usage: COLLECTION_USAGE,
  price_overrides: PRICE_OVERRIDES,
  key_last_used: KEY_LAST_USED,
  members: MEMBERS,
  invites: INVITES,
  sessions: SESSIONS,
  ingestions: INGESTIONS,
  webhook_endpoints: WEBHOOK_ENDPOINTS,
  webhook_deliveries: WEBHOOK_DELIVERIES,
  webhook_attempts: WEBHOOK_ATTEMPTS,
  notification_settings: NOTIFICATION_SETTINGS,
  alerts: ALERTS,
  alert_runs: ALERT_RUNS,
};

export const FEATURE_PROJECTORS: FeatureProjection = {
  accounts: projectAccount,
  unlock: projectUnlock,
  keys: projectKey,
  members: projectMember,
  ingestions: projectIngestion,
  webhooks: projectWebhook,
  alerts: projectAlert,
  tables: FEATURE_TABLES,
};

/** The projection tables as the store's read models: what migrate creates beside the log. */
export const PROJECTION_READ_MODELS = projectionReadModels(FEATURE_TABLES);
