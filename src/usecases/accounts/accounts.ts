// Runs organization and key commands: lock, load state from projections, decide (the organization or the key decider), append, project — one transaction.
import type { Db, Queryable } from '../../eventstore/db.js';
import { APPEND_LOCK_KEY, appendHeadColumns, appendHeadOf, prepareAppend, type AppendHead, type SqlPart } from '../../eventstore/eventStore.js';
import { prefetchKeysFor, prefetchSubquery, projectInline, sqlReader, selectList, normalizeRow, type PrefetchedRows } from '../../../projections/sqlProjection.js';
import { decideKey, type KeyCommand } from '../../domain/apiKey.js';
import { decideCatalogue, type CatalogueCommand } from '../../domain/catalogue.js';
import { decide, type KeyState, type OrgCommand, type OrgState, type UnlockRowPrice } from '../../domain/organization.js';
import { catalogueAnswerStream, journalRequestStream, keyStream, orgStream, type Actor, type BillingMode, type BillingSettings, type KeyMode, type OrgLimits, type StoredEvent } from '../../domain/events.js';
import { dayPeriod, monthPeriod } from '../../domain/queryQuota.js';
import { Rejection } from '../../domain/rejection.js';
import { generateApiKey, hashApiKey, keyPrefixOf, newId } from '../auth/apiKeys.js';
import type { ApiKeyRow, LedgerRow } from '../../../projections/tables.js';
import { DEFAULT_TRIAL_QUERIES } from '../../domain/events.js';
import { groupCalls } from '../../eventstore/groupCalls.js';
import { runStreamCommand } from '../../eventstore/streamCommand.js';
import { retryConflicts } from '../../eventstore/conflictRetry.js';
import { apiKeyRecordOf, keyStateOf, organizationOf, orgStateOf, type ApiKeyRecord, type Organization } from './orgState.js';
import { createChargeBatcher, searchChargeKey, type ChargeInput, type ChargeResult } from './chargeBatch.js';

export type { ApiKeyRecord, Organization } from './orgState.js';

export interface CommandResult {
  events: StoredEvent[];
  duplicate: boolean;
}

export type { ChargeResult } from './chargeBatch.js';

interface LoadedState {
  state?: OrgState;
  key?: ApiKeyRow;
  /** the stream's and the log's head, for the append */
  head: AppendHead;
  /** the rows the projection of this command's events will read, when the command could name them */
  prefetched?: PrefetchedRows;
}

/**
 * Everything a command needs before it appends, in one round trip: the organization's state, the acting key, the
 * append head, and the projection rows its events will touch (organization, balance, key, usage, collection days).
 */
async function loadOrgState(tx: Queryable, orgId: string, now: Date, opts: { keyId?: string; idempotencyKey?: string; collections?: string[] }): Promise<LoadedState> {
  const iso = now.toISOString();
  const params: unknown[] = [];
  const param = (v: unknown) => (params.push(v), `$${params.length}`);
  const keys = opts.collections ? prefetchKeysFor([{ orgId, keyId: opts.keyId, at: iso, collections: opts.collections }]) : undefined;
  const o = param(orgId);
  const rows = await tx.query(
    `SELECT o.*, (SELECT row_to_json(k) FROM (SELECT ${selectList('api_keys')} FROM proj_api_keys WHERE key_id = ${param(opts.keyId ?? null)}) k) AS key_row,
       ${appendHeadColumns(orgStream(orgId), opts.idempotencyKey, param)}
       ${keys ? `, ${prefetchSubquery('proj_', keys, param)} AS prefetched` : ''}
     FROM (SELECT 1) one LEFT JOIN LATERAL (
       SELECT ${selectList('organizations')},
         (SELECT balance_micros::text FROM proj_balances b WHERE b.org_id = o.org_id) AS balance,
         (SELECT queries FROM proj_usage u WHERE u.org_id = o.org_id AND u.period = ${param(dayPeriod(iso))}) AS daily_used,
         (SELECT queries FROM proj_usage u WHERE u.org_id = o.org_id AND u.period = ${param(monthPeriod(iso))}) AS monthly_used
       FROM proj_organizations o WHERE org_id = ${o}) o ON true`,
    params,
    true,
  );
  const r = rows[0];
  const key = r?.key_row ? normalizeRow('api_keys', r.key_row as Record<string, unknown>) : undefined;
  const head = appendHeadOf(r);
  const prefetched = keys ? { keys, rows: (r?.prefetched ?? []) as PrefetchedRows['rows'] } : undefined;
  if (!r || r.org_id === null || r.org_id === undefined) return { key, head, prefetched };
  const org = normalizeRow('organizations', r);
  const state = orgStateOf(org, r.balance as string | null, { dailyUsed: Number(r.daily_used ?? 0), monthlyUsed: Number(r.monthly_used ?? 0) }, now);
  return { state, key, head, prefetched };
}

export interface JournalRequest {
  id: string;
  title: string | null;
  issn: string | null;
  note: string | null;
  recordedAt: string;
}

/** Requests for one journal, for operators deciding what to add. */
export interface JournalRequestSummary {
  issn: string | null;
  title: string | null;
  requests: number;
  /** distinct organizations that asked */
  organizations: number;
  firstRequestedAt: string;
  lastRequestedAt: string;
  /** up to ten of the notes sent with the requests */
  notes: string[];
}

export type Accounts = ReturnType<typeof createAccounts>;

/** The idempotency key of an unlock charge: one per workflow run. */
export const unlockChargeKey = (workflowRun: string) => `unlock:${workflowRun}`;

export function createAccounts(db: Db, clock: () => Date = () => new Date()) {
  /** What the organization paid for a query (its charge and unlocks, from the ledger) less its refunds; null when it paid nothing for it. */
  async function refundableOf(tx: Queryable, orgId: string, queryId: string): Promise<bigint | null> {
    const [row] = await tx.query<{ charges: number; paid: string; refunded: string }>(
      `SELECT count(*) FILTER (WHERE type IN ('charge', 'unlock'))::int AS charges,
              coalesce(-sum(amount_micros) FILTER (WHERE type IN ('charge', 'unlock')), 0)::text AS paid,
              coalesce(sum(amount_micros) FILTER (WHERE type = 'refund'), 0)::text AS refunded
         FROM proj_ledger WHERE org_id = $1 AND query_id = $2`,
      [orgId, queryId],
    );
    if (!row || row.charges === 0) return null;
    return BigInt(row.paid) - BigInt(row.refunded);
  }

  /**
   * One command against an organization stream. The advisory lock serializes appends; the expected version
   * still guards the stream, so a decision is never made on state another writer has moved.
   */
  async function runOrgCommand(
    orgId: string,
    actor: Actor,
    build: (tx: Queryable, state: OrgState | undefined, key: KeyState | undefined) => Promise<OrgCommand>,
    options: { idempotencyKey?: string; requestId?: string; keyId?: string; alsoWrite?: SqlPart; /** collections the events will bill: their usage rows are fetched with the state */ collections?: string[] } = {},
  ): Promise<CommandResult & { state?: OrgState }> {
    // a conflict is another writer's turn, not an outage: decide again on the state it left
    return retryConflicts(() =>
      db.transaction(
        async (tx) => {
          const now = clock();
          const { state, key, head, prefetched } = await loadOrgState(tx, orgId, now, options);
          if (options.keyId && !key) throw new Rejection('NOT_FOUND', `API key ${options.keyId} not found`);
          const events = decide(await build(tx, state, key && keyStateOf(key)), state);
          if (events.length === 0) return { events: [], duplicate: false, state };
          const prepared = await prepareAppend(tx, orgStream(orgId), state?.version ?? 0, events, { actor, requestId: options.requestId }, { idempotencyKey: options.idempotencyKey, now, head });
          if (prepared.duplicate) return { events: prepared.events, duplicate: true, state };
          // one statement: the events, their projection, and what must commit with them or not at all
          // (e.g. the query record a charge pays for)
          await projectInline(tx, prepared.events, 'proj_', [prepared.insert], options.alsoWrite ? [options.alsoWrite] : [], prefetched);
          return { events: prepared.events, duplicate: false, state };
        },
        { advisoryLock: APPEND_LOCK_KEY },
      ),
    );
  }

  /** One command against a key stream, like runOrgCommand: lock, read the key, decide, append and project together. */
  async function runKeyCommand(keyId: string, actor: Actor, build: (tx: Queryable) => Promise<KeyCommand>): Promise<void> {
    await runStreamCommand(db, clock, keyStream(keyId), actor, async (tx) => {
      const row = await sqlReader(tx, 'proj_').apiKey(keyId);
      return { version: row?.version ?? 0, events: decideKey(await build(tx), row && keyStateOf(row)) };
    });
  }

  /** A catalogue fact on its own new stream: appended and projected under the append lock like every event. */
  function runCatalogueCommand(streamId: string, actor: Actor, command: CatalogueCommand, requestId?: string): Promise<StoredEvent[]> {
    const events = decideCatalogue(command);
    return runStreamCommand(db, clock, streamId, actor, async () => ({ version: 0, events }), { requestId });
  }

  /** An organization's columns with its balance and price overrides (the select list of getOrganization and authenticate). */
  const ORGANIZATION_COLUMNS = `${selectList('organizations')}, (SELECT balance_micros::text FROM proj_balances b WHERE b.org_id = o.org_id) AS balance,
    (SELECT json_agg(json_build_array(p.collection, p.price_per_1000_micros::text)) FROM proj_price_overrides p
      WHERE p.org_id = o.org_id AND p.price_per_1000_micros IS NOT NULL) AS overrides`;

  /** The Organization in a row selected with ORGANIZATION_COLUMNS. */
  const organizationIn = (r: Record<string, unknown>): Organization =>
    organizationOf(normalizeRow('organizations', r), r.balance as string | null, (r.overrides as [string, string][] | null) ?? []);

  async function getOrganization(orgId: string, q: Queryable = db): Promise<Organization | undefined> {
    const rows = await q.query(`SELECT ${ORGANIZATION_COLUMNS} FROM proj_organizations o WHERE org_id = $1`, [orgId], true);
    return rows[0] ? organizationIn(rows[0]) : undefined;
  }

  /** One search charge in its own transaction: the path of a retried charge, which returns the original events. */
  async function chargeAlone(input: ChargeInput): Promise<ChargeResult> {
    const res = await runOrgCommand(
      input.orgId,
      { kind: 'key', id: input.keyId },
      async (_tx, _state, key) => ({ type: 'ChargeSearch', key: key!, queryId: input.queryId, endpoint: input.endpoint, collections: input.collections, resultIds: input.resultIds ?? [] }),
      { idempotencyKey: searchChargeKey(input.queryId), requestId: input.requestId, keyId: input.keyId, alsoWrite: input.alsoWrite, collections: input.collections.map((l) => l.collection) },
    );
    const event = res.events[0];
    if (res.duplicate || !res.state || !event || event.type !== 'SearchCharged') {
      const org = await getOrganization(input.orgId);
      return { events: res.events, duplicate: res.duplicate, balanceMicros: org?.balanceMicros ?? 0n, dailyUsed: -1, monthlyUsed: -1 };
    }
    return {
      events: res.events,
      duplicate: false,
      balanceMicros: res.state.balanceMicros - BigInt(event.data.amountMicros),
      dailyUsed: res.state.usage.dailyUsed + 1,
      monthlyUsed: res.state.usage.monthlyUsed + 1,
    };
  }

  const batcher = createChargeBatcher(db, clock, chargeAlone);

  type Authenticated = { key: ApiKeyRecord; org: Organization | undefined } | undefined;

  /** The keys with these hashes and their organizations, in one statement. */
  async function authenticateAll(keyHashes: string[]): Promise<Authenticated[]> {
    const rows = await db.query(
      `SELECT row_to_json(k) AS key_row, o.* FROM (SELECT ${selectList('api_keys')} FROM proj_api_keys WHERE key_hash = ANY($1)) k
       LEFT JOIN LATERAL (SELECT ${ORGANIZATION_COLUMNS} FROM proj_organizations o WHERE o.org_id = k.org_id) o ON true`,
      [[...new Set(keyHashes)]],
      true,
    );
    const byHash = new Map<string, Authenticated>();
    for (const r of rows) {
      const key = normalizeRow('api_keys', r.key_row as Record<string, unknown>);
      byHash.set(key.key_hash, { key: apiKeyRecordOf(key), org: r.org_id === null || r.org_id === undefined ? undefined : organizationIn(r) });
    }
    return keyHashes.map((hash) => byHash.get(hash));
  }

  /**
   * The key with this hash and its organization (every API request starts here). On the embedded store, lookups that
   * arrive together share one statement; PostgreSQL answers them in parallel on its connections.
   */
  const authenticate: (keyHash: string) => Promise<Authenticated> =
    db.kind === 'pglite' ? groupCalls(authenticateAll, 64) : async (keyHash) => (await authenticateAll([keyHash]))[0];

  return {
    db,
    getOrganization,

    async createOrganization(input: { name: string; billingMode: BillingMode; limits: OrgLimits; hideBalance?: boolean; billingEnabled?: boolean; trialQueries?: number }, actor: Actor): Promise<Organization> {
      const orgId = newId('org');
      await runOrgCommand(orgId, actor, async () => ({
        type: 'CreateOrganization',
        orgId,
        name: input.name,
        billingMode: input.billingMode,
        limits: input.limits,
        hideBalance: input.hideBalance ?? false,
        billingEnabled: input.billingEnabled ?? true,
        trialQueries: input.trialQueries ?? (input.billingMode === 'trial' ? DEFAULT_TRIAL_QUERIES : 0),
      }));
      return (await getOrganization(orgId))!;
    },

    async changeBillingSettings(orgId: string, settings: BillingSettings, actor: Actor): Promise<void> {
      await runOrgCommand(orgId, actor, async () => ({ type: 'ChangeBillingSettings', settings }));
    },

    /** null removes the override; the collection name is checked against the catalogue by the caller */
    async setPriceOverride(orgId: string, collection: string, pricePer1000Micros: bigint | null, actor: Actor): Promise<void> {
      await runOrgCommand(orgId, actor, async () => ({ type: 'SetPriceOverride', collection, pricePer1000Micros }));
    },

    async addCredits(orgId: string, amountMicros: bigint, reference: string, actor: Actor, idempotencyKey?: string): Promise<bigint> {
      await runOrgCommand(orgId, actor, async () => ({ type: 'AddCredits', amountMicros, reference }), { idempotencyKey });
      return (await getOrganization(orgId))!.balanceMicros;
    },

    /**
     * A refund, at most what its query cost less earlier refunds when it names one. `idempotencyKey` makes a retried
     * refund (a workflow's) append once; `alsoWrite` commits with it (the query record that says it was refunded).
     */
    async issueRefund(orgId: string, amountMicros: bigint, reference: string, queryId: string | null, actor: Actor, options: { idempotencyKey?: string; alsoWrite?: SqlPart } = {}): Promise<bigint> {
      await runOrgCommand(orgId, actor, async (tx) => ({ type: 'IssueRefund', amountMicros, reference, queryId, refundableMicros: queryId === null ? null : await refundableOf(tx, orgId, queryId) }), options);
      return (await getOrganization(orgId))!.balanceMicros;
    },

    /**
     * The charge of a priced tool call, after the tool answered: decided on the balance as it stands under the append
     * lock (a balance spent meanwhile refuses with nothing charged), idempotent per call id.
     */
    async chargeToolCall(input: { orgId: string; keyId: string; callId: string; tool: string; priceMicros: bigint; requestId?: string }): Promise<{ amountMicros: bigint; balanceMicros: bigint }> {
      const res = await runOrgCommand(
        input.orgId,
        { kind: 'key', id: input.keyId },
        async (_tx, _state, key) => ({ type: 'ChargeToolCall', key: key!, callId: input.callId, tool: input.tool, priceMicros: input.priceMicros }),
        { idempotencyKey: `tool:${input.callId}`, requestId: input.requestId, keyId: input.keyId },
      );
      const event = res.events[0];
      const amountMicros = event?.type === 'ToolCallCharged' ? BigInt(event.data.amountMicros) : 0n;
      if (!res.duplicate && res.state) return { amountMicros, balanceMicros: res.state.balanceMicros - amountMicros };
      return { amountMicros, balanceMicros: (await getOrganization(input.orgId))?.balanceMicros ?? 0n };
    },

    async changeLimits(orgId: string, limits: OrgLimits, actor: Actor): Promise<void> {
      await runOrgCommand(orgId, actor, async () => ({ type: 'ChangeLimits', limits }));
    },

    async setSuspended(orgId: string, suspended: boolean, reason: string, actor: Actor): Promise<void> {
      await runOrgCommand(orgId, actor, async () => (suspended ? { type: 'SuspendBilling', reason } : { type: 'ResumeBilling' }));
    },

    async createKey(orgId: string, input: { mode: KeyMode; collections: string[] | null; spendingCapMicros: bigint | null; name?: string | null }, actor: Actor): Promise<{ id: string; key: string }> {
      const key = generateApiKey(input.mode);
      const keyId = newId('key');
      await runKeyCommand(keyId, actor, async (tx) => ({
        type: 'CreateKey',
        keyId,
        orgId,
        organizationFound: (await sqlReader(tx, 'proj_').organization(orgId)) !== undefined,
        mode: input.mode,
        keyHash: hashApiKey(key),
        keyPrefix: keyPrefixOf(key),
        collections: input.collections,
        spendingCapMicros: input.spendingCapMicros,
        name: input.name ?? null,
      }));
      return { id: keyId, key };
    },

    async revokeKey(keyId: string, actor: Actor): Promise<void> {
      await runKeyCommand(keyId, actor, async () => ({ type: 'RevokeKey', keyId }));
    },

    /** null clears the cap */
    async setSpendingCap(keyId: string, spendingCapMicros: bigint | null, actor: Actor): Promise<void> {
      await runKeyCommand(keyId, actor, async () => ({ type: 'SetSpendingCap', keyId, spendingCapMicros }));
    },

    /** The key with this hash and its organization, in one round trip (every API request starts here). */
    authenticate,

    async getKey(keyId: string): Promise<ApiKeyRecord | undefined> {
      const row = await sqlReader(db, 'proj_').apiKey(keyId);
      return row ? apiKeyRecordOf(row) : undefined;
    },

    /**
     * Charges a search (live) or records it at zero (trial, exempt, billing off); throws a Rejection when money cannot
     * move or the quota is used up. `alsoWrite` commits with the charge (the query record it pays for). Concurrent
     * charges commit in batches (group commit).
     */
    chargeSearch: (input: ChargeInput): Promise<ChargeResult> => batcher.charge(input),

    /** Charges and unlocks the rows not yet unlocked under the query, atomically; idempotent per workflow run. */
    async unlockResults(input: { orgId: string; keyId: string; queryId: string; rows: UnlockRowPrice[]; workflowId: string }): Promise<CommandResult> {
      return runOrgCommand(
        input.orgId,
        { kind: 'workflow', id: input.workflowId },
        async (tx, _state, key) => {
          const unlocked = await tx.query<{ result_id: string }>('SELECT result_id FROM proj_unlocks WHERE query_id = $1', [input.queryId]);
          return {
            type: 'UnlockResults',
            key: key!,
            queryId: input.queryId,
            rows: input.rows,
            alreadyUnlocked: new Set(unlocked.map((u) => u.result_id)),
            workflowId: input.workflowId,
          };
        },
        { idempotencyKey: unlockChargeKey(input.workflowId), keyId: input.keyId, collections: [...new Set(input.rows.map((r) => r.collection))] },
      );
    },

    async unlockedIds(queryId: string): Promise<Set<string>> {
      const rows = await db.query<{ result_id: string }>('SELECT result_id FROM proj_unlocks WHERE query_id = $1', [queryId]);
      return new Set(rows.map((r) => r.result_id));
    },

    async ledger(orgId: string): Promise<LedgerRow[]> {
      const rows = await db.query(`SELECT ${selectList('ledger')} FROM proj_ledger WHERE org_id = $1 ORDER BY proj_ledger.position`, [orgId]);
      return rows.map((r) => normalizeRow('ledger', r));
    },

    /** The free event of a catalogue answer, with the key as actor. */
    async recordCatalogueAnswer(answer: Omit<Extract<CatalogueCommand, { type: 'RecordCatalogueAnswer' }>, 'type'>, requestId?: string): Promise<void> {
      await runCatalogueCommand(catalogueAnswerStream(answer.queryId), { kind: 'key', id: answer.keyId }, { type: 'RecordCatalogueAnswer', ...answer }, requestId);
    },

    /** A journal request (free); its id is the stream's, so the event says which request it is. */
    async requestJournal(request: Omit<Extract<CatalogueCommand, { type: 'RequestJournal' }>, 'type' | 'requestId'>, requestId?: string): Promise<JournalRequest> {
      const id = newId('jr');
      const [event] = await runCatalogueCommand(journalRequestStream(id), { kind: 'key', id: request.keyId }, { type: 'RequestJournal', requestId: id, ...request }, requestId);
      if (!event || event.type !== 'JournalRequested') throw new Error('journal request was not recorded');
      return { id, title: event.data.title, issn: event.data.issn, note: event.data.note, recordedAt: event.recordedAt };
    },

    /** Every journal request, grouped by journal (canonical ISSN, else the lower-cased title), most requested first. */
    async journalRequests(): Promise<JournalRequestSummary[]> {
      const rows = await db.query<{ data: { orgId: string; title: string | null; issn: string | null; note: string | null }; recorded_at: Date | string }>(
        `SELECT data, recorded_at FROM events WHERE type = 'JournalRequested' ORDER BY position`,
      );
      const byJournal = new Map<string, { summary: JournalRequestSummary; orgs: Set<string> }>();
      for (const { data, recorded_at } of rows) {
        const key = data.issn ?? `title:${(data.title ?? '').toLowerCase()}`;
        const at = new Date(recorded_at).toISOString();
        const entry = byJournal.get(key) ?? { summary: { issn: data.issn, title: data.title, requests: 0, organizations: 0, firstRequestedAt: at, lastRequestedAt: at, notes: [] }, orgs: new Set<string>() };
        entry.orgs.add(data.orgId);
        const s = entry.summary;
        Object.assign(s, { requests: s.requests + 1, organizations: entry.orgs.size, lastRequestedAt: at, title: s.title ?? data.title });
        if (data.note && s.notes.length < 10) s.notes.push(data.note);
        byJournal.set(key, entry);
      }
      return [...byJournal.values()].map((e) => e.summary).sort((a, b) => b.requests - a.requests || a.firstRequestedAt.localeCompare(b.firstRequestedAt));
    },
  };
}
