// Operator money commands on the embedded store: the decider alone decides which amounts a command accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/eventstore/db.js';
import { createAccounts } from '../../src/billing/accounts.js';
import { createOperations, type Operations } from '../../src/admin/operations.js';
import { freshStore } from '../support/stores.js';

let db: Db;
let operations: Operations;

beforeAll(async () => {
  db = await freshStore('pglite');
  operations = createOperations(createAccounts(db));
});

afterAll(async () => {
  await db?.close();
});

const eventCount = async () => Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM events'))[0]!.n);
const refusal = (p: Promise<unknown>) => p.then(() => 'accepted', (err: { code?: string; message?: string }) => `${err.code}: ${err.message}`);

describe('operator credits and refunds', () => {
  it('refuses a zero or negative amount with VALIDATION_ERROR and appends nothing; a positive one moves the balance', async () => {
    const org = await operations.createOrganization({ name: 'Amounts', billingMode: 'live' });
    const before = await eventCount();
    expect(await refusal(operations.addCredits(org.id, '0.00'))).toBe('VALIDATION_ERROR: amount must be greater than zero');
    expect(await refusal(operations.issueRefund(org.id, '0'))).toBe('VALIDATION_ERROR: amount must be greater than zero');
    expect(await refusal(operations.addCredits(org.id, '-1.00'))).toMatch(/^VALIDATION_ERROR: amount must be a non-negative decimal string/);
    expect(await eventCount()).toBe(before);
    expect(await operations.addCredits(org.id, '2.50')).toEqual({ balance: '2.500000' });
    expect(await operations.issueRefund(org.id, '0.000001')).toEqual({ balance: '2.500001' });
  });
});
