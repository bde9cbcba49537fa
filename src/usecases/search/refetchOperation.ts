// Free re-fetch (GET /results/{queryId}): a record's rows through the unlock ledger, with images of unlocked preview
// rows when asked for.
import type { AuthContext } from "../auth/context.js";
import { cachedUntil } from "./queryCache.js";
import { renderFigureImages, type FigureImages, type ImageOptions } from "../figures/figureImages.js";
import { loadOwnRecord, unlockedFor, type RefetchOutcome, type SearchContext } from "./searchContext.js";

export async function refetch(
  ctx: SearchContext,
  auth: AuthContext,
  queryId: string,
  figures: ImageOptions | null,
): Promise<RefetchOutcome> {
  const record = await loadOwnRecord(ctx, auth, queryId);
  const unlocked = await unlockedFor(ctx, record);
  // a cached /query response keeps no figures: images apply to rows of a preview
  const images: FigureImages =
    figures && record.kind === "preview"
      ? await renderFigureImages(ctx.deps.figureImages, record.payload.rows, unlocked, [], figures)
      : new Map();
  return { record, unlocked, images, cachedUntil: cachedUntil(record.createdAt) };
}
