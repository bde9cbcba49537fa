// Decider fixtures: a live organization in good standing and an unlimited key of it; each test spreads what it changes.
import type { KeyState, OrgState } from '../../src/domain/organization.js';
import { DEFAULT_LIMITS } from '../../src/domain/events.js';

export const liveOrg: OrgState = {
  orgId: 'org_1',
  billingMode: 'live',
  billingEnabled: true,
  hideBalance: false,
  trialQueries: 0,
  trialUsed: 0,
  suspended: false,
  balanceMicros: 1_000n,
  limits: DEFAULT_LIMITS,
  usage: { dailyUsed: 0, monthlyUsed: 0 },
  now: new Date('2026-03-14T10:00:00Z'),
  version: 3,
};

export const unlimitedKey: KeyState = { keyId: 'key_1', orgId: 'org_1', revoked: false, spendingCapMicros: null, spentMicros: 0n };
