// Faults of assisted search on the real service with PostgreSQL and a separate worker process (src/app/worker.ts): a
// worker killed during the fan-out, or right after its charge commits, or in the middle of sending the asynchronous
// answer's webhook, is replaced and the run finishes with one charge (and one event, resent with its webhook-id), as is
// one killed in the middle of an alert run's delivery; a call that waits past its bound, or finds Temporal unreachable,
// is 503 with nothing charged, ever; a caller
// that hung up before its answer was written is refunded after the delivery wait, one that read it keeps the charge.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  httpClient,
  operatorSteps,
  sliceDataRoot,
  startTestService,
  type TestService,
} from "../support/testService.js";
import { killed, startScaledService, type ScaledService } from "../support/scaledService.js";
import { requireComponent } from "../setup/components.js";
import { startTcpProxy, type TcpProxy } from "../retrieval/tcpProxy.js";
import { parseCredits } from "../../src/domain/money.js";
import { assistedWorkflowId } from "../../src/usecases/assisted/assistedContext.js";
import { progressQuery } from "../../workflows/assistedTypes.js";
import { alertRunWorkflowId } from "../../workflows/alertTypes.js";
import { Webhook } from "standardwebhooks";
import { startWebhookReceiver } from "../support/webhookReceiver.js";

const QUERY = "How does obesity lead to insulin resistance and type 2 diabetes?";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dataRoot: string;
beforeAll(async () => {
  dataRoot = await sliceDataRoot();
}, 120_000);

describe("assisted search with a separate worker that dies", () => {
  let svc: TestService;
  let scaled: ScaledService | undefined;
  const spawnWorker = (faults: Record<string, string> = {}) => scaled!.spawnWorker(faults);
  let call: ReturnType<typeof httpClient>;
  let ops: ReturnType<typeof operatorSteps>;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    // the API process runs no worker: every run is the child processes'
    // the call's bound is not what these tests are about: a loaded machine may take a minute to start a worker and
    // retry the lost step, so the call waits long enough to see the run through
    // a charged answer waits 20 s (not 15 min) for proof that it was delivered
    scaled = await startScaledService({
      dataRoot,
      workerEnv: { WEBHOOK_ALLOW_PRIVATE_URLS: "1" },
      env: { ASSISTED_WAIT_SECONDS: "400", ASSISTED_DELIVERY_WAIT_SECONDS: "20", WEBHOOK_ALLOW_PRIVATE_URLS: "1" },
    });
    svc = scaled.svc;
    call = httpClient(svc.baseUrl);
    ops = operatorSteps(call, svc.adminToken);
  }, 600_000);
  afterAll(async () => {
    await scaled?.close();
  });

  /** Starts the call, waits until the run reaches `phase` on the faulty worker, kills it, starts a healthy one. */
  async function crashAt(phase: "searching" | "charging", faults: Record<string, string>) {
    const org = await ops.newOrg({}, "10.00");
    const { key, id: keyId } = await ops.newKey(org.id);
    const before = parseCredits(await ops.balanceOf(org.id))!;
    const faulty = spawnWorker(faults);
    workers.push(faulty);
    const pending = call("POST", "/api/v1/search/assisted", {
      key,
      body: { collection: "scifact", query: QUERY, allowClarification: false, limit: 3 },
    });
    // find this key's run (other test files run assisted searches on the same Temporal) and wait for the phase
    let queryId: string | undefined;
    for (let i = 0; i < 600 && !queryId; i++) {
      for await (const w of svc.runtime.temporal.client.workflow.list({
        query: `WorkflowType = 'assistedSearchWorkflow' AND ExecutionStatus = 'Running'`,
      })) {
        const p = await svc.runtime.temporal.client.workflow
          .getHandle(w.workflowId)
          .query(progressQuery)
          .catch(() => undefined);
        if (p?.keyId === keyId) queryId = w.workflowId.replace(/^assisted-/, "");
      }
      if (!queryId) await sleep(100);
    }
    expect(queryId).toBeDefined();
    const handle = svc.runtime.temporal.client.workflow.getHandle(assistedWorkflowId(queryId!));
    for (let i = 0; i < 600; i++) {
      const p = await handle.query(progressQuery).catch(() => undefined);
      if (p?.phase === phase) break;
      await sleep(100);
    }
    if (phase === "charging") {
      // the charge commits, then the worker pauses before reporting it: kill it with the charge in the store only
      for (let i = 0; i < 300; i++) {
        const n = await svc.runtime.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM events WHERE type = 'SearchCharged' AND data->>'queryId' = $1`,
          [queryId!],
        );
        if (n[0]!.n > 0) break;
        await sleep(100);
      }
    } else {
      await sleep(300);
    }
    await killed(faulty);
    workers.push(spawnWorker());
    const res = await pending;
    // no worker outlives its test: the next one starts from a faulty worker alone
    for (const w of workers) await killed(w);
    return { res, queryId: queryId!, orgId: org.id, before };
  }

  async function charges(queryId: string) {
    return svc.runtime.db.query<{ amount: string }>(
      `SELECT data->>'amountMicros' AS amount FROM events WHERE type = 'SearchCharged' AND data->>'queryId' = $1`,
      [queryId],
    );
  }

  /**
   * Two workers, both polling, both pausing after the receiver answered the first try of a delivery attempt (before it
   * is recorded): the one that sent it is killed there, the other (already polling) sends it again.
   */
  async function faultyDeliveryPair(): Promise<ChildProcess[]> {
    const pair = [0, 1].map(() => spawnWorker({ FAULT_WEBHOOK_AFTER_SEND_DELAY_MS: "60000" }));
    workers.push(...pair);
    const pids = pair.map((w) => String(w.pid));
    for (let i = 0; i < 1200; i++) {
      const queue = await svc.runtime.temporal.client.workflowService.describeTaskQueue({
        namespace: "default",
        taskQueue: { name: "litsearch" },
        taskQueueType: 2,
      });
      const polling = new Set((queue.pollers ?? []).map((p) => String(p.identity ?? "").split("@")[0]));
      if (pids.every((pid) => polling.has(pid))) break;
      await sleep(250);
    }
    return pair;
  }

  /** The one event about `queryId`: its id (the `webhook-id`), after it was created once. */
  async function eventsAbout(queryId: string) {
    return svc.runtime.db.query<{ id: string }>(
      "SELECT data->>'messageId' AS id FROM events WHERE type = 'WebhookEventCreated' " +
        "AND data->'payload'->'data'->>'queryId' = $1",
      [queryId],
    );
  }

  /** Kills the worker of `pair` that holds the attempt delivering the event about `queryId` to `endpointId`. */
  async function killDeliveryHolder(pair: ChildProcess[], queryId: string, endpointId: string): Promise<void> {
    const [delivery] = await eventsAbout(queryId);
    const description = await svc.runtime.temporal.client.workflow
      .getHandle(`webhook-${delivery!.id}-${endpointId}`)
      .describe();
    // the worker holding the attempt (its identity is pid@host)
    const holder = String(description.raw.pendingActivities?.[0]?.lastWorkerIdentity ?? "").split("@")[0];
    const faulty = pair.find((w) => String(w.pid) === holder);
    expect(faulty).toBeDefined();
    await killed(faulty!);
  }

  /** Every request the receiver got on `path` is one event (one webhook-id), each verifying with the library. */
  function oneEvent(got: { headers: Record<string, unknown>; body: string }[], secret: string, queryId: string) {
    expect(got.length).toBeGreaterThanOrEqual(2);
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(1);
    for (const r of got)
      expect(
        (new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { data: { queryId: string } }).data
          .queryId,
      ).toBe(queryId);
  }

  /** The endpoint's one delivery, delivered at its first attempt (the killed worker's try and the resend are one). */
  async function deliveredOnce(key: string, endpointId: string) {
    const deliveries = (await call("GET", `/api/v1/webhooks/${endpointId}/deliveries`, { key })).body.data;
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].status).toBe("delivered");
    expect(deliveries[0].attempts.map((a: { attempt: number; status: number }) => [a.attempt, a.status])).toEqual([
      [1, 200],
    ]);
  }

  it("a worker killed delivering assisted.completed: the event is sent again, recorded and charged once", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const org = await ops.newOrg({}, "10.00");
      const { key } = await ops.newKey(org.id);
      const endpoint = (
        await call("POST", "/api/v1/webhooks", {
          key,
          body: { url: receiver.url("/crash"), events: ["assisted.completed"] },
        })
      ).body as { id: string; secret: string };
      const pair = await faultyDeliveryPair();
      const started = await call("POST", "/api/v1/search/assisted", {
        key,
        body: { collection: "scifact", query: QUERY, allowClarification: false, limit: 3, async: true },
      });
      expect(started.status).toBe(202);
      const { queryId } = started.body as { queryId: string };
      await receiver.until("/crash", 1, 300_000);
      await killDeliveryHolder(pair, queryId, endpoint.id);
      const outcome = await svc.runtime.temporal.client.workflow.getHandle(assistedWorkflowId(queryId)).result();
      expect(outcome).toMatchObject({ status: "results", delivery: "delivered" });
      for (const w of workers) await killed(w);
      oneEvent(receiver.on("/crash"), endpoint.secret, queryId);
      expect(await eventsAbout(queryId)).toHaveLength(1);
      await deliveredOnce(key, endpoint.id);
      expect((await charges(queryId)).length).toBe(1);
      const refunds = await svc.runtime.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE type = 'RefundIssued' AND data->>'queryId' = $1`,
        [queryId],
      );
      expect(refunds[0]!.n).toBe(0);
      const replay = await call("POST", "/admin/v1/replay", { admin: svc.adminToken });
      expect(replay.body.equal).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 600_000);

  it("a worker killed mid-delivery of an alert run: one alert.matched (the same webhook-id), one charge", async () => {
    const receiver = await startWebhookReceiver();
    const admin = svc.adminToken;
    try {
      // the alert watches a meta-collection; a member added later brings works the alert has not seen
      const meta = (members: string[]) =>
        call("PUT", "/admin/v1/meta-collections/alert-crash", {
          admin,
          body: { displayName: "Alert crash", description: null, members },
        });
      expect((await meta(["openalex-open-access", "clinical-digest"])).status).toBe(201);
      const org = await ops.newOrg({}, "10.00");
      const { key } = await ops.newKey(org.id);
      const endpoint = (
        await call("POST", "/api/v1/webhooks", {
          key,
          body: { url: receiver.url("/alert-crash"), events: ["alert.matched"] },
        })
      ).body as { id: string; secret: string };
      const created = await call("POST", "/api/v1/alerts", {
        key,
        body: {
          query: QUERY,
          collection: "alert-crash",
          schedule: "daily",
          webhook: endpoint.id,
          max_cost_per_run: "1.00",
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const alertId = created.body.id as string;
      expect((await meta(["openalex-open-access", "clinical-digest", "scifact"])).status).toBe(200);
      // the workers start after the change: their catalogue has the new member
      const pair = await faultyDeliveryPair();
      await svc.runtime.temporal.client.schedule.getHandle(`alert-schedule-${alertId}`).trigger();
      await receiver.until("/alert-crash", 1, 300_000);
      const [run] = (await call("GET", `/api/v1/alerts/${alertId}`, { key })).body.runs as { queryId: string }[];
      const { queryId } = run!;
      await killDeliveryHolder(pair, queryId, endpoint.id);
      const result = await svc.runtime.temporal.client.workflow.getHandle(alertRunWorkflowId(queryId)).result();
      expect(result).toBe("delivered");
      for (const w of workers) await killed(w);

      const got = receiver.on("/alert-crash");
      oneEvent(got, endpoint.secret, queryId);
      const payload = new Webhook(endpoint.secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>) as {
        type: string;
        data: { alertId: string; works: unknown[] };
      };
      expect(payload).toMatchObject({ type: "alert.matched", data: { alertId } });
      expect(payload.data.works.length).toBeGreaterThan(0);
      expect(await eventsAbout(queryId)).toHaveLength(1);
      await deliveredOnce(key, endpoint.id);
      const alert = (await call("GET", `/api/v1/alerts/${alertId}`, { key })).body;
      expect(alert.runs).toEqual([
        expect.objectContaining({ queryId, status: "delivered", works: payload.data.works.length }),
      ]);
      // one charge, tied to the run's queryId in the ledger, of what the run says it charged
      const rows = await charges(queryId);
      expect(rows).toHaveLength(1);
      expect(BigInt(rows[0]!.amount)).toBe(parseCredits(alert.runs[0].charged));
      const ledger = (await call("GET", `/admin/v1/organizations/${org.id}/ledger`, { admin })).body.entries as {
        queryId: string | null;
      }[];
      expect(ledger.filter((e) => e.queryId === queryId)).toHaveLength(1);
      expect((await call("DELETE", `/api/v1/alerts/${alertId}`, { key })).status).toBe(200);
      const replay = await call("POST", "/admin/v1/replay", { admin });
      expect(replay.body.equal).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 600_000);

  it("a worker killed during the fan-out: the run finishes on another worker and charges once", async () => {
    const { res, queryId, orgId, before } = await crashAt("searching", { FAULT_FAN_OUT_DELAY_MS: "4000" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.queryId).toBe(queryId);
    expect(res.body.status).toBe("results");
    const rows = await charges(queryId);
    expect(rows).toHaveLength(1);
    expect(before - parseCredits(await ops.balanceOf(orgId))!).toBe(BigInt(rows[0]!.amount));
    expect(parseCredits(res.headers.get("x-query-cost")!)).toBe(BigInt(rows[0]!.amount));
  }, 480_000);

  it("a worker killed just after its charge committed: the replacement reports it, charges no more", async () => {
    const { res, queryId, orgId, before } = await crashAt("charging", { FAULT_AFTER_CHARGE_DELAY_MS: "20000" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = await charges(queryId);
    expect(rows).toHaveLength(1);
    expect(before - parseCredits(await ops.balanceOf(orgId))!).toBe(BigInt(rows[0]!.amount));
    expect(parseCredits(res.headers.get("x-query-cost")!)).toBe(BigInt(rows[0]!.amount));
    expect(res.body.billing.chargedResults).toBe(res.body.results.length);
    // the replay of the whole log agrees with the projections
    const replay = await call("POST", "/admin/v1/replay", { admin: svc.adminToken });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
  }, 480_000);

  it("a caller gone after the charge is refunded after the wait; one that read its answer pays", async () => {
    // the worker pauses 2 s after each charge commits, before the run reports it: the window in which a caller hangs up
    const worker = spawnWorker({ FAULT_AFTER_CHARGE_DELAY_MS: "2000" });
    workers.push(worker);
    const org = await ops.newOrg({}, "10.00");
    const { key } = await ops.newKey(org.id);
    const hangingUp = new AbortController();
    const body = JSON.stringify({ collection: "scifact", query: QUERY, allowClarification: false, limit: 3 });
    const request = (signal?: AbortSignal) =>
      fetch(`${svc.baseUrl}/api/v1/search/assisted`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body,
        signal,
      });
    const lost = request(hangingUp.signal).catch((err: unknown) => err);
    // the first call's charge commits: its caller hangs up before the answer is written
    let lostQueryId: string | undefined;
    for (let i = 0; i < 3000 && !lostQueryId; i++) {
      const rows = await svc.runtime.db.query<{ q: string }>(
        `SELECT data->>'queryId' AS q FROM events WHERE type = 'SearchCharged' AND data->>'orgId' = $1`,
        [org.id],
      );
      lostQueryId = rows[0]?.q;
      if (!lostQueryId) await sleep(20);
    }
    expect(lostQueryId).toBeDefined();
    hangingUp.abort();
    expect(await lost).toBeInstanceOf(Error);
    // the second call reads its answer in full
    const read = await request();
    const readBody = (await read.json()) as { queryId: string };
    expect(read.status, JSON.stringify(readBody)).toBe(200);
    expect(readBody.queryId).not.toBe(lostQueryId);
    const [lostCharge] = await charges(lostQueryId!);
    const [readCharge] = await charges(readBody.queryId);
    // past the 20 s wait: the lost answer's charge came back, exactly, and nothing else moved
    await sleep(30_000);
    const refunds = await svc.runtime.db.query<{ q: string; amount: string }>(
      `SELECT data->>'queryId' AS q, data->>'amountMicros' AS amount FROM events WHERE type = 'RefundIssued' ` +
        `AND data->>'orgId' = $1`,
      [org.id],
    );
    expect(refunds).toEqual([{ q: lostQueryId, amount: lostCharge!.amount }]);
    expect(parseCredits(await ops.balanceOf(org.id))).toBe(10_000_000n - BigInt(readCharge!.amount));
    const gone = await call("GET", `/api/v1/search/results/${lostQueryId}`, { key });
    expect([gone.status, gone.body.error?.code]).toEqual([410, "CACHED_RESULT_EXPIRED"]);
    expect((await call("GET", `/api/v1/search/results/${readBody.queryId}`, { key })).status).toBe(200);
    const replay = await call("POST", "/admin/v1/replay", { admin: svc.adminToken });
    expect([replay.status, replay.body.equal]).toEqual([200, true]);
    const verify = await call("GET", "/admin/v1/verify", { admin: svc.adminToken });
    expect([verify.status, verify.body.ok]).toEqual([200, true]);
    await killed(worker);
  }, 480_000);
});

describe("assisted search when the run cannot finish in time or Temporal is unreachable", () => {
  let svc: TestService;
  let proxy: TcpProxy;
  let call: ReturnType<typeof httpClient>;
  let ops: ReturnType<typeof operatorSteps>;

  beforeAll(async () => {
    proxy = await startTcpProxy(`http://${requireComponent("temporalAddress")}`);
    // each search step pauses 3 s and the call waits 2 s at most
    svc = await startTestService({
      dataRoot,
      env: { TEMPORAL_ADDRESS: new URL(proxy.url).host, ASSISTED_WAIT_SECONDS: "2", FAULT_FAN_OUT_DELAY_MS: "3000" },
    });
    call = httpClient(svc.baseUrl);
    ops = operatorSteps(call, svc.adminToken);
  }, 600_000);
  afterAll(async () => {
    await svc?.close();
    await proxy?.stop();
  });

  it("past its bound the call is 503, and the run never charges afterwards", async () => {
    const org = await ops.newOrg({}, "10.00");
    const { key } = await ops.newKey(org.id);
    const res = await call("POST", "/api/v1/search/assisted", {
      key,
      body: { collection: "scifact", query: QUERY, allowClarification: false },
    });
    expect([res.status, res.body.error.code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
    expect(res.body.error.message).toContain("nothing was charged");
    // long enough for the run to have reached its charge had it gone on
    await sleep(8000);
    expect(await ops.balanceOf(org.id)).toBe("10.000000");
    const charged = await svc.runtime.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE type = 'SearchCharged' AND data->>'orgId' = $1`,
      [org.id],
    );
    expect(charged[0]!.n).toBe(0);
  }, 120_000);

  it("Temporal unreachable: 503 in the envelope, nothing charged", async () => {
    const org = await ops.newOrg({}, "10.00");
    const { key } = await ops.newKey(org.id);
    await proxy.stop();
    try {
      const res = await call("POST", "/api/v1/search/assisted", {
        key,
        body: { collection: "scifact", query: QUERY, allowClarification: false },
      });
      expect([res.status, res.body.error.code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
    } finally {
      await proxy.start();
    }
    expect(await ops.balanceOf(org.id)).toBe("10.000000");
  }, 120_000);
});
