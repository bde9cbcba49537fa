// Operator operations shared by the admin HTTP API and the CLI: organizations, credits, keys, ledger, replay, verify.
import type { Accounts } from '../billing/accounts.js';
import { DEFAULT_LIMITS, type Actor, type BillingMode, type KeyMode, type OrgLimits } from '../domain/events.js';
import { Rejection } from '../domain/rejection.js';
import { formatCredits, parseCredits } from '../money.js';
import { replayProjections, type ReplayReport } from '../../projections/replay.js';
import { verifyChain, type ChainVerdict } from '../eventstore/eventStore.js';

const OPERATOR: Actor = { kind: 'operator', id: 'admin' };

function money(amount: string, field: string): bigint {
  const micros = parseCredits(amount);
  if (micros === null || micros < 0n) throw new Rejection('VALIDATION_ERROR', `${field} must be a non-negative decimal string such as "25.00"`);
  return micros;
}

export function createOperations(accounts: Accounts) {
  async function requireOrg(orgId: string) {
    const org = await accounts.getOrganization(orgId);
    if (!org) throw new Rejection('NOT_FOUND', `organization ${orgId} not found`);
    return org;
  }
  const orgView = (o: { id: string; name: string; billingMode: BillingMode; limits: OrgLimits; hideBalance: boolean; suspended: boolean }) => ({
    id: o.id,
    name: o.name,
    billingMode: o.billingMode,
    limits: o.limits,
    hideBalance: o.hideBalance,
    suspended: o.suspended,
  });

  return {
    async createOrganization(input: { name: string; billingMode: BillingMode; limits?: Partial<OrgLimits>; hideBalance?: boolean }) {
      const org = await accounts.createOrganization({ name: input.name, billingMode: input.billingMode, limits: { ...DEFAULT_LIMITS, ...input.limits }, hideBalance: input.hideBalance }, OPERATOR);
      return orgView(org);
    },
    async getOrganization(orgId: string) {
      return orgView(await requireOrg(orgId));
    },
    async addCredits(orgId: string, amount: string, reference?: string) {
      await requireOrg(orgId);
      const micros = money(amount, 'amount');
      if (micros === 0n) throw new Rejection('VALIDATION_ERROR', 'amount must be greater than zero');
      const balance = await accounts.addCredits(orgId, micros, reference ?? 'operator credit', OPERATOR);
      return { balance: formatCredits(balance, 6) };
    },
    async changeLimits(orgId: string, limits: Partial<OrgLimits>) {
      const org = await requireOrg(orgId);
      const next = { ...org.limits, ...limits };
      await accounts.changeLimits(orgId, next, OPERATOR);
      return { limits: next };
    },
    async setSuspended(orgId: string, suspended: boolean, reason?: string) {
      await requireOrg(orgId);
      await accounts.setSuspended(orgId, suspended, reason ?? 'operator hold', OPERATOR);
      return orgView(await requireOrg(orgId));
    },
    async createKey(orgId: string, input: { mode: KeyMode; collections?: string[]; spendingCap?: string }) {
      await requireOrg(orgId);
      return accounts.createKey(orgId, { mode: input.mode, collections: input.collections ?? null, spendingCapMicros: input.spendingCap === undefined ? null : money(input.spendingCap, 'spendingCap') }, OPERATOR);
    },
    async revokeKey(keyId: string) {
      await accounts.revokeKey(keyId, OPERATOR);
      return { id: keyId, revoked: true };
    },
    async balance(orgId: string) {
      return { balance: formatCredits((await requireOrg(orgId)).balanceMicros, 6) };
    },
    async ledger(orgId: string) {
      await requireOrg(orgId);
      const rows = await accounts.ledger(orgId);
      return {
        entries: rows.map((r) => ({
          time: r.time,
          type: r.type,
          amount: formatCredits(BigInt(r.amount_micros), 6),
          balanceAfter: formatCredits(BigInt(r.balance_after_micros), 6),
          keyId: r.key_id,
          queryId: r.query_id,
          reference: r.reference,
        })),
      };
    },
    replay: (): Promise<ReplayReport> => replayProjections(accounts.db),
    verify: (): Promise<ChainVerdict> => verifyChain(accounts.db),
  };
}

export type Operations = ReturnType<typeof createOperations>;
