// A real worker in its own process for the crash test; it reads the same configuration as src/app/worker.ts.
import { loadConfig } from "../../src/app/config.js";
import { openEventStore } from "../../src/app/composition.js";
import { createAccounts } from "../../src/usecases/accounts/accounts.js";
import { createTemporalWorker } from "../../src/app/temporalWorker.js";

const config = loadConfig({ ...process.env, INGEST_DEMO: "0" });
const db = await openEventStore(config);
const { worker } = await createTemporalWorker({
  address: config.temporalAddress!,
  namespace: config.temporalNamespace,
  taskQueue: process.env.TASK_QUEUE,
  deps: {
    db,
    accounts: createAccounts(db),
    clock: () => new Date(),
    afterChargeDelayMs: config.faultAfterChargeDelayMs,
  },
});
await worker.run();
