// The MCP tools about what this key has and reaches: get_balance, list_collections, list_journals and request_journal
// (free; list_collections, list_journals and request_journal are their REST twins' use cases).
import { parseOr422, journalsQuery, journalRequestBody } from "../../wire/schemas.js";
import { listCollections } from "../../usecases/catalogue/collectionsList.js";
import type { AuthContext } from "../../usecases/auth/context.js";
import { listJournalsSchemas, noArgs, noArgsSchemas, requestJournalSchemas } from "../toolSchemas.js";
import { bad, balanceOf, isLowBalanceOf, objectArgs, type ToolDefinition } from "../toolKit.js";

function trialQueriesLeft(auth: AuthContext): number | null {
  return auth.billingMode === "trial" ? Math.max(0, auth.org.trialQueries - auth.org.trialUsed) : null;
}

export const getBalanceTool: ToolDefinition = {
  name: "get_balance",
  cost: "free",
  description: "Free: balance, billing mode, trial queries left and the dashboard URL. Call once per session.",
  details:
    "The dashboard URL (usage, ledger, keys) is the one to give the user, never a constructed one; confirm and " +
    "the searches return balance_remaining themselves.",
  schemas: noArgsSchemas,
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
  name: "list_collections",
  cost: "free",
  description:
    "Free: the collections this key can search, with descriptions, document counts and prices per 1000 tokens.",
  details: "Prices are the organization's (pricePer1000; a meta-collection gives its members and priceRange).",
  schemas: noArgsSchemas,
  run: async ({ deps, auth }, args) => {
    parseOr422(noArgs, args);
    const collections = await listCollections({ catalog: deps.catalog, engine: deps.engine }, auth);
    return { collections, count: collections.length };
  },
};

export const listJournalsTool: ToolDefinition = {
  name: "list_journals",
  cost: "free",
  description:
    "Free: a collection's journals ranked by h-index, or with `topic` by subject (`matchedBy` says how each " +
    "matched). " +
    "Pass a journal's ISSNs in an `issn` filter to search it.",
  schemas: listJournalsSchemas,
  run: async ({ deps, auth }, args) => {
    const { collection, ...rest } = objectArgs(args);
    if (typeof collection !== "string" || collection === "") throw bad("collection: a collection name is required");
    // the REST query schema reads query-string text: numbers are handed over as their text, so its rules and messages
    // apply
    const asQuery = Object.fromEntries(
      Object.entries(rest).map(([k, v]) => [k, typeof v === "number" ? String(v) : v]),
    );
    const q = parseOr422(journalsQuery, asQuery);
    return deps.catalogue.journals(auth, collection, {
      topic: q.topic ?? null,
      publisher: q.publisher,
      minHIndex: q.min_h_index,
      limit: q.limit,
      offset: q.offset,
    });
  },
};

/** Listed only to a key that reaches a collection. */
export const requestJournalTool: ToolDefinition = {
  name: "request_journal",
  cost: "free",
  description:
    "Free: asks for a journal or publisher this key cannot reach (`title` and/or `issn`, `note`); it records " +
    "the request, it grants no access.",
  schemas: requestJournalSchemas,
  run: async ({ deps, auth }, args) => deps.catalogue.requestJournal(auth, parseOr422(journalRequestBody, args)),
};
