// The MCP tools about what this key has and reaches: get_balance, list_collections, list_journals and request_journal
// (free; list_collections, list_journals and request_journal are their REST twins' use cases).
import { parseOr422, journalsQuery, journalRequestBody } from '../../http/schemas.js';
import { listCollections } from '../../usecases/catalogue/collectionsList.js';
import type { AuthContext } from '../../usecases/auth/context.js';
import { listJournalsSchema, noArgs, noArgsSchema, requestJournalSchema } from '../toolSchemas.js';
import { bad, balanceOf, isLowBalanceOf, objectArgs, type ToolDefinition } from '../toolKit.js';

function trialQueriesLeft(auth: AuthContext): number | null {
  return auth.billingMode === 'trial' ? Math.max(0, auth.org.trialQueries - auth.org.trialUsed) : null;
}

export const getBalanceTool: ToolDefinition = {
  name: 'get_balance',
  description: 'Free. The balance, billing mode and trial queries left of this account, and the dashboard URL (usage, ledger, keys; give the user this one, never a constructed one). Call once at session start; confirm returns balance_remaining itself.',
  inputSchema: noArgsSchema,
  run: async ({ auth, request }, args) => {
    parseOr422(noArgs, args);
    return {
      balance: balanceOf(auth, auth.org.balanceMicros),
      billing_mode: auth.billingMode,
      billing_enabled: auth.org.billingEnabled,
      trial_queries_left: trialQueriesLeft(auth),
      low_balance: auth.org.hideBalance ? null : isLowBalanceOf(auth),
      dashboard_url: request.dashboardUrl,
    };
  },
};

export const listCollectionsTool: ToolDefinition = {
  name: 'list_collections',
  description: "Lists the collections this key can search, with descriptions, document counts and the organization's price per 1000 tokens (pricePer1000; for meta-collections, members and priceRange). Free.",
  inputSchema: noArgsSchema,
  run: async ({ deps, auth }, args) => {
    parseOr422(noArgs, args);
    const collections = await listCollections({ catalog: deps.catalog, engine: deps.engine }, auth);
    return { collections, count: collections.length };
  },
};

export const listJournalsTool: ToolDefinition = {
  name: 'list_journals',
  description:
    "Lists the journals of a collection in this key's scope, ranked by h-index, or with `topic` by how much relevant content each holds on it. Free. Pass a journal's ISSNs in an `issn` filter to search that journal.",
  inputSchema: listJournalsSchema,
  run: async ({ deps, auth }, args) => {
    const { collection, ...rest } = objectArgs(args);
    if (typeof collection !== 'string' || collection === '') throw bad('collection: a collection name is required');
    // the REST query schema reads query-string text: numbers are handed over as their text, so its rules and messages apply
    const asQuery = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]));
    const q = parseOr422(journalsQuery, asQuery);
    return deps.catalogue.journals(auth, collection, { topic: q.topic ?? null, publisher: q.publisher, minHIndex: q.min_h_index, limit: q.limit, offset: q.offset });
  },
};

/** Listed only to a key that reaches a collection. */
export const requestJournalTool: ToolDefinition = {
  name: 'request_journal',
  description: 'Free. Records a request for a journal or publisher this account cannot reach (after a search for it came back empty): `title` and/or `issn`, and a `note`. It records the request; it does not grant access.',
  inputSchema: requestJournalSchema,
  run: async ({ deps, auth }, args) => deps.catalogue.requestJournal(auth, parseOr422(journalRequestBody, args)),
};
