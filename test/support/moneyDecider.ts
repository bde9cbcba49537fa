// The money deciders (organization and API key) as given/when/then: the given events are projected in memory by the
// store's own project() with the service's projectors, and the state is read from those rows as the command runner
// reads them (orgStateOf, keyStateOf), so a test states history, never a hand-built state. Fixture events for an
// organization and its key.
import { decide } from "../../src/domain/orgDecider.js";
import type { KeyState, OrgCommand, OrgState } from "../../src/domain/organization.js";
import { decideKey, type KeyCommand } from "../../src/domain/apiKey.js";
import {
  DEFAULT_LIMITS,
  keyStream,
  orgStream,
  type BillingSettings,
  type ChargeMode,
  type DomainEvent,
  type OrgLimits,
} from "../../src/domain/events.js";
import { dayPeriod, monthPeriod } from "../../src/domain/queryQuota.js";
import { Rejection } from "../../src/domain/rejection.js";
import { project } from "../../projections/project.js";
import { memoryReader, memoryTables, putRow, type MemoryTables } from "../../projections/memoryTables.js";
import { keyStateOf, organizationOf, orgStateOf, type Organization } from "../../src/usecases/accounts/orgState.js";
import { deciderSpec } from "./deciderSpec.js";
import { FEATURE_PROJECTORS } from "../../src/app/projectors.js";

export const ORG = "org_1";
export const KEY = "key_1";
/** When the decision is made, and when a given event was recorded unless `at` says otherwise. */
export const DEFAULT_NOW = new Date("2026-03-14T10:00:00Z");

/** A given event; `recordedAt` places it in time (quota periods count by it). */
export type GivenEvent = DomainEvent & { recordedAt?: string };
export const at = (recordedAt: string, event: DomainEvent): GivenEvent => ({ ...event, recordedAt });

/** The projection rows of the given events, and the time of the decision. */
export interface MoneyState {
  now: Date;
  tables: MemoryTables;
  versions: Map<string, number>;
  position: number;
}

/** The organization as the command runner loads it: its row, its balance, its usage today and this month. */
export function orgOf(s: MoneyState, orgId = ORG): OrgState | undefined {
  const org = s.tables.organizations.get(orgId);
  if (!org) return undefined;
  const iso = s.now.toISOString();
  const queries = (period: string) => s.tables.usage.get(`${orgId}\u0000${period}`)?.queries ?? 0;
  return orgStateOf(
    org,
    s.tables.balances.get(orgId)?.balance_micros,
    { dailyUsed: queries(dayPeriod(iso)), monthlyUsed: queries(monthPeriod(iso)) },
    s.now,
  );
}

/** The organization as a request reads it (its prices included): overrides cleared to null are no override. */
export function organizationIn(s: MoneyState, orgId = ORG): Organization | undefined {
  const org = s.tables.organizations.get(orgId);
  if (!org) return undefined;
  const overrides = [...s.tables.price_overrides.values()].flatMap((p) =>
    p.org_id === orgId && p.price_per_1000_micros !== null ? [[p.collection, p.price_per_1000_micros] as const] : [],
  );
  return organizationOf(org, s.tables.balances.get(orgId)?.balance_micros, overrides);
}

export function keyOf(s: MoneyState, keyId = KEY): KeyState | undefined {
  const row = s.tables.api_keys.get(keyId);
  return row && keyStateOf(row);
}

const streamOf = (e: DomainEvent): string => {
  const data = e.data as { orgId?: string; keyId?: string };
  return e.type.startsWith("ApiKey") ? keyStream(data.keyId!) : orgStream(data.orgId!);
};

function evolve(s: MoneyState, e: GivenEvent): MoneyState {
  const stream = streamOf(e);
  const streamVersion = (s.versions.get(stream) ?? 0) + 1;
  s.versions.set(stream, streamVersion);
  s.position += 1;
  const reader = memoryReader(s.tables);
  for (const change of project(
    FEATURE_PROJECTORS,
    { ...e, recordedAt: e.recordedAt ?? s.now.toISOString(), position: s.position, streamVersion },
    reader,
  )) {
    putRow(s.tables, FEATURE_PROJECTORS.tables[change.table], change.row);
  }
  return s;
}

/**
 * An organization command naming its paying key by id: the key's state comes from the given events, as the runner loads
 * it.
 */
export type MoneyCommand = OrgCommand extends infer C
  ? C extends { key: KeyState }
    ? Omit<C, "key"> & { keyId: string }
    : C
  : never;

function requireKey(s: MoneyState, keyId: string): KeyState {
  const key = keyOf(s, keyId);
  if (!key) throw new Rejection("NOT_FOUND", `API key ${keyId} not found`);
  return key;
}

const initialState = (now: Date) => (): MoneyState => ({
  now,
  tables: memoryTables(FEATURE_PROJECTORS.tables),
  versions: new Map(),
  position: 0,
});

/** The organization decider, deciding at `now`. */
export const orgSpec = (now = DEFAULT_NOW) =>
  deciderSpec<MoneyState, MoneyCommand, GivenEvent>({
    initialState: initialState(now),
    evolve,
    decide: (command, s) => {
      if (command.type === "CreateOrganization") return decide(command, orgOf(s, command.orgId));
      const full = ("keyId" in command ? { ...command, key: requireKey(s, command.keyId) } : command) as OrgCommand;
      return decide(full, orgOf(s));
    },
  });

/** The API key decider: the state is the key the command names. */
export const keySpec = (now = DEFAULT_NOW) =>
  deciderSpec<MoneyState, KeyCommand, GivenEvent>({
    initialState: initialState(now),
    evolve,
    decide: (command, s) => decideKey(command, keyOf(s, command.keyId)),
  });

// ---- fixture events: an organization, its key, and what happens to its money

export const created = (settings: Partial<BillingSettings> = {}, limits: OrgLimits = DEFAULT_LIMITS): DomainEvent => ({
  type: "OrganizationCreated",
  data: {
    orgId: ORG,
    name: "Lab",
    billingMode: "live",
    limits,
    hideBalance: false,
    billingEnabled: true,
    trialQueries: 0,
    ...settings,
  },
});

export const keyCreated = (keyId = KEY, spendingCapMicros: bigint | null = null): DomainEvent => ({
  type: "ApiKeyCreated",
  data: {
    keyId,
    orgId: ORG,
    mode: "live",
    keyHash: `hash-${keyId}`,
    keyPrefix: "sk_live_ab",
    collections: null,
    spendingCapMicros: spendingCapMicros?.toString() ?? null,
  },
});

export const credited = (amountMicros: bigint): DomainEvent => ({
  type: "CreditsAdded",
  data: { orgId: ORG, amountMicros: amountMicros.toString(), reference: "top-up" },
});

export const settingsChanged = (settings: Partial<BillingSettings>): DomainEvent => ({
  type: "BillingSettingsChanged",
  data: { orgId: ORG, billingMode: "live", billingEnabled: true, hideBalance: false, trialQueries: 0, ...settings },
});

/** A /query search charged (1 token, one collection) to a key. */
export const searched = (
  amountMicros: bigint,
  options: { keyId?: string; billingMode?: ChargeMode; queryId?: string } = {},
): DomainEvent => ({
  type: "SearchCharged",
  data: {
    orgId: ORG,
    keyId: options.keyId ?? KEY,
    queryId: options.queryId ?? "q0",
    endpoint: "/query",
    billingMode: options.billingMode ?? "live",
    resultIds: ["r0"],
    tokens: 1,
    amountMicros: amountMicros.toString(),
    collections: [
      {
        collection: "scifact",
        results: 1,
        tokens: 1,
        pricePer1000Micros: "1000",
        amountMicros: amountMicros.toString(),
      },
    ],
  },
});

export const priceSet = (collection: string, pricePer1000Micros: bigint | null): DomainEvent => ({
  type: "PriceOverrideSet",
  data: { orgId: ORG, collection, pricePer1000Micros: pricePer1000Micros?.toString() ?? null },
});
export const suspended = (): DomainEvent => ({
  type: "BillingSuspended",
  data: { orgId: ORG, reason: "unpaid invoice" },
});
export const revoked = (keyId = KEY): DomainEvent => ({ type: "ApiKeyRevoked", data: { keyId, orgId: ORG } });

/** A live organization with an unlimited key and `balanceMicros` credited. */
export const liveOrg = (balanceMicros = 1_000n): DomainEvent[] => [
  created(),
  keyCreated(),
  ...(balanceMicros > 0n ? [credited(balanceMicros)] : []),
];
