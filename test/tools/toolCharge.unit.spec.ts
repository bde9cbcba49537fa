// The money rules of a priced tool call (decide), its projection and its reconciliation fold, without I/O.
import { describe, expect, it } from 'vitest';
import { rejectionCode } from '../support/rejectionCode.js';
import { liveOrg, unlimitedKey } from '../support/orgStates.js';
import { decide, type KeyState, type OrgState } from '../../src/domain/organization.js';
import { DEFAULT_LIMITS, type ProjectableEvent, type StoredEvent } from '../../src/domain/events.js';
import { project, type ProjectionReader } from '../../projections/project.js';
import { foldOrganizationEvents } from '../../src/usecases/operator/reconciliation.js';
import type { BalanceRow, OrganizationRow } from '../../projections/tables.js';

// quotas used up: a tool call is no query, so they must not matter
const org: OrgState = { ...liveOrg, usage: { dailyUsed: DEFAULT_LIMITS.daily, monthlyUsed: DEFAULT_LIMITS.monthly } };
const key = unlimitedKey;
const charge = (priceMicros: bigint, k: KeyState = key) => ({ type: 'ChargeToolCall' as const, key: k, callId: 'tc_1', tool: 'retractions/check', priceMicros });
const codeOf = rejectionCode;

describe('ChargeToolCall', () => {
  it('charges a live organization exactly the price, whatever its query quota says', () => {
    expect(decide(charge(250n), org)).toEqual([
      { type: 'ToolCallCharged', data: { orgId: 'org_1', keyId: 'key_1', callId: 'tc_1', tool: 'retractions/check', billingMode: 'live', amountMicros: '250' } },
    ]);
  });

  it('refuses a price the balance or the key cap cannot cover, and a suspended organization', () => {
    expect(codeOf(() => decide(charge(1_001n), org))).toBe('INSUFFICIENT_CREDITS');
    expect(codeOf(() => decide(charge(1_000n), org))).toBe('accepted');
    expect(codeOf(() => decide(charge(10n, { ...key, spendingCapMicros: 100n, spentMicros: 95n }), org))).toBe('API_KEY_BUDGET_EXCEEDED');
    expect(codeOf(() => decide(charge(10n), { ...org, suspended: true }))).toBe('BILLING_SUSPENDED');
  });

  it('records a trial or exempt call at zero and never spends the trial allowance', () => {
    const trial = { ...org, billingMode: 'trial' as const, trialQueries: 5, trialUsed: 5, balanceMicros: 0n };
    const [event] = decide(charge(250n), trial);
    expect(event).toMatchObject({ type: 'ToolCallCharged', data: { billingMode: 'trial', amountMicros: '0' } });
    expect(decide(charge(250n), { ...org, billingMode: 'exempt', balanceMicros: 0n })[0]).toMatchObject({ data: { amountMicros: '0' } });
  });
});

describe('ToolCallCharged projection and reconciliation', () => {
  const orgRow: OrganizationRow = { org_id: 'org_1', name: 'Lab', billing_mode: 'live', limits: { ...DEFAULT_LIMITS }, hide_balance: false, suspended: false, version: 3, billing_enabled: true, trial_queries: 0, trial_used: 0 };
  const balance: BalanceRow = { org_id: 'org_1', balance_micros: '1000', credited_micros: '1000', charged_micros: '0', refunded_micros: '0' };
  const reader: ProjectionReader = {
    organization: () => orgRow,
    balance: () => balance,
    apiKey: () => undefined,
    usage: () => undefined,
    collectionUsage: () => undefined,
    invite: () => undefined,
    member: () => undefined,
    session: () => undefined,
    ingestion: () => undefined,
  };
  const event: ProjectableEvent = { type: 'ToolCallCharged', data: { orgId: 'org_1', keyId: 'key_1', callId: 'tc_1', tool: 'retractions/check', billingMode: 'live', amountMicros: '250' }, position: 9, streamVersion: 4, recordedAt: '2026-03-14T10:00:00.000Z' };

  it('debits the balance, writes a ledger charge named after the tool, counts money but no query', () => {
    const changes = project(event, reader);
    expect(changes.find((c) => c.table === 'organizations')?.row).toMatchObject({ version: 4 });
    expect(changes.find((c) => c.table === 'balances')?.row).toMatchObject({ balance_micros: '750', charged_micros: '250' });
    expect(changes.find((c) => c.table === 'ledger')?.row).toMatchObject({ type: 'charge', amount_micros: '-250', balance_after_micros: '750', query_id: 'tc_1', reference: 'tool:retractions/check' });
    const usage = changes.filter((c) => c.table === 'usage').map((c) => c.row);
    expect(usage).toHaveLength(2);
    for (const row of usage) expect(row).toMatchObject({ queries: 0, amount_micros: '250' });
    expect(changes.some((c) => c.table === 'collection_usage')).toBe(false);
  });

  it('folds into the charges of the day on the line of no collection', () => {
    const stored = (e: ProjectableEvent): StoredEvent => ({ ...e, streamId: 'org-org_1', metadata: { actor: { kind: 'key', id: 'key_1' } }, prevHash: '', hash: '' });
    const credit = stored({ type: 'CreditsAdded', data: { orgId: 'org_1', amountMicros: '1000', reference: 'r' }, position: 8, streamVersion: 3, recordedAt: '2026-03-14T09:00:00.000Z' });
    const fold = foldOrganizationEvents([credit, stored(event)], { from: null, to: null });
    expect(fold.totals).toEqual({ credits: 1000n, charges: 250n, refunds: 0n });
    expect(fold.closing).toBe(750n);
    expect(fold.lines).toEqual([{ day: '2026-03-14', collection: null, searches: 0, chargesMicros: 250n, unlocksMicros: 0n, unlockedResults: 0, creditsMicros: 1000n, refundsMicros: 0n }]);
  });
});
