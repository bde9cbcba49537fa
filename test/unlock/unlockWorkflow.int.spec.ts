// The unlock use case and its workflow on a real Temporal dev server and a real PostgreSQL server.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, Connection } from "@temporalio/client";
import type { Worker } from "@temporalio/worker";
import { createAccounts, type Accounts } from "../../src/usecases/accounts/accounts.js";
import type { Db } from "../../src/eventstore/db.js";
import { DEFAULT_LIMITS, type Actor } from "../../src/domain/events.js";
import { PAYLOAD_VERSION, saveQueryRecord } from "../../src/usecases/search/queryCache.js";
import type { CachedRow } from "../../src/domain/resultRow.js";
import { createTemporalWorker } from "../../src/app/temporalWorker.js";
import { createUnlock, type UnlockResult } from "../../src/usecases/unlock/unlock.js";
import type { AuthContext } from "../../src/usecases/auth/context.js";
import { Rejection } from "../../src/domain/rejection.js";
import { replayProjections } from "../../projections/replay.js";
import { requireComponent } from "../setup/components.js";
import { createPostgresDatabase } from "../support/stores.js";
import { openPostgres } from "../../src/eventstore/db.js";
import { migrate } from "../../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../../src/app/projectors.js";
import { REPO_ROOT } from "../../src/app/config.js";

const operator: Actor = { kind: "operator", id: "test" };

function rows(prefix: string, n: number): CachedRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    collection: "scifact",
    physical: "scifact",
    text: `full text of ${prefix} ${i}`,
    teaser: `teaser ${i}...`,
    metadata: { chunk_index: 0, doc_id: `${prefix}-doc-${i}` },
    relevance: 0.5,
    tokens: 100 + i,
    costMicros: String((100 + i) * 10),
    pricePer1000Micros: "10000",
    figureCount: 0,
  }));
}

async function countEvents(db: Db, type: string, queryId: string): Promise<number> {
  const r = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM events WHERE type = $1 AND data->>'queryId' = $2`,
    [type, queryId],
  );
  return Number(r[0]!.n);
}

describe("unlock workflow", () => {
  let db: Db;
  let dbUrl: string;
  let accounts: Accounts;
  let client: Client;
  let connection: Connection;
  let address: string;
  let taskQueue: string;
  let worker: { worker: Worker; running: Promise<void>; close: () => Promise<void> } | undefined;
  let orgId: string;
  let keyId: string;

  async function startWorker() {
    const created = await createTemporalWorker({
      address,
      namespace: "default",
      taskQueue,
      deps: { db, accounts, clock: () => new Date() },
    });
    const running = created.worker.run();
    return {
      worker: created.worker,
      running,
      close: async () => {
        created.worker.shutdown();
        await running;
        await created.connection.close();
      },
    };
  }

  async function preview(queryId: string, n: number, prefix = queryId, owner = { orgId, keyId }) {
    await saveQueryRecord(db, {
      queryId,
      orgId: owner.orgId,
      keyId: owner.keyId,
      kind: "preview",
      payloadVersion: PAYLOAD_VERSION,
      createdAt: new Date(),
      payload: { query: "q", collections: ["scifact"], rows: rows(prefix, n) },
    });
  }

  /** The caller as the HTTP layer would hand it to the use case, read from the real projections. */
  async function authOf(org: string, key: string): Promise<AuthContext> {
    return { org: (await accounts.getOrganization(org))!, key: (await accounts.getKey(key))!, billingMode: "live" };
  }

  const unlockUseCase = () => createUnlock({ client, db, accounts, clock: () => new Date(), taskQueue });
  const unlockedIn = (result: UnlockResult) => result.rows.filter((r) => result.unlocked.has(r.id)).map((r) => r.id);

  beforeAll(async () => {
    address = requireComponent("temporalAddress");
    dbUrl = await createPostgresDatabase();
    db = await openPostgres(dbUrl, FEATURE_PROJECTORS, 20);
    await migrate(db, PROJECTION_READ_MODELS);
    accounts = createAccounts(db);
    const org = await accounts.createOrganization(
      { name: "Unlockers", billingMode: "live", limits: { ...DEFAULT_LIMITS, perMinute: 1000 } },
      operator,
    );
    orgId = org.id;
    keyId = (await accounts.createKey(orgId, { mode: "live", collections: null, spendingCapMicros: null }, operator))
      .id;
    await accounts.addCredits(orgId, 100_000_000n, "top-up", operator);
    connection = await Connection.connect({ address });
    client = new Client({ connection, namespace: "default" });
    taskQueue = `unlock-test-${Date.now()}`;
    worker = await startWorker();
  });

  afterAll(async () => {
    await worker?.close();
    await connection?.close();
    await db?.close();
  });

  it("charges once for 20 identical concurrent unlock calls; only the call starting the run reports it", async () => {
    await preview("q-concurrent", 5);
    const unlock = unlockUseCase();
    const auth = await authOf(orgId, keyId);
    const before = (await accounts.getOrganization(orgId))!.balanceMicros;
    const ids = ["q-concurrent-0", "q-concurrent-2", "q-concurrent-4"];
    const results = await Promise.all(
      Array.from({ length: 20 }, () => unlock.unlock(auth, { queryId: "q-concurrent", resultIds: ids, figures: null })),
    );
    const expected = BigInt(Math.round(((100 + 102 + 104) * 10_000) / 1000));
    expect(await countEvents(db, "ResultsUnlocked", "q-concurrent")).toBe(1);
    expect(before - (await accounts.getOrganization(orgId))!.balanceMicros).toBe(expected);
    expect(results.every((r) => unlockedIn(r).join() === ids.join())).toBe(true);
    // the responses add up to the bill: one call paid, the others joined its run and report zero
    expect(results.reduce((s, r) => s + r.costChargedMicros, 0n)).toBe(expected);
    expect(
      results
        .filter((r) => r.costChargedMicros !== 0n)
        .map((r) => [r.costChargedMicros, r.billing.costMicros, r.billing.tokens]),
    ).toEqual([[expected, expected, 306]]);
    expect(
      results
        .filter((r) => r.costChargedMicros === 0n)
        .every((r) => r.billing.tokens === 0 && r.billing.costMicros === 0n),
    ).toBe(true);
    // every call, the joiners too, reports the balance after the one charge
    expect(new Set(results.map((r) => r.billing.balanceMicros))).toEqual(new Set([before - expected]));
    // unlocking again is free and charges nothing
    const again = await unlock.unlock(auth, { queryId: "q-concurrent", resultIds: ids, figures: null });
    expect(again.costChargedMicros).toBe(0n);
    expect(await countEvents(db, "ResultsUnlocked", "q-concurrent")).toBe(1);
    // the rest of the preview is charged only for the rows not yet unlocked
    const rest = await unlock.unlock(auth, {
      queryId: "q-concurrent",
      resultIds: ["q-concurrent-0", "q-concurrent-1", "q-concurrent-3"],
      figures: null,
    });
    expect(rest.billing.tokens).toBe(101 + 103);
    expect(rest.costChargedMicros).toBe(BigInt(Math.round(((101 + 103) * 10_000) / 1000)));
    expect(rest.costToUnlockRemainingMicros).toBe(0n);
  });

  it("charges the same result ids again under a different preview", async () => {
    await preview("q-a", 2, "shared");
    await preview("q-b", 2, "shared");
    const unlock = unlockUseCase();
    const auth = await authOf(orgId, keyId);
    const a = await unlock.unlock(auth, { queryId: "q-a", resultIds: ["shared-0", "shared-1"], figures: null });
    const b = await unlock.unlock(auth, { queryId: "q-b", resultIds: ["shared-0", "shared-1"], figures: null });
    expect(a.costChargedMicros).toBe(2010n);
    expect(b.costChargedMicros).toBe(2010n);
  });

  it("leaves nothing unlocked and nothing charged when the balance cannot cover the rows", async () => {
    const poor = await accounts.createOrganization(
      { name: "Poor", billingMode: "live", limits: DEFAULT_LIMITS },
      operator,
    );
    const poorKey = (
      await accounts.createKey(poor.id, { mode: "live", collections: null, spendingCapMicros: null }, operator)
    ).id;
    await accounts.addCredits(poor.id, 1_000n, "small", operator);
    await preview("q-poor", 3, "poor", { orgId: poor.id, keyId: poorKey });
    const unlock = unlockUseCase();
    await expect(
      unlock.unlock(await authOf(poor.id, poorKey), {
        queryId: "q-poor",
        resultIds: ["poor-0", "poor-1"],
        figures: null,
      }),
    ).rejects.toSatisfy((e) => e instanceof Rejection && e.code === "INSUFFICIENT_CREDITS");
    expect((await accounts.unlockedIds("q-poor")).size).toBe(0);
    expect((await accounts.getOrganization(poor.id))!.balanceMicros).toBe(1_000n);
  });

  it("refuses ids outside the preview, another key's preview and a sandbox key before any workflow runs", async () => {
    await preview("q-refused", 2);
    const unlock = unlockUseCase();
    const auth = await authOf(orgId, keyId);
    const otherKey = (
      await accounts.createKey(orgId, { mode: "live", collections: null, spendingCapMicros: null }, operator)
    ).id;
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => "resolved",
        (e) => (e instanceof Rejection ? e.code : String(e)),
      );
    expect(
      await codeOf(unlock.unlock(auth, { queryId: "q-refused", resultIds: ["q-refused-0", "nope"], figures: null })),
    ).toBe("VALIDATION_ERROR");
    expect(await codeOf(unlock.unlock(await authOf(orgId, otherKey), { queryId: "q-refused", figures: null }))).toBe(
      "NOT_FOUND",
    );
    // a sandbox key's unlock is free and runs no workflow: nothing reaches the event log
    expect(
      await codeOf(unlock.unlock({ ...auth, billingMode: "sandbox" }, { queryId: "q-refused", figures: null })),
    ).toBe("resolved");
    expect(await countEvents(db, "ResultsUnlocked", "q-refused")).toBe(0);
  });

  it("completes after the worker dies between the charge committing and its recording: one charge", async () => {
    await preview("q-crash", 3);
    await worker!.close();
    worker = undefined;
    // a worker in its own process, told to pause right after the charge commits, so it can be killed with the charge
    // in the store but not yet in the run's history: the replay runs the charge again
    const child = spawnWorker(dbUrl, address, taskQueue, 20_000);
    try {
      const unlock = unlockUseCase();
      const auth = await authOf(orgId, keyId);
      const before = (await accounts.getOrganization(orgId))!.balanceMicros;
      const request = { queryId: "q-crash", resultIds: ["q-crash-0", "q-crash-1"], figures: null };
      const starter = unlock.unlock(auth, request);
      await waitFor(async () => (await countEvents(db, "ResultsUnlocked", "q-crash")) === 1, 60_000);
      // an identical call joins the run, which stays open until a worker finishes it (either way it must report zero)
      const joiner = unlock.unlock(auth, request);
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      worker = await startWorker();
      const [first, second] = await Promise.all([starter, joiner]);
      expect(await countEvents(db, "ResultsUnlocked", "q-crash")).toBe(1);
      const charged = await db.query<{ amount: string }>(
        `SELECT data->>'amountMicros' AS amount FROM events WHERE type = 'ResultsUnlocked' AND ` +
          `data->>'queryId' = 'q-crash'`,
      );
      // the replayed run reports what the killed worker charged, not zero, to the call that started it
      expect(first.costChargedMicros).toBe(BigInt(charged[0]!.amount));
      expect(second.costChargedMicros).toBe(0n);
      expect(before - (await accounts.getOrganization(orgId))!.balanceMicros).toBe(first.costChargedMicros);
      for (const r of [first, second]) expect(unlockedIn(r)).toEqual(["q-crash-0", "q-crash-1"]);
      expect((await accounts.unlockedIds("q-crash")).size).toBe(2);
      expect((await replayProjections(db)).equal).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 120_000);
});

function spawnWorker(
  databaseUrl: string,
  temporalAddress: string,
  taskQueue: string,
  afterChargeDelayMs: number,
): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "test/unlock/workerProcess.ts"], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TASK_QUEUE: taskQueue,
      FAULT_AFTER_CHARGE_DELAY_MS: String(afterChargeDelayMs),
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  return child;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("condition not met in time");
}
