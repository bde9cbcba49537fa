// The features' projectors, the list every event store is opened with: each feature keeps its projection beside its
// use cases, and the store runs this list inline and in replay. The composition root opens its stores with it, as do
// the benchmarks and the tests that open a store by hand or project events in memory.
import type { FeatureProjectors } from "../../projections/project.js";
import { projectAccount } from "../usecases/accounts/accountProjection.js";
import { projectKey } from "../usecases/accounts/keyProjection.js";
import { projectAlert } from "../usecases/alerts/alertProjection.js";
import { projectIngestion } from "../usecases/collections/ingestionProjection.js";
import { projectMember } from "../usecases/members/memberProjection.js";
import { projectUnlock } from "../usecases/unlock/unlockProjection.js";
import { projectWebhook } from "../usecases/webhooks/webhookProjection.js";

export const FEATURE_PROJECTORS: FeatureProjectors = {
  accounts: projectAccount,
  unlock: projectUnlock,
  keys: projectKey,
  members: projectMember,
  ingestions: projectIngestion,
  webhooks: projectWebhook,
  alerts: projectAlert,
};
