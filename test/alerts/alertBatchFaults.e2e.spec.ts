// An ingestion's alert runs run in batches on the scaled shape (PostgreSQL, OpenSearch, Temporal, `src/app/worker.ts`
// processes): the batch sends each run's first attempt itself and charges the run its receiver acknowledged. A worker
// killed with SIGKILL after its batch sent the attempt and before it recorded it is replaced by the other worker,
// which retries the batch: the run is not searched again, its event is sent again with the same webhook-id, recorded
// once as a first attempt that answered 200, and charged once; the replay of the log agrees.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCredits } from "../../src/domain/money.js";
import { alertBatchesWorkflowId } from "../../workflows/alertTypes.js";
import { plainCollection, writeCollectionsConfig, writeJsonl } from "../support/operatorContent.js";
import { killed, startScaledService, type ScaledService } from "../support/scaledService.js";
import { httpClient, operatorSteps, sliceDataRoot, untilIngested } from "../support/testService.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver.js";

const kelp = (n: number, title: string) => ({ id: `kelp-${n}`, title, text: `${title}. Kelp forests and urchins.` });
const KNOWN = [kelp(1, "Urchin barrens off Tasmania"), kelp(2, "Sea otters and kelp recovery")];
const NEW = [kelp(3, "Kelp forest recovery after urchin culling"), kelp(4, "Restoring kelp forests with divers")];

describe("an ingestion's batch of alert runs, its worker killed mid-send", () => {
  let scaled: ScaledService | undefined;
  let receiver: WebhookReceiver;
  let dataRoot: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    dataRoot = await sliceDataRoot(10);
    writeJsonl(dataRoot, "kelp-v1.jsonl", KNOWN);
    writeJsonl(dataRoot, "kelp-v2.jsonl", [...KNOWN, ...NEW]);
    scaled = await startScaledService({
      dataRoot,
      opensearch: true,
      collectionsConfig: writeCollectionsConfig([
        plainCollection("kelp", "jsonl", ["kelp-v1.jsonl"], { retrieval: "sparse" }),
      ]),
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: "1" },
      workerEnv: { WEBHOOK_ALLOW_PRIVATE_URLS: "1", EMBEDDING_WORKERS: "1" },
    });
  }, 600_000);

  afterAll(async () => {
    await scaled?.close();
    await receiver?.close();
  });

  it("sends the run's event again with its webhook-id, records one first attempt, charges once", async () => {
    const { svc } = scaled!;
    const call = httpClient(svc.baseUrl);
    const admin = svc.adminToken;
    const ops = operatorSteps(call, admin);
    const org = await ops.newOrg({}, "10.00");
    const { key } = await ops.newKey(org.id);
    const endpoint = (
      await call("POST", "/api/v1/webhooks", { key, body: { url: receiver.url("/kelp"), events: ["alert.matched"] } })
    ).body as { id: string; secret: string };
    const created = await call("POST", "/api/v1/alerts", {
      key,
      body: { query: "kelp forest recovery", collection: "kelp", webhook: endpoint.id },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const alertId = created.body.id as string;

    // two workers that pause 60 s after a receiver answered, before the attempt is recorded
    const pair = [0, 1].map(() => scaled!.spawnWorker({ FAULT_WEBHOOK_AFTER_SEND_DELAY_MS: "60000" }));
    const started = await call("POST", "/admin/v1/collections/kelp/ingest", {
      admin,
      body: { files: ["kelp-v2.jsonl"], mode: "upsert" },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const { ingestionId } = started.body as { ingestionId: string };
    expect(await untilIngested(call, admin, ingestionId)).toMatchObject({ state: "completed", documentsAdded: 2 });
    await receiver.until("/kelp", 1, 300_000);
    const batches = svc.runtime.temporal.client.workflow.getHandle(alertBatchesWorkflowId(ingestionId));
    // the worker holding the batch (its identity is pid@host)
    const holder = String((await batches.describe()).raw.pendingActivities?.[0]?.lastWorkerIdentity ?? "");
    const faulty = pair.find((w) => String(w.pid) === holder.split("@")[0]);
    expect(faulty, holder).toBeDefined();
    await killed(faulty!);
    // the other worker retries the batch (its first try is over: no pause), after the 10 s heartbeat timeout
    expect(await batches.result()).toEqual({ delivered: 1, waiting: 0, empty: 0, skipped: 0 });
    for (const w of pair) await killed(w);

    const alert = (await call("GET", `/api/v1/alerts/${alertId}`, { key })).body;
    expect(alert.runs).toEqual([expect.objectContaining({ status: "delivered", works: 2 })]);
    const { queryId } = alert.runs[0] as { queryId: string };
    const got = receiver.on("/kelp");
    expect(got.length).toBeGreaterThanOrEqual(2);
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(1);
    for (const r of got) {
      const payload = new Webhook(endpoint.secret).verify(r.body, r.headers as Record<string, string>) as {
        type: string;
        data: { alertId: string; queryId: string; works: { title: string }[] };
      };
      expect(payload).toMatchObject({ type: "alert.matched", data: { alertId, queryId } });
      expect(payload.data.works.map((w) => w.title).sort()).toEqual(NEW.map((d) => d.title).sort());
    }
    const events = await svc.runtime.db.query(
      "SELECT 1 FROM events WHERE type = 'WebhookEventCreated' AND data->'payload'->'data'->>'queryId' = $1",
      [queryId],
    );
    expect(events).toHaveLength(1);
    const deliveries = (await call("GET", `/api/v1/webhooks/${endpoint.id}/deliveries`, { key })).body.data;
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].status).toBe("delivered");
    expect(deliveries[0].attempts.map((a: { attempt: number; status: number }) => [a.attempt, a.status])).toEqual([
      [1, 200],
    ]);
    // one charge, tied to the run's queryId, of what the run says it charged
    const ledger = (await call("GET", `/admin/v1/organizations/${org.id}/ledger`, { admin })).body.entries as {
      queryId: string | null;
      amount: string;
    }[];
    const charges = ledger.filter((e) => e.queryId === queryId);
    expect(charges).toHaveLength(1);
    expect(charges[0]!.amount).toBe(`-${alert.runs[0].charged}`);
    expect(parseCredits(alert.runs[0].charged)).toBeGreaterThan(0n);
    const replay = await call("POST", "/admin/v1/replay", { admin });
    expect([replay.status, replay.body.equal]).toEqual([200, true]);
  }, 600_000);
});
