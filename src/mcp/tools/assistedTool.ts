// The MCP assisted_search tool: POST /api/v1/search/assisted (a new search, or the answer to its clarification
// question), reporting the run's progress while it goes on and confirming a charged answer's delivery once it is sent.
import { parseCredits } from "../../domain/money.js";
import type { AssistedProgress } from "../../../workflows/assistedTypes.js";
import type { AssistedAnswer } from "../../usecases/assisted/assistedContext.js";
import { searchFigureImages } from "../../usecases/figures/figureImages.js";
import { idempotencyRequest } from "../../usecases/search/previewIdempotency.js";
import { assistedResponse } from "../../wire/presenters/searchPresenters.js";
import {
  assistedAnswerBody,
  assistedBody,
  figureOptionsOf,
  parseOr422,
  requestedCollections,
} from "../../wire/schemas.js";
import { assistedSearchSchemas } from "../toolSchemas.js";
import { bad, billedAnswer, objectArgs, type ToolContext, type ToolDefinition } from "../toolKit.js";

/** One line of progress: the phase, the round and the counts so far. */
function progressMessage(p: AssistedProgress, queryId: string): string {
  if (p.phase === "awaiting_clarification")
    return `query ${queryId}: waiting for the answer to a clarification question`;
  return (
    `query ${queryId}: ${p.phase.replace("_", " ")}: round ${p.round}, ${p.searchesRun} searches run, ` +
    `${p.candidatesVerified} candidates judged, ${p.verified} verified`
  );
}

/** A charged answer's charge stands once the tool's answer is sent; without that the run refunds it. */
function confirmDeliveryWhenSent({ deps, request }: ToolContext, answer: AssistedAnswer): void {
  if (answer.awaitsDelivery) request.afterAnswerSent?.(() => void deps.assisted.confirmDelivery(answer.queryId));
}

export const assistedSearchTool: ToolDefinition = {
  name: "assisted_search",
  cost: "billed",
  costNote: "only the verified rows delivered",
  description:
    "Answers a research question (up to 16,000 characters) with verified passages only. Bills only the " +
    "verified rows delivered (cap: `maxCost`); a clarification question or no result is free.",
  details:
    "Searches sub-questions over `collection` or `collections` and judges every candidate; each row carries a " +
    "judge score, matched terms and a rationale. To a clarification question, call again with `queryId` and " +
    "`answer`. Sends progress notifications while it runs (ask with a progressToken), each naming the queryId; " +
    "a run whose answer was lost is re-fetched free with get_results. `idempotency_key` makes a retry safe: " +
    "the same key and arguments return the first answer, charged once.",
  schemas: assistedSearchSchemas,
  run: async (ctx, args, call) => {
    const {
      deps,
      auth,
      request: { requestId },
    } = ctx;
    const onProgress = call?.progress
      ? (p: AssistedProgress, queryId: string) => call.progress!(progressMessage(p, queryId))
      : undefined;
    if (args && typeof args === "object" && "queryId" in args) {
      const body = parseOr422(assistedAnswerBody, args);
      const answer = await deps.assisted.resume(auth, body.queryId, body.answer, { onProgress });
      confirmDeliveryWhenSent(ctx, answer);
      return billedAnswer(auth, assistedResponse(answer, body.includeMetadata), answer.billing);
    }
    // idempotency_key: the REST twin's Idempotency-Key header, as an argument (an MCP client sets no header per call)
    const { idempotency_key: idempotencyKey, ...request } = objectArgs(args);
    const body = parseOr422(assistedBody, request);
    if (idempotencyKey !== undefined && typeof idempotencyKey !== "string")
      throw bad("idempotency_key: a string of 1 to 255 characters");
    const idempotency = idempotencyKey === undefined ? undefined : idempotencyRequest(idempotencyKey, request);
    const collections = requestedCollections(body);
    const answer = await deps.assisted.start(
      auth,
      {
        collections,
        query: body.query,
        limit: body.limit,
        filters: body.filters ?? null,
        allowClarification: body.allowClarification,
        ...(body.maxCost !== undefined ? { maxCostMicros: parseCredits(body.maxCost)! } : {}),
      },
      { requestId, onProgress, idempotency },
    );
    const rows = answer.rows.map((r) => r.row);
    const images = await searchFigureImages(rows, deps.figureImages, figureOptionsOf(body));
    confirmDeliveryWhenSent(ctx, answer);
    return {
      ...billedAnswer(auth, assistedResponse(answer, body.includeMetadata, images), answer.billing),
      ...(answer.idempotency ? { idempotency_status: answer.idempotency } : {}),
    };
  },
};
