// What the dashboard's pages show, read from the projections (and, for a key's creation and the recent searches, from
// the organization's and the keys' own streams, which the log indexes). Read-only; every query is scoped to one
// organization except the operator's.
import { isLowBalance } from "../../domain/organization.js";
import type { Db } from "../../eventstore/db.js";
import type { Accounts, Organization } from "../accounts/accounts.js";
import type { Operations } from "../operator/operations.js";
import { dayPeriod, monthPeriod } from "../../domain/queryQuota.js";
import type { Actor } from "../../domain/events.js";
import { queryOwnerOf, recentQueriesOf, type RecentQueryOptions } from "./recentQueries.js";
import { readDailyUsage, readUsageReport, type UsageRange, type UsageReport } from "./usageReport.js";

const USAGE_DAYS = 30;
const ORGANIZATIONS_PER_PAGE = 25;

export interface OverviewData {
  org: Organization;
  today: { queries: number; limit: number };
  month: { queries: number; limit: number; spendMicros: bigint; tokens: bigint };
  lowBalance: boolean;
  /** webhook endpoints the service stopped sending to because every attempt failed for days */
  disabledWebhooks: { id: string; url: string; disabledAt: string; reason: string }[];
}

export interface KeyRow {
  id: string;
  prefix: string;
  name: string | null;
  mode: "live" | "test";
  collections: string[] | null;
  spentMicros: bigint;
  spendingCapMicros: bigint | null;
  revoked: boolean;
  createdAt: string;
  /** who created it: a member's email, "operator", or null when unknown */
  createdBy: string | null;
  createdByMemberId: string | null;
  lastUsedAt: string | null;
}

export interface UsageDay {
  day: string;
  collection: string;
  searches: number;
  unlockedResults: number;
  tokens: bigint;
  spendMicros: bigint;
}

export type { RecentQuery } from "./recentQueries.js";

/** The keys a ledger names, by id: what the page shows for each. */
export type LedgerKeys = ReadonlyMap<string, { prefix: string; name: string | null }>;

/** The last `n` UTC days ending with `now`'s, oldest first. */
function lastDays(now: Date, n: number): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i -= 1)
    out.push(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - i)).toISOString().slice(0, 10),
    );
  return out;
}

const iso = (v: Date | string | null): string | null => (v === null ? null : new Date(v).toISOString());

/**
 * One page of organizations (`q` searches names and ids) with their reconciliation, and the house's audit results.
 */
async function operatorOverviewOf(operations: Operations, opts: { q?: string; page?: number }) {
  const page = Math.max(1, opts.page ?? 1);
  const [list, reconciliation, verify, journals, collections] = await Promise.all([
    operations.listOrganizations({
      q: opts.q,
      offset: (page - 1) * ORGANIZATIONS_PER_PAGE,
      limit: ORGANIZATIONS_PER_PAGE,
    }),
    operations.reconcileAll(),
    operations.verify(),
    operations.journalRequests(),
    // a console without the running service's catalogue (a bare store) shows none
    operations.listCollections().catch(() => null),
  ]);
  const byOrg = new Map(reconciliation.organizations.map((r) => [r.orgId, r]));
  return {
    organizations: list.organizations.map((o) => ({ ...o, reconciliation: byOrg.get(o.id) ?? null })),
    q: opts.q?.trim() ?? "",
    page,
    pages: Math.max(1, Math.ceil(list.total / ORGANIZATIONS_PER_PAGE)),
    total: list.total,
    reconciliationOk: reconciliation.ok,
    discrepancies: reconciliation.discrepancies,
    verify,
    journals,
    collections,
  };
}

export function createConsoleData(db: Db, accounts: Accounts, operations: Operations, clock: () => Date) {
  return {
    async overview(orgId: string): Promise<OverviewData | undefined> {
      const org = await accounts.getOrganization(orgId);
      if (!org) return undefined;
      const now = clock().toISOString();
      const rows = await db.query<{ period: string; queries: number; tokens: string; amount_micros: string }>(
        "SELECT period, queries, tokens::text AS tokens, amount_micros::text AS amount_micros FROM proj_usage " +
          "WHERE org_id = $1 AND period = ANY($2)",
        [orgId, [dayPeriod(now), monthPeriod(now)]],
      );
      const day = rows.find((r) => r.period === dayPeriod(now));
      const month = rows.find((r) => r.period === monthPeriod(now));
      return {
        org,
        today: { queries: day?.queries ?? 0, limit: org.limits.daily },
        month: {
          queries: month?.queries ?? 0,
          limit: org.limits.monthly,
          spendMicros: BigInt(month?.amount_micros ?? "0"),
          tokens: BigInt(month?.tokens ?? "0"),
        },
        lowBalance: isLowBalance(org),
        disabledWebhooks: await db.query<{ id: string; url: string; disabledAt: string; reason: string }>(
          `SELECT endpoint_id AS id, url, to_char(disabled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"') ` +
            `AS "disabledAt", coalesce(disabled_reason, '') AS reason FROM proj_webhook_endpoints WHERE org_id = ` +
            `$1 AND state = 'disabled' ORDER BY disabled_at`,
          [orgId],
        ),
      };
    },

    async keys(orgId: string): Promise<KeyRow[]> {
      const rows = await db.query<{
        key_id: string;
        key_prefix: string;
        name: string | null;
        mode: "live" | "test";
        collections: string[] | null;
        spent_micros: string;
        spending_cap_micros: string | null;
        revoked: boolean;
        created_at: Date | string | null;
        actor: Actor | null;
        used_at: Date | string | null;
        email: string | null;
      }>(
        `SELECT k.key_id, k.key_prefix, k.name, k.mode, k.collections, k.spent_micros::text AS spent_micros,
          k.spending_cap_micros::text AS spending_cap_micros, k.revoked,
           e.recorded_at AS created_at, e.metadata->'actor' AS actor, u.used_at, m.email
         FROM proj_api_keys k
         LEFT JOIN events e ON e.stream_id = 'key-' || k.key_id AND e.stream_version = 1
         LEFT JOIN proj_key_last_used u ON u.key_id = k.key_id
         LEFT JOIN proj_members m ON e.metadata->'actor'->>'kind' = 'member'
           AND m.member_id = e.metadata->'actor'->>'id'
         WHERE k.org_id = $1 ORDER BY k.revoked, e.position DESC`,
        [orgId],
      );
      return rows.map((r) => ({
        id: r.key_id,
        prefix: r.key_prefix,
        name: r.name,
        mode: r.mode,
        collections: r.collections,
        spentMicros: BigInt(r.spent_micros),
        spendingCapMicros: r.spending_cap_micros === null ? null : BigInt(r.spending_cap_micros),
        revoked: r.revoked,
        createdAt: iso(r.created_at) ?? "",
        createdBy:
          r.actor?.kind === "member" ? (r.email ?? "a member") : r.actor?.kind === "operator" ? "operator" : null,
        createdByMemberId: r.actor?.kind === "member" ? r.actor.id : null,
        lastUsedAt: iso(r.used_at),
      }));
    },

    /**
     * Per day and collection over the last USAGE_DAYS days (the overview's and the operator's tables), from the
     * projections: a view reads at most USAGE_DAYS rows per collection, never the organization's charge events.
     */
    async usage(orgId: string): Promise<{ days: string[]; rows: UsageDay[] }> {
      const days = lastDays(clock(), USAGE_DAYS);
      return { days, rows: await readDailyUsage(db, orgId, days) };
    },

    /** Per day, key and collection in a range, from the charge events (what the ledger lists). */
    usageReport: (orgId: string, range: UsageRange): Promise<UsageReport> => readUsageReport(db, orgId, range),

    /** The organization and key of a kept search or preview (null: none kept under that id). */
    queryOwner: (queryId: string) => queryOwnerOf(db, queryId),

    /** The organization's searches and previews, newest first (recentQueries.ts). */
    recentQueries: (orgId: string, opts: RecentQueryOptions = {}) => recentQueriesOf(db, orgId, opts),

    /**
     * The organization's ledger for its members: without the balance after each entry when the balance is hidden; with
     * its keys' names and prefixes by id, for the page.
     */
    async ledger(orgId: string, opts: { asOperator?: boolean } = {}) {
      const [ledger, org, keys] = await Promise.all([
        operations.ledger(orgId),
        accounts.getOrganization(orgId),
        db.query<{ key_id: string; key_prefix: string; name: string | null }>(
          "SELECT key_id, key_prefix, name FROM proj_api_keys WHERE org_id = $1",
          [orgId],
        ),
      ]);
      const keyNames: LedgerKeys = new Map(keys.map((k) => [k.key_id, { prefix: k.key_prefix, name: k.name }]));
      const hidden = org?.hideBalance && !opts.asOperator;
      return {
        entries: hidden ? ledger.entries.map((e) => ({ ...e, balanceAfter: "" })) : ledger.entries,
        keys: keyNames,
      };
    },

    /**
     * One page of organizations (`q` searches names and ids) with their reconciliation, and the house's audit results.
     */
    operatorOverview: (opts: { q?: string; page?: number } = {}) => operatorOverviewOf(operations, opts),

    /** One organization as the operator sees it: what its members see (the balance always), its members and invites. */
    async operatorOrganization(orgId: string) {
      const overview = await this.overview(orgId);
      if (!overview) return undefined;
      const [keys, usage, ledger, roster] = await Promise.all([
        this.keys(orgId),
        this.usage(orgId),
        this.ledger(orgId, { asOperator: true }),
        operations.members(orgId),
      ]);
      return { overview, keys, usage, ledger, roster };
    },
  };
}

export type ConsoleData = ReturnType<typeof createConsoleData>;
