// Reads of an account from the projections: an organization (balance and price overrides), a key, the ledger and a
// query's unlocked rows.
import type { Db, Queryable } from "../../eventstore/db.js";
import { sqlReader, selectList, normalizeRow } from "../../../projections/sqlProjection.js";
import { LEDGER, ORGANIZATIONS, type LedgerRow } from "./accountTables.js";
import { apiKeyRecordOf, organizationOf, type ApiKeyRecord, type Organization } from "./orgState.js";

/**
 * An organization's columns with its balance and price overrides (the select list of getOrganization and authenticate).
 */
export const ORGANIZATION_COLUMNS = `${selectList(ORGANIZATIONS)}, (SELECT balance_micros::text FROM proj_balances b
  WHERE b.org_id = o.org_id) AS balance,
    (SELECT json_agg(json_build_array(p.collection, p.price_per_1000_micros::text)) FROM proj_price_overrides p
      WHERE p.org_id = o.org_id AND p.price_per_1000_micros IS NOT NULL) AS overrides`;

/** The Organization in a row selected with ORGANIZATION_COLUMNS. */
export const organizationIn = (r: Record<string, unknown>): Organization =>
  organizationOf(
    normalizeRow(ORGANIZATIONS, r),
    r.balance as string | null,
    (r.overrides as [string, string][] | null) ?? [],
  );

export type AccountReads = ReturnType<typeof createAccountReads>;

export function createAccountReads(db: Db) {
  return {
    async getOrganization(orgId: string, q: Queryable = db): Promise<Organization | undefined> {
      const rows = await q.query(
        `SELECT ${ORGANIZATION_COLUMNS} FROM proj_organizations o WHERE org_id = $1`,
        [orgId],
        true,
      );
      return rows[0] ? organizationIn(rows[0]) : undefined;
    },

    async getKey(keyId: string): Promise<ApiKeyRecord | undefined> {
      const row = await sqlReader(db, db.projectors.tables, "proj_").apiKey(keyId);
      return row ? apiKeyRecordOf(row) : undefined;
    },

    async unlockedIds(queryId: string): Promise<Set<string>> {
      const rows = await db.query<{ result_id: string }>("SELECT result_id FROM proj_unlocks WHERE query_id = $1", [
        queryId,
      ]);
      return new Set(rows.map((r) => r.result_id));
    },

    /**
     * The organization's ledger lines in order, each with the X-Request-Id of the call that caused it where the call
     * recorded one (read from its event's metadata: the projection itself holds only what replay rebuilds).
     */
    async ledger(orgId: string): Promise<(LedgerRow & { request_id: string | null })[]> {
      const rows = await db.query(
        `SELECT l.*, (SELECT e.metadata->>'requestId' FROM events e WHERE e.position = l.position::bigint) ` +
          `AS request_id FROM (SELECT ${selectList(LEDGER)} FROM proj_ledger WHERE org_id = $1) l ` +
          "ORDER BY l.position::bigint",
        [orgId],
      );
      return rows.map((r) => ({ ...normalizeRow(LEDGER, r), request_id: (r.request_id as string | null) ?? null }));
    },
  };
}
