// The features' projectors, handed to the projection registry (projections/project.ts) once: each feature keeps its
// projection beside its use cases, and the inline projector and replay run what is installed here: the composition
// root installs them where it opens an event store, as do the benchmarks that open one by hand and the test setup.
import { installProjectors, type FeatureProjectors } from "../../projections/project.js";
import { projectKey } from "../usecases/accounts/keyProjection.js";
import { projectAlert } from "../usecases/alerts/alertProjection.js";
import { projectIngestion } from "../usecases/collections/ingestionProjection.js";
import { projectMember } from "../usecases/members/memberProjection.js";
import { projectWebhook } from "../usecases/webhooks/webhookProjection.js";

export const FEATURE_PROJECTORS: FeatureProjectors = {
  keys: projectKey,
  members: projectMember,
  ingestions: projectIngestion,
  webhooks: projectWebhook,
  alerts: projectAlert,
};

export function installFeatureProjectors(): void {
  installProjectors(FEATURE_PROJECTORS);
}
