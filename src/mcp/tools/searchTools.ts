// The MCP search tools: search, one search-<name> per reachable collection, preview, confirm and get_results, each
// the use case of its REST twin (POST /query and /{collection}, /preview, /unlock, GET /results/{queryId}).
import type { CatalogEntry } from '../../domain/catalog.js';
import { formatCredits } from '../../domain/money.js';
import type { SearchRequestInput } from '../../usecases/search/pipeline.js';
import { DEFAULT_IMAGE_OPTIONS, searchFigureImages } from '../../usecases/figures/figureImages.js';
import type { z } from 'zod';
import type { ListRequest } from '../../usecases/search/searchService.js';
import { searchBody, previewResponse, unlockResponse, resultsBody, searchRequestOf } from '../../http/presenters/searchPresenters.js';
import { parseOr422, unlockBody, requestedCollections } from '../../http/schemas.js';
import { boundPreviewSearchArgs, boundSearchArgs, boundSearchSchema, confirmArgs, confirmSchema, getResultsArgs, getResultsSchema, previewArgs, previewSchema, previewSearchArgs, searchArgs, searchSchema } from '../toolSchemas.js';
import { BOUND_SEARCH, bad, billedAnswer, queryIdOf, refuseCollectionArgument, withReferenceNames, type ToolContext, type ToolDefinition } from '../toolKit.js';

/** A search, as `search` (bound null: the collections in the arguments) or as `search-<bound>`. */
async function search({ deps, auth, request }: ToolContext, args: unknown, bound: string | null) {
  let collections: string[];
  let body: z.output<typeof searchArgs>;
  if (bound === null) {
    body = parseOr422(searchArgs, args);
    collections = requestedCollections(body);
  } else {
    refuseCollectionArgument(args);
    body = parseOr422(boundSearchArgs, args);
    collections = [bound];
  }
  const endpoint = bound === null ? 'mcp:search' : `mcp:${BOUND_SEARCH}${bound}`;
  const { input, list } = searchRequestOf(collections, body, body.max_cost);
  const outcome = await deps.search.search(auth, { ...input, includeMetadata: body.include_metadata }, endpoint, request.requestId, list);
  const figures = body.include_figures ? { maxWidth: body.image_max_width, maxHeight: body.image_max_height, quality: body.image_quality } : null;
  const images = figures ? await searchFigureImages(outcome.rows, deps.figureImages, figures) : undefined;
  return billedAnswer(auth, searchBody(outcome, body.include_metadata, images), outcome.billing);
}

export const searchTool: ToolDefinition = {
  name: 'search',
  description:
    'Searches one collection (`collection`) or up to 5 (`collections`, merged into one ranked list) and returns ranked passages. Bills immediately: delivered result tokens at the collection price per 1000 tokens (`cost` in the result); use preview first to see teasers and prices for free. A catalogue question sent without filters (which sources, publishers or journals?) is answered free in `discovery`. The result carries `queryId`: GET /api/v1/search/results/{queryId} re-fetches it free for 7 days.',
  inputSchema: searchSchema,
  run: (ctx, args) => search(ctx, args, null),
};

/** `search-<name>`: a search of one reachable collection, named by the tool. */
export const boundSearchTool = (entry: CatalogEntry): ToolDefinition => ({
  name: `${BOUND_SEARCH}${entry.name}`,
  description: `Searches ${entry.displayName}${entry.description ? ` (${entry.description})` : ''}. Bills immediately, like POST /api/v1/search/${entry.name}: the result carries \`cost\` and \`queryId\`. Use preview with tool_name "${BOUND_SEARCH}${entry.name}" to see teasers and prices for free first.`,
  inputSchema: boundSearchSchema,
  run: (ctx, args) => search(ctx, args, entry.name),
});

export const previewTool: ToolDefinition = {
  name: 'preview',
  description:
    'Free (50 per hour per organization, shared with POST /api/v1/search/preview). Runs a search (`tool_name` "search" or a "search-<name>", with that tool\'s selection arguments: query or like, limit, filters, min_relevance, one_per_document, sort, cursor, and collection/collections for "search") and returns locked teasers, each row\'s relevance and cost to unlock, and a `queryId` unlockable with confirm for 7 days. `workflow` is "requires_confirm" when there is something to buy, "complete" when the answer is already in hand.',
  inputSchema: previewSchema,
  run: async ({ deps, auth }, args) => {
    const { tool_name, arguments: a } = parseOr422(previewArgs, args);
    let request: { input: SearchRequestInput; list: ListRequest };
    if (tool_name === 'search') {
      const body = parseOr422(previewSearchArgs, a);
      request = searchRequestOf(requestedCollections(body), body);
    } else if (tool_name.startsWith(BOUND_SEARCH) && tool_name.length > BOUND_SEARCH.length) {
      refuseCollectionArgument(a);
      request = searchRequestOf([tool_name.slice(BOUND_SEARCH.length)], parseOr422(boundPreviewSearchArgs, a));
    } else {
      throw bad(`tool_name: only searches are previewable ("search" or "search-<name>"), not "${tool_name}"`);
    }
    const outcome = await deps.search.preview(auth, request.input, undefined, request.list);
    return { ...withReferenceNames(previewResponse(outcome)), workflow: outcome.rows.some((r) => !outcome.unlocked.has(r.id)) ? 'requires_confirm' : 'complete' };
  },
};

export const confirmTool: ToolDefinition = {
  name: 'confirm',
  description:
    'Bills. Unlocks rows of a preview by its `queryId` (`query_id` is accepted too): `result_ids` names the rows to buy, omitted or null buys all. Charges only rows not yet unlocked under that queryId, so a repeat costs nothing. Returns the rows in full, `cost_charged` and `balance_remaining`.',
  inputSchema: confirmSchema,
  run: async ({ deps, auth }, args) => {
    const c = parseOr422(confirmArgs, args);
    // the REST unlock body's rules (ids, limits) apply to what confirm passes on
    const body = parseOr422(unlockBody, {
      queryId: queryIdOf(c),
      ...(c.result_ids !== undefined ? { resultIds: c.result_ids } : {}),
      ...(c.include_figures !== undefined ? { includeFigures: c.include_figures } : {}),
    });
    const figures = body.includeFigures ? { maxWidth: body.imageMaxWidth, maxHeight: body.imageMaxHeight, quality: body.imageQuality } : null;
    const outcome = await deps.unlock.unlock(auth, { queryId: body.queryId, resultIds: body.resultIds, figures });
    return billedAnswer(auth, unlockResponse(outcome), outcome.billing, { cost_charged: formatCredits(outcome.costChargedMicros, 6) });
  },
};

export const getResultsTool: ToolDefinition = {
  name: 'get_results',
  description:
    'Free. Re-fetches a search, preview or assisted search of this key by its `queryId` (`query_id` is accepted too) for 7 days, as GET /api/v1/search/results/{queryId}: the same rows, unlocked as they are now (preview rows not bought stay teasers). Re-fetch rather than search again.',
  inputSchema: getResultsSchema,
  run: async ({ deps, auth }, args) => {
    const a = parseOr422(getResultsArgs, args);
    const queryId = queryIdOf(a);
    if (queryId === undefined) throw bad('queryId: the queryId of a search, preview or assisted search is required');
    // GET /results takes the image options too; the tool keeps to the flag, with their defaults
    const figures = a.include_figures ? { ...DEFAULT_IMAGE_OPTIONS } : null;
    const refetched = await deps.search.refetch(auth, queryId, figures);
    // as GET /results: a re-fetch of an assisted answer is its delivery; 410 once it was refunded
    await deps.assisted.deliveredBeforeServing(refetched.record);
    return billedAnswer(auth, resultsBody(refetched), deps.search.zeroBilling(auth));
  },
};
