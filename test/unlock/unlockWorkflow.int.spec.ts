// The unlock transaction on a real Temporal dev server and a real PostgreSQL server.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { createAccounts, type Accounts } from '../../src/billing/accounts.js';
import type { Db } from '../../src/eventstore/db.js';
import { DEFAULT_LIMITS, type Actor } from '../../src/domain/events.js';
import { PAYLOAD_VERSION, saveQueryRecord, type CachedRow } from '../../src/search/queryCache.js';
import { createTemporalWorker } from '../../src/temporal/worker.js';
import { createUnlockService } from '../../src/unlock/unlockService.js';
import { Rejection } from '../../src/domain/rejection.js';
import { replayProjections } from '../../projections/replay.js';
import { requireComponent } from '../setup/components.js';
import { createPostgresDatabase, freshStore } from '../support/stores.js';
import { openPostgres } from '../../src/eventstore/db.js';
import { migrate } from '../../src/eventstore/schema.js';
import { REPO_ROOT } from '../../src/config.js';

const operator: Actor = { kind: 'operator', id: 'test' };

function rows(prefix: string, n: number): CachedRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    collection: 'scifact',
    physical: 'scifact',
    text: `full text of ${prefix} ${i}`,
    teaser: `teaser ${i}...`,
    metadata: { chunk_index: 0, doc_id: `${prefix}-doc-${i}` },
    relevance: 0.5,
    tokens: 100 + i,
    costMicros: String((100 + i) * 10),
    pricePer1000Micros: '10000',
    figureCount: 0,
  }));
}

async function countEvents(db: Db, type: string, queryId: string): Promise<number> {
  const r = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM events WHERE type = $1 AND data->>'queryId' = $2`, [type, queryId]);
  return Number(r[0]!.n);
}

describe('unlock workflow', () => {
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

  async function startWorker(releaseDelayMs?: number) {
    const created = await createTemporalWorker({ address, namespace: 'default', taskQueue, deps: { db, accounts, clock: () => new Date(), releaseDelayMs } });
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

  async function preview(queryId: string, n: number, prefix = queryId) {
    await saveQueryRecord(db, { queryId, orgId, keyId, kind: 'preview', payloadVersion: PAYLOAD_VERSION, createdAt: new Date(), payload: { query: 'q', collections: ['scifact'], rows: rows(prefix, n) } });
  }

  beforeAll(async () => {
    address = requireComponent('temporalAddress');
    dbUrl = await createPostgresDatabase();
    db = await openPostgres(dbUrl, 20);
    await migrate(db);
    accounts = createAccounts(db);
    const org = await accounts.createOrganization({ name: 'Unlockers', billingMode: 'live', limits: { ...DEFAULT_LIMITS, perMinute: 1000 } }, operator);
    orgId = org.id;
    keyId = (await accounts.createKey(orgId, { mode: 'live', collections: null, spendingCapMicros: null }, operator)).id;
    await accounts.addCredits(orgId, 100_000_000n, 'top-up', operator);
    connection = await Connection.connect({ address });
    client = new Client({ connection, namespace: 'default' });
    taskQueue = `unlock-test-${Date.now()}`;
    worker = await startWorker();
  });

  afterAll(async () => {
    await worker?.close();
    await connection?.close();
    await db?.close();
  });

  it('charges exactly once for 20 identical unlock calls sent concurrently', async () => {
    await preview('q-concurrent', 5);
    const service = createUnlockService(client, taskQueue);
    const before = (await accounts.getOrganization(orgId))!.balanceMicros;
    const ids = ['q-concurrent-0', 'q-concurrent-2', 'q-concurrent-4'];
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => service.unlock({ orgId, keyId, queryId: 'q-concurrent', requestedIds: ids })));
    const expected = BigInt(Math.round(((100 + 102 + 104) * 10_000) / 1000));
    expect(await countEvents(db, 'ResultsUnlocked', 'q-concurrent')).toBe(1);
    expect(before - (await accounts.getOrganization(orgId))!.balanceMicros).toBe(expected);
    expect(outcomes.every((o) => o.released.length === 3)).toBe(true);
    expect(outcomes.reduce((s, o) => s + BigInt(o.chargedMicros), 0n)).toBe(expected * 20n); // all joined the one run that charged
    // unlocking again is free and charges nothing
    const again = await service.unlock({ orgId, keyId, queryId: 'q-concurrent', requestedIds: ids });
    expect(again.chargedMicros).toBe('0');
    expect(await countEvents(db, 'ResultsUnlocked', 'q-concurrent')).toBe(1);
    // the rest of the preview is charged only for the rows not yet unlocked
    const rest = await service.unlock({ orgId, keyId, queryId: 'q-concurrent', requestedIds: ['q-concurrent-0', 'q-concurrent-1', 'q-concurrent-3'] });
    expect(rest.newlyUnlocked.sort()).toEqual(['q-concurrent-1', 'q-concurrent-3']);
    expect(rest.chargedMicros).toBe(String(Math.round(((101 + 103) * 10_000) / 1000)));
  });

  it('charges the same result ids again under a different preview', async () => {
    await preview('q-a', 2, 'shared');
    await preview('q-b', 2, 'shared');
    const service = createUnlockService(client, taskQueue);
    const a = await service.unlock({ orgId, keyId, queryId: 'q-a', requestedIds: ['shared-0', 'shared-1'] });
    const b = await service.unlock({ orgId, keyId, queryId: 'q-b', requestedIds: ['shared-0', 'shared-1'] });
    expect(a.chargedMicros).toBe('2010');
    expect(b.chargedMicros).toBe('2010');
  });

  it('leaves nothing unlocked and nothing charged when the balance cannot cover the rows', async () => {
    const poor = await accounts.createOrganization({ name: 'Poor', billingMode: 'live', limits: DEFAULT_LIMITS }, operator);
    const poorKey = (await accounts.createKey(poor.id, { mode: 'live', collections: null, spendingCapMicros: null }, operator)).id;
    await accounts.addCredits(poor.id, 1_000n, 'small', operator);
    await saveQueryRecord(db, { queryId: 'q-poor', orgId: poor.id, keyId: poorKey, kind: 'preview', payloadVersion: PAYLOAD_VERSION, createdAt: new Date(), payload: { query: 'q', collections: ['scifact'], rows: rows('poor', 3) } });
    const service = createUnlockService(client, taskQueue);
    await expect(service.unlock({ orgId: poor.id, keyId: poorKey, queryId: 'q-poor', requestedIds: ['poor-0', 'poor-1'] })).rejects.toSatisfy((e) => e instanceof Rejection && e.code === 'INSUFFICIENT_CREDITS');
    expect((await accounts.unlockedIds('q-poor')).size).toBe(0);
    expect((await accounts.getOrganization(poor.id))!.balanceMicros).toBe(1_000n);
  });

  it('completes after the worker is killed between charge and release: one charge, rows released', async () => {
    await preview('q-crash', 3);
    await worker!.close();
    worker = undefined;
    // a worker in its own process, told to pause before release, so it can be killed right after the charge commits
    const child = spawnWorker(dbUrl, address, taskQueue, 20_000);
    try {
      const handleStart = client.workflow.start('unlockWorkflow', { taskQueue, workflowId: `crash-${Date.now()}`, args: [{ orgId, keyId, queryId: 'q-crash', requestedIds: ['q-crash-0', 'q-crash-1'] }] });
      const handle = await handleStart;
      await waitFor(async () => (await countEvents(db, 'ResultsUnlocked', 'q-crash')) === 1, 60_000);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      worker = await startWorker();
      const outcome = (await handle.result()) as { released: { id: string }[]; chargedMicros: string };
      expect(outcome.released.map((r) => r.id).sort()).toEqual(['q-crash-0', 'q-crash-1']);
      expect(await countEvents(db, 'ResultsUnlocked', 'q-crash')).toBe(1);
      // the restarted run reports what the killed one charged, not zero
      const charged = await db.query<{ amount: string }>(`SELECT data->>'amountMicros' AS amount FROM events WHERE type = 'ResultsUnlocked' AND data->>'queryId' = 'q-crash'`);
      expect(outcome.chargedMicros).toBe(charged[0]!.amount);
      expect((await accounts.unlockedIds('q-crash')).size).toBe(2);
      expect((await replayProjections(db)).equal).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});

function spawnWorker(databaseUrl: string, temporalAddress: string, taskQueue: string, releaseDelayMs: number): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/unlock/workerProcess.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress, TASK_QUEUE: taskQueue, FAULT_RELEASE_DELAY_MS: String(releaseDelayMs) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}
