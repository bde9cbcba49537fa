// Every workflow the worker registers.
export { unlockWorkflow } from "./unlock.js";
export { assistedSearchWorkflow } from "./assisted.js";
export { ingestionWorkflow } from "./ingestion.js";
export { vectorBackfillWorkflow } from "./vectorBackfill.js";
export { webhookDeliveryWorkflow } from "./webhookDelivery.js";
export { alertRunWorkflow, alertScheduleWorkflow } from "./alertRun.js";
export { alertBatchesWorkflow } from "./alertBatches.js";
