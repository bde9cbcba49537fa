import { describe, expect, it } from 'vitest';
import { costForTokens, formatCredits, parseCredits } from '../../src/domain/money.js';
import { assertSearchPayable, chargeLines, decide, type KeyState, type OrgState } from '../../src/domain/organization.js';
import { ASSISTED_SEARCH_ENDPOINT, DEFAULT_LIMITS, usesTrialQuery } from '../../src/domain/events.js';
import { Rejection } from '../../src/domain/rejection.js';
import { decideKey, type KeyCommand } from '../../src/domain/apiKey.js';
import { rejectionCode } from '../support/rejectionCode.js';
import { liveOrg, unlimitedKey } from '../support/orgStates.js';

describe('money', () => {
  it('parses decimal strings into micro-credits and formats them back exactly', () => {
    expect(parseCredits('25.00')).toBe(25_000_000n);
    expect(parseCredits('0.000001')).toBe(1n);
    expect(parseCredits('1.5')).toBe(1_500_000n);
    expect(parseCredits('1.0000001')).toBeNull();
    expect(parseCredits('abc')).toBeNull();
    expect(parseCredits('1e3')).toBeNull();
    expect(formatCredits(25_000_000n)).toBe('25.000000');
    expect(formatCredits(1n)).toBe('0.000001');
    expect(formatCredits(-1_500_000n)).toBe('-1.500000');
    expect(formatCredits(214_000n, 6)).toBe('0.214000');
  });

  it('prices tokens per 1000 and rounds half-up to 6 decimals', () => {
    expect(costForTokens(214, 1_000_000n)).toBe(214_000n); // 214 tokens at 1.00 per 1000
    expect(costForTokens(1, 1n)).toBe(0n); // 0.001 micro rounds down
    expect(costForTokens(1, 500n)).toBe(1n); // 0.5 micro rounds up
    expect(costForTokens(333, 20_000n)).toBe(6_660n);
  });

  it('rounds once per collection, not per row', () => {
    // three rows of 1 token at 0.0015 credits/1000 tokens: per row 0.0000015 -> 2 micros each = 6; per collection 4.5 -> 5
    const lines = chargeLines([1, 1, 1].map((tokens) => ({ collection: 'a', tokens, pricePer1000Micros: 1_500n })));
    expect(lines).toEqual([{ collection: 'a', results: 3, tokens: 3, pricePer1000Micros: '1500', amountMicros: '5' }]);
  });
});

/** A live organization in good standing with an unlimited key (test/support/orgStates.ts): each block changes what it tests. */
const key = unlimitedKey;

describe('organization decider', () => {
  const state = liveOrg;
  const line = (amount: string) => [{ collection: 'scifact', tokens: 100, pricePer1000Micros: '10', amountMicros: amount }];
  const rejected = rejectionCode;

  it('charges a live search the priced amount', () => {
    const [event] = decide({ type: 'ChargeSearch', key, queryId: 'q1', endpoint: '/query', collections: line('1000') }, state);
    expect(event).toMatchObject({ type: 'SearchCharged', data: { amountMicros: '1000', tokens: 100, billingMode: 'live' } });
  });

  it('refuses a charge the balance cannot cover, and a suspended organization', () => {
    expect(rejected(() => decide({ type: 'ChargeSearch', key, queryId: 'q1', endpoint: '/query', collections: line('1001') }, state))).toBe('INSUFFICIENT_CREDITS');
    expect(rejected(() => decide({ type: 'ChargeSearch', key, queryId: 'q1', endpoint: '/query', collections: line('1') }, { ...state, suspended: true }))).toBe('BILLING_SUSPENDED');
  });

  it('holds a key to its spending cap', () => {
    const capped = { ...key, spendingCapMicros: 1_500n, spentMicros: 1_000n };
    expect(rejected(() => decide({ type: 'ChargeSearch', key: capped, queryId: 'q1', endpoint: '/query', collections: line('501') }, { ...state, balanceMicros: 10_000n }))).toBe('API_KEY_BUDGET_EXCEEDED');
    expect(rejected(() => decide({ type: 'ChargeSearch', key: capped, queryId: 'q1', endpoint: '/query', collections: line('500') }, { ...state, balanceMicros: 10_000n }))).toBe('accepted');
  });

  it('says what is left of the cap and what the request would cost, or that the cap is used up', () => {
    // the case: a cap of 0.04 with 0.0308 spent refuses a search that would cost 0.01104
    const capped = { ...key, spendingCapMicros: 40_000n, spentMicros: 30_800n };
    const refusal = (() => {
      try {
        decide({ type: 'ChargeSearch', key: capped, queryId: 'q1', endpoint: '/query', collections: line('11040') }, { ...state, balanceMicros: 10_000_000n });
      } catch (err) {
        return err as Rejection;
      }
      throw new Error('charged');
    })();
    expect(refusal.code).toBe('API_KEY_BUDGET_EXCEEDED');
    expect(refusal.message).toBe("This API key's spending cap of 0.040000 credits has 0.009200 left and this request would cost 0.011040; nothing was charged. Ask for fewer results, or have an owner raise the cap");
    expect(refusal.details).toEqual({ spendingCap: '0.040000', spent: '0.030800', capLeft: '0.009200', requestCost: '0.011040' });
    const spent = { ...key, spendingCapMicros: 40_000n, spentMicros: 40_000n };
    expect(() => assertSearchPayable({ ...state, balanceMicros: 10_000_000n }, spent)).toThrow("This API key's spending cap of 0.040000 credits is used up (0.040000 spent); nothing was charged. An owner can raise the cap");
  });

  it('records trial and exempt searches at zero', () => {
    for (const billingMode of ['trial', 'exempt'] as const) {
      const [event] = decide({ type: 'ChargeSearch', key, queryId: 'q1', endpoint: '/query', collections: line('999999') }, { ...state, billingMode, trialQueries: 5 });
      expect(event).toMatchObject({ type: 'SearchCharged', data: { amountMicros: '0', billingMode } });
    }
  });

  it('unlocks only rows not already unlocked, and nothing when all are', () => {
    const rows = ['r1', 'r2', 'r3'].map((id) => ({ id, collection: 'scifact', tokens: 100, pricePer1000Micros: 2_000n }));
    const [event] = decide({ type: 'UnlockResults', key, queryId: 'q', rows, alreadyUnlocked: new Set(['r2']), workflowId: 'w' }, state);
    expect(event).toMatchObject({ type: 'ResultsUnlocked', data: { resultIds: ['r1', 'r3'], amountMicros: '400', tokens: 200 } });
    expect(decide({ type: 'UnlockResults', key, queryId: 'q', rows, alreadyUnlocked: new Set(['r1', 'r2', 'r3']), workflowId: 'w' }, state)).toEqual([]);
  });

  it('charges a result id once even when the record holds it twice (a record written before merges were deduplicated)', () => {
    const rows = ['r1', 'r1', 'r2'].map((id) => ({ id, collection: 'scifact', tokens: 100, pricePer1000Micros: 2_000n }));
    const [event] = decide({ type: 'UnlockResults', key, queryId: 'q', rows, alreadyUnlocked: new Set(), workflowId: 'w' }, state);
    expect(event).toMatchObject({ type: 'ResultsUnlocked', data: { resultIds: ['r1', 'r2'], amountMicros: '400', tokens: 200 } });
  });
});

describe('organization decider: modes, trial allowance, quota', () => {
  const base: OrgState = { ...liveOrg, balanceMicros: 1_000_000n, limits: { ...DEFAULT_LIMITS, daily: 3, monthly: 10 }, now: new Date('2026-03-31T18:00:00Z'), version: 1 };
  const lines = [{ collection: 'scifact', results: 2, tokens: 100, pricePer1000Micros: '10000', amountMicros: '1000' }];
  const charge = (state: OrgState) => decide({ type: 'ChargeSearch', key, queryId: 'q', endpoint: '/query', collections: lines, resultIds: ['a', 'b'] }, state);
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      if (err instanceof Rejection) return { code: err.code, retryAfter: err.details?.retryAfterSeconds };
      throw err;
    }
    return { code: 'accepted' };
  };

  it('records the rows delivered and the mode; billing off charges nothing and says so', () => {
    expect(charge(base)[0]).toMatchObject({ data: { billingMode: 'live', amountMicros: '1000', resultIds: ['a', 'b'] } });
    expect(charge({ ...base, billingEnabled: false, balanceMicros: 0n })[0]).toMatchObject({ data: { billingMode: 'off', amountMicros: '0' } });
  });

  it('gives a trial organization its allowance free, then refuses with nothing recorded', () => {
    const trial = { ...base, billingMode: 'trial' as const, trialQueries: 2, balanceMicros: 0n };
    expect(charge({ ...trial, trialUsed: 1 })[0]).toMatchObject({ data: { billingMode: 'trial', amountMicros: '0' } });
    expect(refusal(() => charge({ ...trial, trialUsed: 2 })).code).toBe('INSUFFICIENT_CREDITS');
    const rows = [{ id: 'r1', collection: 'scifact', tokens: 10, pricePer1000Micros: 1000n }];
    expect(refusal(() => decide({ type: 'UnlockResults', key, queryId: 'q', rows, alreadyUnlocked: new Set(), workflowId: 'w' }, { ...trial, trialUsed: 2 })).code).toBe('INSUFFICIENT_CREDITS');
    // nothing new to unlock: free whatever the allowance says
    expect(decide({ type: 'UnlockResults', key, queryId: 'q', rows, alreadyUnlocked: new Set(['r1']), workflowId: 'w' }, { ...trial, trialUsed: 2 })).toEqual([]);
  });

  it('uses no trial query for an assisted search that delivered nothing, and needs none left for it', () => {
    const trial = { ...base, billingMode: 'trial' as const, trialQueries: 2, trialUsed: 2, balanceMicros: 0n };
    const assisted = (resultIds: string[]) => decide({ type: 'ChargeSearch', key, queryId: 'q', endpoint: ASSISTED_SEARCH_ENDPOINT, collections: [], resultIds }, trial);
    const [none] = assisted([]);
    expect(none).toMatchObject({ type: 'SearchCharged', data: { billingMode: 'trial', resultIds: [], amountMicros: '0' } });
    expect(usesTrialQuery(none!.data as { billingMode: 'trial'; endpoint: string; resultIds: string[] })).toBe(false);
    expect(refusal(() => assisted(['a'])).code).toBe('INSUFFICIENT_CREDITS');
    expect(usesTrialQuery({ billingMode: 'trial', endpoint: ASSISTED_SEARCH_ENDPOINT, resultIds: ['a'] })).toBe(true);
    // a /query search uses one whatever it found, and an older event without resultIds counts as before
    expect(usesTrialQuery({ billingMode: 'trial', endpoint: '/query', resultIds: [] })).toBe(true);
    expect(usesTrialQuery({ billingMode: 'trial', endpoint: ASSISTED_SEARCH_ENDPOINT })).toBe(true);
    expect(usesTrialQuery({ billingMode: 'live', endpoint: '/query', resultIds: ['a'] })).toBe(false);
  });

  it('refuses past the daily quota until the next UTC midnight and past the monthly quota until the next month', () => {
    expect(refusal(() => charge({ ...base, usage: { dailyUsed: 3, monthlyUsed: 3 } }))).toEqual({ code: 'QUOTA_EXCEEDED', retryAfter: 6 * 3600 });
    expect(refusal(() => charge({ ...base, usage: { dailyUsed: 0, monthlyUsed: 10 } }))).toEqual({ code: 'QUOTA_EXCEEDED', retryAfter: 6 * 3600 });
    const midMonth = { ...base, now: new Date('2026-02-10T00:00:00Z'), usage: { dailyUsed: 0, monthlyUsed: 10 } };
    expect(refusal(() => charge(midMonth))).toEqual({ code: 'QUOTA_EXCEEDED', retryAfter: 19 * 24 * 3600 });
    expect(refusal(() => charge({ ...base, usage: { dailyUsed: 2, monthlyUsed: 9 } })).code).toBe('accepted');
  });

  it('credits and refunds positive amounts only', () => {
    expect(decide({ type: 'AddCredits', amountMicros: 5n, reference: 'top-up' }, base)).toEqual([{ type: 'CreditsAdded', data: { orgId: 'org_1', amountMicros: '5', reference: 'top-up' } }]);
    expect(decide({ type: 'IssueRefund', amountMicros: 5n, reference: 'goodwill', queryId: null, refundableMicros: null }, base)).toEqual([{ type: 'RefundIssued', data: { orgId: 'org_1', amountMicros: '5', reference: 'goodwill', queryId: null } }]);
    for (const amountMicros of [0n, -1n]) {
      expect(refusal(() => decide({ type: 'AddCredits', amountMicros, reference: 'x' }, base)).code).toBe('VALIDATION_ERROR');
      expect(refusal(() => decide({ type: 'IssueRefund', amountMicros, reference: 'x', queryId: null, refundableMicros: null }, base)).code).toBe('VALIDATION_ERROR');
    }
  });

  it('refunds a query at most what it cost less what was refunded for it, and only a query the organization paid for', () => {
    const refund = (amountMicros: bigint, refundableMicros: bigint | null) => decide({ type: 'IssueRefund', amountMicros, reference: 'x', queryId: 'q1', refundableMicros }, base);
    expect(refund(30n, 30n)).toEqual([{ type: 'RefundIssued', data: { orgId: 'org_1', amountMicros: '30', reference: 'x', queryId: 'q1' } }]);
    expect(refusal(() => refund(31n, 30n))).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(refusal(() => refund(1n, 0n))).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(refusal(() => refund(1n, null))).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('changes billing settings and prices as events, and ignores a change that changes nothing', () => {
    const settings = { billingMode: 'exempt' as const, billingEnabled: true, hideBalance: true, trialQueries: 0 };
    expect(decide({ type: 'ChangeBillingSettings', settings }, base)).toEqual([{ type: 'BillingSettingsChanged', data: { orgId: 'org_1', ...settings } }]);
    expect(decide({ type: 'ChangeBillingSettings', settings: { billingMode: 'live', billingEnabled: true, hideBalance: false, trialQueries: 0 } }, base)).toEqual([]);
    expect(decide({ type: 'SetPriceOverride', collection: 'scifact', pricePer1000Micros: 50_000n }, base)).toEqual([{ type: 'PriceOverrideSet', data: { orgId: 'org_1', collection: 'scifact', pricePer1000Micros: '50000' } }]);
    expect(refusal(() => decide({ type: 'SetPriceOverride', collection: 'scifact', pricePer1000Micros: -1n }, base)).code).toBe('VALIDATION_ERROR');
    expect(decide({ type: 'ChangeLimits', limits: { ...base.limits, daily: 9 } }, base)[0]).toMatchObject({ data: { limits: { daily: 9 }, previous: { daily: 3 } } });
  });
});

describe('refusing before the search what the charge would refuse', () => {
  const early = (state: OrgState, k: KeyState = key) => rejectionCode(() => assertSearchPayable(state, k));
  const charged = (state: OrgState, k: KeyState = key) =>
    rejectionCode(() => decide({ type: 'ChargeSearch', key: k, queryId: 'q', endpoint: '/query', collections: [{ collection: 'scifact', tokens: 1, pricePer1000Micros: '1000', amountMicros: '1' }] }, state));

  it('gives the charge\'s own answer for the least a search can cost, in every mode', () => {
    const cases: [string, OrgState, KeyState][] = [
      ['good standing', liveOrg, key],
      ['zero balance', { ...liveOrg, balanceMicros: 0n }, key],
      ['spent cap', liveOrg, { ...key, spendingCapMicros: 500n, spentMicros: 500n }],
      ['suspended', { ...liveOrg, suspended: true }, key],
      ['trial used up', { ...liveOrg, billingMode: 'trial', trialQueries: 2, trialUsed: 2, balanceMicros: 0n }, key],
      ['trial left', { ...liveOrg, billingMode: 'trial', trialQueries: 2, trialUsed: 1, balanceMicros: 0n }, key],
      ['exempt at zero', { ...liveOrg, billingMode: 'exempt', balanceMicros: 0n }, key],
      ['billing off at zero', { ...liveOrg, billingEnabled: false, balanceMicros: 0n }, key],
      ['billing off, trial used up', { ...liveOrg, billingEnabled: false, billingMode: 'trial', trialQueries: 1, trialUsed: 1 }, key],
    ];
    const answers = cases.map(([name, state, k]) => [name, early(state, k)]);
    expect(answers).toEqual(cases.map(([name, state, k]) => [name, charged(state, k)]));
    expect(Object.fromEntries(answers)).toMatchObject({
      'good standing': 'accepted',
      'zero balance': 'INSUFFICIENT_CREDITS',
      'spent cap': 'API_KEY_BUDGET_EXCEEDED',
      suspended: 'BILLING_SUSPENDED',
      'trial used up': 'INSUFFICIENT_CREDITS',
      'exempt at zero': 'accepted',
      'billing off at zero': 'accepted',
      'billing off, trial used up': 'accepted',
    });
  });
});

describe('key decider', () => {
  const create = { type: 'CreateKey', keyId: 'key_2', orgId: 'org_1', organizationFound: true, mode: 'live', keyHash: 'h', keyPrefix: 'sk_live_ab', collections: ['scifact'], spendingCapMicros: 2_000n, name: null } satisfies KeyCommand;
  const code = rejectionCode;

  it('creates a key of an existing organization with the event replay has always read', () => {
    expect(decideKey(create, undefined)).toEqual([
      { type: 'ApiKeyCreated', data: { keyId: 'key_2', orgId: 'org_1', mode: 'live', keyHash: 'h', keyPrefix: 'sk_live_ab', collections: ['scifact'], spendingCapMicros: '2000' } },
    ]);
    expect(decideKey({ ...create, collections: null, spendingCapMicros: null }, undefined)[0]).toMatchObject({ data: { collections: null, spendingCapMicros: null } });
  });

  it('keeps a name, tidied, in the event; a blank name is none; a name with a line break or past 100 characters is refused', () => {
    expect(decideKey({ ...create, name: '  Lab   notebook\tkey ' }, undefined)[0]).toMatchObject({ data: { name: 'Lab notebook key' } });
    expect(decideKey({ ...create, name: '   ' }, undefined)[0]!.data).not.toHaveProperty('name');
    expect(code(() => decideKey({ ...create, name: 'two\nlines' }, undefined))).toBe('VALIDATION_ERROR');
    expect(code(() => decideKey({ ...create, name: 'x'.repeat(101) }, undefined))).toBe('VALIDATION_ERROR');
  });

  it('refuses a key for no organization, a negative cap, and a key id already taken', () => {
    expect(code(() => decideKey({ ...create, organizationFound: false }, undefined))).toBe('NOT_FOUND');
    expect(code(() => decideKey({ ...create, spendingCapMicros: -1n }, undefined))).toBe('VALIDATION_ERROR');
    expect(code(() => decideKey(create, { ...key, keyId: 'key_2' }))).toBe('VALIDATION_ERROR');
  });

  it('revokes a key once: revoking a revoked key changes nothing, an unknown key is not found', () => {
    expect(decideKey({ type: 'RevokeKey', keyId: 'key_1' }, key)).toEqual([{ type: 'ApiKeyRevoked', data: { keyId: 'key_1', orgId: 'org_1' } }]);
    expect(decideKey({ type: 'RevokeKey', keyId: 'key_1' }, { ...key, revoked: true })).toEqual([]);
    expect(code(() => decideKey({ type: 'RevokeKey', keyId: 'key_9' }, undefined))).toBe('NOT_FOUND');
  });
});
