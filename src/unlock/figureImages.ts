// Which figure images an unlock or re-fetch returns: at most 50 per call, the rows asked for first; and the port
// that renders one image (the renderer lives with the figures; without one, figures come back without image_data).
import type { CachedRow } from '../search/queryCache.js';
import type { FigureRef } from '../search/port.js';

export const MAX_IMAGES_PER_CALL = 50;

export interface ImageOptions {
  maxWidth: number;
  maxHeight: number;
  quality: number;
}

export const DEFAULT_IMAGE_OPTIONS: ImageOptions = { maxWidth: 800, maxHeight: 600, quality: 75 };

/** Renders one figure of a row as base64 JPEG within the options; null when the image cannot be had. */
export interface FigureImageRenderer {
  render(row: CachedRow, figure: FigureRef, options: ImageOptions): Promise<string | null>;
}

const figuresOf = (row: CachedRow): FigureRef[] => (Array.isArray(row.metadata.figures) ? row.metadata.figures : []);

/**
 * Plans the image budget over the unlocked rows: first the rows in `priorityIds` (in that order), then the other
 * unlocked rows in result order; figures in their own order; stops at `budget` images. Locked rows get none.
 */
export function planFigureImages(rows: CachedRow[], unlocked: ReadonlySet<string>, priorityIds: readonly string[], budget = MAX_IMAGES_PER_CALL): Map<string, FigureRef[]> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const order: CachedRow[] = [];
  const seen = new Set<string>();
  for (const id of [...priorityIds, ...rows.map((r) => r.id)]) {
    const row = byId.get(id);
    if (!row || seen.has(id) || !unlocked.has(id)) continue;
    seen.add(id);
    order.push(row);
  }
  const plan = new Map<string, FigureRef[]>();
  let left = budget;
  for (const row of order) {
    if (left <= 0) break;
    const figures = figuresOf(row).slice(0, left);
    if (figures.length === 0) continue;
    plan.set(row.id, figures);
    left -= figures.length;
  }
  return plan;
}

/** The images of one call (unlock or re-fetch): planned over the unlocked rows, then rendered; row id -> figure id -> base64. */
export function renderFigureImages(renderer: FigureImageRenderer | undefined, rows: CachedRow[], unlocked: ReadonlySet<string>, priorityIds: readonly string[], options: ImageOptions): Promise<Map<string, Map<string, string>>> {
  return renderPlannedImages(renderer, rows, planFigureImages(rows, unlocked, priorityIds), options);
}

/** Renders the planned images: row id -> figure id -> base64 image. */
export async function renderPlannedImages(renderer: FigureImageRenderer | undefined, rows: CachedRow[], plan: Map<string, FigureRef[]>, options: ImageOptions): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  if (!renderer) return out;
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const [rowId, figures] of plan) {
    const row = byId.get(rowId)!;
    const images = new Map<string, string>();
    for (const f of figures) {
      const data = await renderer.render(row, f, options);
      if (data !== null) images.set(f.id, data);
    }
    out.set(rowId, images);
  }
  return out;
}
