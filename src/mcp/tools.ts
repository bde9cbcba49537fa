// The MCP tools of one API key: each runs the use case of its REST twin (same validation, billing, limits, sandbox
// rules and error codes) and answers with the REST response's fields. The MCP shell (server.ts) only lists and calls them.
import { isLowBalance } from '../domain/organization.js';
import type { AuthContext } from '../usecases/auth/context.js';
import type { BillingOutcome } from '../usecases/search/searchService.js';
import type { SearchRequestInput } from '../usecases/search/pipeline.js';
import type { ToolRegistry } from '../usecases/tools/toolRegistry.js';
import { listCollections, reachableEntries } from '../usecases/catalogue/collectionsList.js';
import { DEFAULT_IMAGE_OPTIONS, searchFigureImages } from '../usecases/figures/figureImages.js';
import { searchBody, previewResponse, unlockResponse, assistedResponse, resultsBody, selectionOf, type SearchRouteDeps } from '../http/presenters/searchPresenters.js';
import type { ToolCalls } from '../usecases/tools/toolCalls.js';
import { parseOr422, assistedAnswerBody, assistedBody, journalsQuery, journalRequestBody, unlockBody, requestedCollections } from '../http/schemas.js';
import { parseCredits } from '../domain/money.js';
import type { AssistedProgress } from '../../workflows/assistedTypes.js';
import type { AssistedAnswer } from '../usecases/assisted/assistedSearch.js';
import { Rejection } from '../domain/rejection.js';
import { idempotencyRequest } from '../usecases/search/previewIdempotency.js';
import { formatCredits } from '../domain/money.js';
import {
  boundPreviewSearchArgs,
  boundSearchArgs,
  boundSearchSchema,
  callToolArgs,
  confirmArgs,
  findToolsArgs,
  getResultsArgs,
  inspectToolArgs,
  jsonSchemaOf,
  assistedSearchSchema,
  listJournalsSchema,
  noArgs,
  previewArgs,
  previewSearchArgs,
  searchArgs,
  searchSchema,
} from './toolSchemas.js';

/** What the REST routes of the same use cases get, and the gateway's tools for find-tools and inspect-tool. */
export interface McpDeps extends SearchRouteDeps {
  /** the tool gateway's calls (the /api/v1/tools routes' use case) */
  toolCalls: ToolCalls;
  /** the gateway's tools (shipped and mounted upstream) */
  tools: ToolRegistry;
  /** the service's address as its users reach it (PUBLIC_URL); unset: the address the request came to */
  publicUrl?: string;
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** per call, for gateway tools with a fixed price */
  price?: string;
  run(args: unknown, call?: ToolCallContext): Promise<unknown>;
}

/** What a tool may do while it runs: report progress (sent as MCP progress notifications when the client asked for them). */
export interface ToolCallContext {
  progress?: (message: string) => void;
}

/** Input schemas are the same for every key: converted once, not per request. */
const SCHEMAS = {
  noArgs: jsonSchemaOf(noArgs),
  findTools: jsonSchemaOf(findToolsArgs),
  inspectTool: jsonSchemaOf(inspectToolArgs),
  preview: jsonSchemaOf(previewArgs),
  confirm: jsonSchemaOf(confirmArgs),
  callTool: jsonSchemaOf(callToolArgs),
  getResults: jsonSchemaOf(getResultsArgs),
  requestJournal: jsonSchemaOf(journalRequestBody),
};

/** The prefix of the bound search tools: `search-<collection>`. */
const BOUND_SEARCH = 'search-';

const bad = (message: string) => new Rejection('VALIDATION_ERROR', message);

/** The queryId in either of the reference's spellings (`queryId`, `query_id`); both given must agree. */
function queryIdOf(args: { queryId?: string; query_id?: string }): string | undefined {
  if (args.queryId !== undefined && args.query_id !== undefined && args.queryId !== args.query_id) throw bad('queryId and query_id differ; send one of them');
  return args.queryId ?? args.query_id;
}

function objectArgs(args: unknown): Record<string, unknown> {
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** The bound search tools take the collection from their name; a collection in the arguments is refused as on POST /{collection}. */
function refuseCollectionArgument(args: unknown): void {
  const a = objectArgs(args);
  if ('collection' in a || 'collections' in a) throw bad('the collection is given by the tool name; remove collection/collections from the arguments');
}

export const toolNotFound = (name: string) => new Rejection('NOT_FOUND', `no tool "${name}" is available to this key; find-tools lists the tools`);

const firstSentence = (text: string) => /^.*?[.!?](?=\s|$)/s.exec(text)?.[0] ?? text;

/** One line of progress: the phase, the round and the counts so far. */
function progressMessage(p: AssistedProgress, queryId: string): string {
  if (p.phase === 'awaiting_clarification') return `query ${queryId}: waiting for the answer to a clarification question`;
  return `query ${queryId}: ${p.phase.replace('_', ' ')}: round ${p.round}, ${p.searchesRun} searches run, ${p.candidatesVerified} candidates judged, ${p.verified} verified`;
}

/** The balance as the account shows it: hidden balances are null. */
function balanceOf(auth: AuthContext, micros: bigint): string | null {
  return auth.org.hideBalance ? null : formatCredits(micros, 6);
}

function trialQueriesLeft(auth: AuthContext): number | null {
  return auth.billingMode === 'trial' ? Math.max(0, auth.org.trialQueries - auth.org.trialUsed) : null;
}

/** The key's organization has a low balance it may see (a sandbox key's never is: it spends nothing). */
export function isLowBalanceOf(auth: AuthContext): boolean {
  return auth.billingMode !== 'sandbox' && isLowBalance(auth.org);
}

/**
 * The reference service's MCP spellings beside ours: `query_id` (its skills tell agents to keep it and to pass it to
 * confirm) and each result's `source_collection` (which collection, so open-access rows can be labelled).
 */
function withReferenceNames<T extends { queryId: string; results: Array<{ collection: string | null }> }>(body: T) {
  return { ...body, query_id: body.queryId, results: body.results.map((r) => ({ ...r, source_collection: r.collection })) };
}

/** What the billing headers of a search say, in the result, so a client reconciles without HTTP headers. */
function billingFields(auth: AuthContext, billing: BillingOutcome) {
  return { cost: formatCredits(billing.costMicros, 6), tokens_used: billing.tokens, billing_mode: billing.mode, balance_remaining: balanceOf(auth, billing.balanceMicros) };
}

/** What the tools of one request know of it: its id, and the dashboard's address as this client reaches the service. */
export interface ToolsRequest {
  requestId: string;
  dashboardUrl: string;
  /** runs a step once the tool's answer has been sent in full (the HTTP response flushed): proof of delivery */
  afterAnswerSent?: (then: () => void) => void;
}

/**
 * The tools of one key. `listed` is what tools/list shows (the reference's fixed tools and one `search-<name>` per
 * reachable collection); `catalogue` is what find-tools shows (`search`, `list_collections`, `list_journals`,
 * `assisted_search`, `get_results` and the gateway's tools), also callable directly by name.
 */

export function toolsFor(deps: McpDeps, auth: AuthContext, { requestId, dashboardUrl, afterAnswerSent }: ToolsRequest) {
  const reachable = reachableEntries(deps.catalog, auth);

  async function search(args: unknown, bound: string | null) {
    let collections: string[];
    let body: { query: string; limit: number; filters?: unknown; include_metadata: boolean; include_figures: boolean; image_max_width: number; image_max_height: number; image_quality: number; min_relevance: number; one_per_document: boolean };
    if (bound === null) {
      const parsed = parseOr422(searchArgs, args);
      collections = requestedCollections(parsed);
      body = parsed;
    } else {
      refuseCollectionArgument(args);
      body = parseOr422(boundSearchArgs, args);
      collections = [bound];
    }
    const endpoint = bound === null ? 'mcp:search' : `mcp:${BOUND_SEARCH}${bound}`;
    const outcome = await deps.search.search(auth, { collections, query: body.query, limit: body.limit, filters: body.filters ?? null, includeMetadata: body.include_metadata, selection: selectionOf(body) }, endpoint, requestId);
    const figures = body.include_figures ? { maxWidth: body.image_max_width, maxHeight: body.image_max_height, quality: body.image_quality } : null;
    const images = figures ? await searchFigureImages(outcome.rows, deps.figureImages, figures) : undefined;
    return { ...withReferenceNames(searchBody(outcome, body.include_metadata, images)), ...billingFields(auth, outcome.billing) };
  }

  /** A charged answer's charge stands once the tool's answer is sent; without that the run refunds it. */
  const confirmDeliveryWhenSent = (answer: AssistedAnswer) => {
    if (answer.awaitsDelivery) afterAnswerSent?.(() => void deps.assisted.confirmDelivery(answer.queryId));
  };

  /** POST /api/v1/search/assisted, reporting the run's progress while it goes on. */
  async function assistedSearch(args: unknown, call?: ToolCallContext) {
    const onProgress = call?.progress ? (p: AssistedProgress, queryId: string) => call.progress!(progressMessage(p, queryId)) : undefined;
    if (args && typeof args === 'object' && 'queryId' in args) {
      const body = parseOr422(assistedAnswerBody, args);
      const answer = await deps.assisted.resume(auth, body.queryId, body.answer, { onProgress });
      confirmDeliveryWhenSent(answer);
      return { ...withReferenceNames(assistedResponse(answer, body.includeMetadata)), ...billingFields(auth, answer.billing) };
    }
    // idempotency_key: the REST twin's Idempotency-Key header, as an argument (an MCP client sets no header per call)
    const { idempotency_key: idempotencyKey, ...request } = objectArgs(args);
    const body = parseOr422(assistedBody, request);
    if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') throw bad('idempotency_key: a string of 1 to 255 characters');
    const idempotency = idempotencyKey === undefined ? undefined : idempotencyRequest(idempotencyKey, request);
    const collections = requestedCollections(body);
    const answer = await deps.assisted.start(
      auth,
      { collections, query: body.query, limit: body.limit, filters: body.filters ?? null, allowClarification: body.allowClarification, ...(body.maxCost !== undefined ? { maxCostMicros: parseCredits(body.maxCost)! } : {}) },
      { requestId, onProgress, idempotency },
    );
    const figures = (body.includeFigures ?? body.includeImages) ? { maxWidth: body.imageMaxWidth, maxHeight: body.imageMaxHeight, quality: body.imageQuality } : null;
    const images = figures ? await searchFigureImages(answer.rows.map((r) => r.row), deps.figureImages, figures) : undefined;
    confirmDeliveryWhenSent(answer);
    return {
      ...withReferenceNames(assistedResponse(answer, body.includeMetadata, images)),
      ...billingFields(auth, answer.billing),
      ...(answer.idempotency ? { idempotency_status: answer.idempotency } : {}),
    };
  }

  const assisted: McpTool = {
    name: 'assisted_search',
    description:
      'Assisted search: reads the question (up to 16,000 characters), searches sub-questions over `collection` or `collections`, verifies every candidate and returns only verified passages, each with a judge score, matched terms and a rationale. Bills only the delivered verified rows (`cost`); clarification_needed and no_relevant_results cost nothing. When it asks a clarification question, call it again with `queryId` and `answer`. Sends progress notifications while it runs (ask for them with a progressToken), each naming the queryId; a run whose answer was lost is re-fetched free with get_results. `idempotency_key` makes a retry safe: the same key and arguments return the first answer, charged once.',
    inputSchema: assistedSearchSchema,
    run: assistedSearch,
  };

  const getResults: McpTool = {
    name: 'get_results',
    description:
      'Free. Re-fetches a search, preview or assisted search of this key by its `queryId` (`query_id` is accepted too) for 7 days, as GET /api/v1/search/results/{queryId}: the same rows, unlocked as they are now (preview rows not bought stay teasers). Re-fetch rather than search again.',
    inputSchema: SCHEMAS.getResults,
    run: async (args) => {
      const a = parseOr422(getResultsArgs, args);
      const queryId = queryIdOf(a);
      if (queryId === undefined) throw bad('queryId: the queryId of a search, preview or assisted search is required');
      // GET /results takes the image options too; the tool keeps to the flag, with their defaults
      const figures = a.include_figures ? { ...DEFAULT_IMAGE_OPTIONS } : null;
      const refetched = await deps.search.refetch(auth, queryId, figures);
      // as GET /results: a re-fetch of an assisted answer is its delivery; 410 once it was refunded
      await deps.assisted.deliveredBeforeServing(refetched.record);
      return { ...withReferenceNames(resultsBody(refetched)), ...billingFields(auth, deps.search.zeroBilling(auth)) };
    },
  };

  const catalogue: McpTool[] = [
    {
      name: 'search',
      description:
        'Searches one collection (`collection`) or up to 5 (`collections`, merged into one ranked list) and returns ranked passages. Bills immediately: delivered result tokens at the collection price per 1000 tokens (`cost` in the result); use preview first to see teasers and prices for free. A catalogue question sent without filters (which sources, publishers or journals?) is answered free in `discovery`. The result carries `queryId`: GET /api/v1/search/results/{queryId} re-fetches it free for 7 days.',
      inputSchema: searchSchema,
      run: (args) => search(args, null),
    },
    {
      name: 'list_collections',
      description: "Lists the collections this key can search, with descriptions, document counts and the organization's price per 1000 tokens (pricePer1000; for meta-collections, members and priceRange). Free.",
      inputSchema: SCHEMAS.noArgs,
      run: async (args) => {
        parseOr422(noArgs, args);
        const collections = await listCollections({ catalog: deps.catalog, engine: deps.engine }, auth);
        return { collections, count: collections.length };
      },
    },
    {
      name: 'list_journals',
      description:
        "Lists the journals of a collection in this key's scope, ranked by h-index, or with `topic` by how much relevant content each holds on it. Free. Pass a journal's ISSNs in an `issn` filter to search that journal.",
      inputSchema: listJournalsSchema,
      run: async (args) => {
        const { collection, ...rest } = objectArgs(args);
        if (typeof collection !== 'string' || collection === '') throw bad('collection: a collection name is required');
        // the REST query schema reads query-string text: numbers are handed over as their text, so its rules and messages apply
        const asQuery = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]));
        const q = parseOr422(journalsQuery, asQuery);
        return deps.catalogue.journals(auth, collection, { topic: q.topic ?? null, publisher: q.publisher, minHIndex: q.min_h_index, limit: q.limit, offset: q.offset });
      },
    },
    assisted,
    getResults,
    ...deps.tools.describe().map(
      (t): McpTool => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        price: formatCredits(t.priceMicros, 6),
        run: (args) => gatewayCall(t.prefix, t.tool, args),
      }),
    ),
  ];

  /**
   * A gateway tool's call, as POST /api/v1/tools/{prefix}/{tool}: its answer, with what the billing headers say there
   * (`cost`, `billing_mode`, `balance_remaining`) added when the answer is an object, as a search adds them.
   */
  async function gatewayCall(prefix: string, tool: string, args: unknown) {
    const outcome = await deps.toolCalls.invoke(auth, prefix, tool, args ?? {}, requestId);
    const answer = outcome.answer ?? {};
    if (typeof answer !== 'object' || Array.isArray(answer)) return answer;
    return { ...answer, cost: formatCredits(outcome.costMicros, 6), billing_mode: auth.billingMode, balance_remaining: balanceOf(auth, outcome.balanceMicros) };
  }

  /** A catalogue tool by name; a `prefix--tool` name not described still goes to the gateway, which answers 404 as REST does. */
  function catalogueTool(name: string): McpTool | undefined {
    const known = catalogue.find((t) => t.name === name);
    if (known) return known;
    const split = name.indexOf('--');
    if (split <= 0) return undefined;
    const prefix = name.slice(0, split);
    const tool = name.slice(split + 2);
    return { name, description: '', inputSchema: { type: 'object' }, run: (args) => gatewayCall(prefix, tool, args) };
  }

  const bound: McpTool[] = reachable.map((entry) => ({
    name: `${BOUND_SEARCH}${entry.name}`,
    description: `Searches ${entry.displayName}${entry.description ? ` (${entry.description})` : ''}. Bills immediately, like POST /api/v1/search/${entry.name}: the result carries \`cost\` and \`queryId\`. Use preview with tool_name "${BOUND_SEARCH}${entry.name}" to see teasers and prices for free first.`,
    inputSchema: boundSearchSchema,
    run: (args) => search(args, entry.name),
  }));

  const describeTool = (t: McpTool, full: boolean) => ({ name: t.name, description: full ? t.description : firstSentence(t.description), inputSchema: t.inputSchema, ...(t.price !== undefined ? { price: t.price } : {}) });

  const listed: McpTool[] = [
    {
      name: 'get_balance',
      description: 'Free. The balance, billing mode and trial queries left of this account, and the dashboard URL (usage, ledger, keys; give the user this one, never a constructed one). Call once at session start; confirm returns balance_remaining itself.',
      inputSchema: SCHEMAS.noArgs,
      run: async (args) => {
        parseOr422(noArgs, args);
        return {
          balance: balanceOf(auth, auth.org.balanceMicros),
          billing_mode: auth.billingMode,
          billing_enabled: auth.org.billingEnabled,
          trial_queries_left: trialQueriesLeft(auth),
          low_balance: auth.org.hideBalance ? null : isLowBalanceOf(auth),
          dashboard_url: dashboardUrl,
        };
      },
    },
    {
      name: 'find-tools',
      description:
        'Free. The catalogue of tools behind this server (search, list_collections, list_journals, assisted_search, get_results and the gateway tools): name, first sentence of the description, input schema. `query` searches names and descriptions; `integration` lists one provider (a gateway prefix); `format` is json (default) or text.',
      inputSchema: SCHEMAS.findTools,
      run: async (args) => {
        const a = parseOr422(findToolsArgs, args);
        const terms = (a.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
        const matches = (t: McpTool) => terms.length === 0 || terms.some((term) => `${t.name} ${t.description}`.toLowerCase().includes(term));
        const inIntegration = (t: McpTool) => a.integration === undefined || t.name.startsWith(`${a.integration}--`);
        const found = catalogue.filter((t) => inIntegration(t) && matches(t)).map((t) => describeTool(t, false));
        return a.format === 'text' ? found.map((t) => `${t.name}: ${t.description}`).join('\n') || 'no tool matches' : found;
      },
    },
    {
      name: 'inspect-tool',
      description: 'Free. The full description and input schema of one tool (from find-tools or tools/list). Read it before calling a tool: a guessed argument costs a failed call.',
      inputSchema: SCHEMAS.inspectTool,
      run: async (args) => {
        const { tool_name } = parseOr422(inspectToolArgs, args);
        const tool = catalogue.find((t) => t.name === tool_name) ?? bound.find((t) => t.name === tool_name) ?? listed.find((t) => t.name === tool_name);
        if (!tool) throw toolNotFound(tool_name);
        return describeTool(tool, true);
      },
    },
    {
      name: 'preview',
      description:
        'Free (50 per hour per organization, shared with POST /api/v1/search/preview). Runs a search (`tool_name` "search" or a "search-<name>", with that tool\'s selection arguments: query, limit, filters, min_relevance, one_per_document, and collection/collections for "search") and returns locked teasers, each row\'s relevance and cost to unlock, and a `queryId` unlockable with confirm for 7 days. `workflow` is "requires_confirm" when there is something to buy, "complete" when the answer is already in hand.',
      inputSchema: SCHEMAS.preview,
      run: async (args) => {
        const { tool_name, arguments: a } = parseOr422(previewArgs, args);
        let input: SearchRequestInput;
        if (tool_name === 'search') {
          const body = parseOr422(previewSearchArgs, a);
          input = { collections: requestedCollections(body), query: body.query, limit: body.limit, filters: body.filters ?? null, selection: selectionOf(body) };
        } else if (tool_name.startsWith(BOUND_SEARCH) && tool_name.length > BOUND_SEARCH.length) {
          refuseCollectionArgument(a);
          const body = parseOr422(boundPreviewSearchArgs, a);
          input = { collections: [tool_name.slice(BOUND_SEARCH.length)], query: body.query, limit: body.limit, filters: body.filters ?? null, selection: selectionOf(body) };
        } else {
          throw bad(`tool_name: only searches are previewable ("search" or "search-<name>"), not "${tool_name}"`);
        }
        const outcome = await deps.search.preview(auth, input);
        return { ...withReferenceNames(previewResponse(outcome)), workflow: outcome.rows.some((r) => !outcome.unlocked.has(r.id)) ? 'requires_confirm' : 'complete' };
      },
    },
    {
      name: 'confirm',
      description:
        'Bills. Unlocks rows of a preview by its `queryId` (`query_id` is accepted too): `result_ids` names the rows to buy, omitted or null buys all. Charges only rows not yet unlocked under that queryId, so a repeat costs nothing. Returns the rows in full, `cost_charged` and `balance_remaining`.',
      inputSchema: SCHEMAS.confirm,
      run: async (args) => {
        const c = parseOr422(confirmArgs, args);
        // the REST unlock body's rules (ids, limits) apply to what confirm passes on
        const body = parseOr422(unlockBody, {
          queryId: queryIdOf(c),
          ...(c.result_ids !== undefined ? { resultIds: c.result_ids } : {}),
          ...(c.include_figures !== undefined ? { includeFigures: c.include_figures } : {}),
        });
        const figures = body.includeFigures ? { maxWidth: body.imageMaxWidth, maxHeight: body.imageMaxHeight, quality: body.imageQuality } : null;
        const outcome = await deps.unlock.unlock(auth, { queryId: body.queryId, resultIds: body.resultIds, figures });
        return {
          ...withReferenceNames(unlockResponse(outcome)),
          cost_charged: formatCredits(outcome.costChargedMicros, 6),
          tokens_used: outcome.billing.tokens,
          billing_mode: outcome.billing.mode,
          balance_remaining: balanceOf(auth, outcome.billing.balanceMicros),
        };
      },
    },
    {
      name: 'call-tool',
      description:
        'Runs a tool of the catalogue (find-tools) with its `arguments`: search, list_collections, list_journals, or a gateway tool `prefix--tool` (POST /api/v1/tools/{prefix}/{tool}). Bills immediately what the tool costs; calls share the per-minute budget with search.',
      inputSchema: SCHEMAS.callTool,
      run: async (args) => {
        const { tool_name, arguments: a } = parseOr422(callToolArgs, args);
        const tool = catalogueTool(tool_name);
        if (!tool) throw toolNotFound(tool_name);
        return tool.run(a);
      },
    },
    ...(reachable.length > 0
      ? [
          {
            name: 'request_journal',
            description: 'Free. Records a request for a journal or publisher this account cannot reach (after a search for it came back empty): `title` and/or `issn`, and a `note`. It records the request; it does not grant access.',
            inputSchema: SCHEMAS.requestJournal,
            run: async (args: unknown) => deps.catalogue.requestJournal(auth, parseOr422(journalRequestBody, args)),
          },
        ]
      : []),
    assisted,
    ...bound,
  ];

  return {
    /** what tools/list shows this key */
    listed,
    /** a tool callable by name with tools/call: a listed one, or one of the catalogue */
    find: (name: string): McpTool | undefined => listed.find((t) => t.name === name) ?? catalogueTool(name),
  };
}
