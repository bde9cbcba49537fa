// Authentication of an API request: the key with a presented key's hash and its organization, in one statement.
import type { Db } from "../../eventstore/db.js";
import { selectList, normalizeRow } from "../../../projections/sqlProjection.js";
import { API_KEYS } from "../accounts/keyTables.js";
import { groupCalls } from "../../eventstore/groupCalls.js";
import { ORGANIZATION_COLUMNS, organizationIn } from "../accounts/accountReads.js";
import { apiKeyRecordOf, type ApiKeyRecord, type Organization } from "../accounts/orgState.js";

type Authenticated = { key: ApiKeyRecord; org: Organization | undefined } | undefined;

export type Authenticate = (keyHash: string) => Promise<Authenticated>;

/**
 * The key with this hash and its organization (every API request starts here). On the embedded store, lookups that
 * arrive together share one statement; PostgreSQL answers them in parallel on its connections.
 */
export function createAuthenticate(db: Db): Authenticate {
  /** The keys with these hashes and their organizations, in one statement. */
  async function authenticateAll(keyHashes: string[]): Promise<Authenticated[]> {
    const rows = await db.query(
      `SELECT row_to_json(k) AS key_row, o.* FROM (SELECT ${selectList(API_KEYS)} FROM proj_api_keys
        WHERE key_hash = ANY($1)) k
       LEFT JOIN LATERAL (SELECT ${ORGANIZATION_COLUMNS} FROM proj_organizations o
         WHERE o.org_id = k.org_id) o ON true`,
      [[...new Set(keyHashes)]],
      true,
    );
    const byHash = new Map<string, Authenticated>();
    for (const r of rows) {
      const key = normalizeRow(API_KEYS, r.key_row as Record<string, unknown>);
      byHash.set(key.key_hash, {
        key: apiKeyRecordOf(key),
        org: r.org_id === null || r.org_id === undefined ? undefined : organizationIn(r),
      });
    }
    return keyHashes.map((hash) => byHash.get(hash));
  }

  return db.kind === "pglite"
    ? groupCalls(authenticateAll, 64)
    : async (keyHash) => (await authenticateAll([keyHash]))[0];
}
