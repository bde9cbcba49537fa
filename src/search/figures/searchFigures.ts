// Figure images for a paid search's results (include_figures): every returned row is paid for, so each row's
// figures are rendered, within the per-call image budget the unlock path uses. Figures never enter the charge.
import type { CachedRow } from '../queryCache.js';
import { planFigureImages, renderPlannedImages, type FigureImageRenderer, type ImageOptions } from '../../unlock/figureImages.js';

/** row id -> figure id -> base64 JPEG, for the rows of one search response. */
export async function searchFigureImages(rows: CachedRow[], renderer: FigureImageRenderer | undefined, options: ImageOptions): Promise<Map<string, Map<string, string>>> {
  const plan = planFigureImages(rows, new Set(rows.map((row) => row.id)), []);
  return renderPlannedImages(renderer, rows, plan, options);
}
