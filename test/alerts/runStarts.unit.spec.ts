// The runs an ingestion's commit starts: every active on_ingest alert watching the collection gets one run, named by
// the alert and the ingestion; the starts go 32 at a time instead of one round-trip after another
// (2,000 of them one by one took minutes and outlasted the activity's timeout), a retry's already-started runs are
// skipped, and any other failure to start fails the step (its retry starts the rest).
import { describe, expect, it } from "vitest";
import { WorkflowExecutionAlreadyStartedError } from "@temporalio/client";
import { runAfterIngestion, runQueryId } from "../../src/usecases/alerts/alertRuns.js";
import type { AlertsContext } from "../../src/usecases/alerts/alertsContext.js";

const alertRow = (n: number, over: { collections?: string[]; schedule?: string } = {}) => ({
  alert_id: `al_${String(n).padStart(24, "0")}`,
  org_id: `org-${n % 7}`,
  key_id: `key-${n % 7}`,
  state: "active",
  definition: { query: `query ${n}`, collections: over.collections ?? ["reef-notes"], schedule: "on_ingest" },
});

/** A context whose store holds `rows` and whose Temporal client starts a workflow after `startMs`. */
function contextOf(rows: ReturnType<typeof alertRow>[], startMs: number, fail?: (workflowId: string) => Error) {
  const started: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const ctx = {
    deps: {
      deliveryWaitMs: 1000,
      search: {
        catalog: {
          resolveCollection: (name: string) => (name === "elsewhere" ? { name } : { name: "reef-notes" }),
          physicalMembers: (entry: { name: string }) => [entry],
        },
      },
    },
    taskQueue: "litsearch",
    db: { query: async () => rows },
    client: {
      workflow: {
        start: async (_fn: unknown, opts: { workflowId: string }) => {
          inFlight += 1;
          mostInFlight = Math.max(mostInFlight, inFlight);
          await new Promise((r) => setTimeout(r, startMs));
          inFlight -= 1;
          const failure = fail?.(opts.workflowId);
          if (failure) throw failure;
          started.push(opts.workflowId);
        },
      },
    },
  } as unknown as AlertsContext;
  return { ctx, started, mostInFlight: () => mostInFlight };
}

describe("the runs an ingestion's commit starts", () => {
  it("starts one run per watching alert, many at once but never more than 32", async () => {
    const rows = Array.from({ length: 200 }, (_, n) => alertRow(n));
    rows.push(alertRow(900, { collections: ["elsewhere"] }));
    const { ctx, started, mostInFlight } = contextOf(rows, 5);
    const begun = Date.now();
    const queryIds = await runAfterIngestion(ctx, "reef-notes", "ing-1");
    // one after another 200 starts of 5 ms each would take a second
    expect(Date.now() - begun).toBeLessThan(600);
    expect(mostInFlight()).toBe(32);
    expect(queryIds).toEqual(rows.slice(0, 200).map((r) => runQueryId(r.alert_id, "ingestion:ing-1")));
    expect(new Set(started)).toEqual(new Set(queryIds.map((q) => `alert-run-${q}`)));
    expect(started).toHaveLength(200);
  });

  it("skips the runs a retry finds started already, and fails on any other refusal", async () => {
    const rows = Array.from({ length: 40 }, (_, n) => alertRow(n));
    const already = (id: string) => new WorkflowExecutionAlreadyStartedError("started", id, "alertRunWorkflow");
    const retried = contextOf(rows, 1, (id) => (id.endsWith("0") ? already(id) : (undefined as never)));
    const queryIds = await runAfterIngestion(retried.ctx, "reef-notes", "ing-2");
    expect(queryIds).toHaveLength(40);
    expect(retried.started.length).toBe(40 - queryIds.filter((q) => q.endsWith("0")).length);

    const down = contextOf(rows, 1, () => new Error("temporal frontend unavailable"));
    await expect(runAfterIngestion(down.ctx, "reef-notes", "ing-3")).rejects.toThrow("unavailable");
  });

  it("names each run by its alert and the ingestion, so a second commit's runs are new ones", () => {
    const id = alertRow(1).alert_id;
    expect(runQueryId(id, "ingestion:a")).toBe(runQueryId(id, "ingestion:a"));
    expect(runQueryId(id, "ingestion:a")).not.toBe(runQueryId(id, "ingestion:b"));
    expect(runQueryId(id, "ingestion:a")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
