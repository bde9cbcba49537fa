// Figure images and the figures a response shows: the image options and their defaults, the port that renders one
// image (without a renderer, figures come back without image_data), which images a call returns (at most 50, the rows
// asked for first) and the response form of a row's figures.
import type { ChunkMetadata, FigureRef } from "../../retrieval/port.js";

/** What figures read of a result row (a query record's row has these and more). */
interface FigureRow {
  id: string;
  /** the physical collection holding the row */
  physical: string;
  metadata: ChunkMetadata;
}

const MAX_IMAGES_PER_CALL = 50;

export interface ImageOptions {
  maxWidth: number;
  maxHeight: number;
  /** JPEG quality 1..100 */
  quality: number;
}

/** What a request that asks for figures without image options gets (every endpoint taking them). */
export const DEFAULT_IMAGE_OPTIONS: ImageOptions = { maxWidth: 800, maxHeight: 600, quality: 75 };

/** Renders one figure of a row as base64 JPEG within the options; null when the image cannot be had. */
export interface FigureImageRenderer {
  /** `row.physical`: the physical collection holding the row, under which its figure files live */
  render(row: Pick<FigureRow, "physical">, figure: FigureRef, options: ImageOptions): Promise<string | null>;
}

/** row id -> figure id -> base64 image */
export type FigureImages = Map<string, Map<string, string>>;

const figuresOf = (row: FigureRow): FigureRef[] => (Array.isArray(row.metadata.figures) ? row.metadata.figures : []);

/**
 * Plans the image budget over the unlocked rows: first the rows in `priorityIds` (in that order), then the other
 * unlocked rows in result order; figures in their own order; stops at `budget` images. Locked rows get none.
 */
export function planFigureImages(
  rows: FigureRow[],
  unlocked: ReadonlySet<string>,
  priorityIds: readonly string[],
  budget = MAX_IMAGES_PER_CALL,
): Map<string, FigureRef[]> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const order: FigureRow[] = [];
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

/**
 * The images of one call (unlock or re-fetch): planned over the unlocked rows, then rendered; row id -> figure id ->
 * base64.
 */
export function renderFigureImages(
  renderer: FigureImageRenderer | undefined,
  rows: FigureRow[],
  unlocked: ReadonlySet<string>,
  priorityIds: readonly string[],
  options: ImageOptions,
): Promise<FigureImages> {
  return renderPlannedImages(renderer, rows, planFigureImages(rows, unlocked, priorityIds), options);
}

/** Renders the planned images. */
export async function renderPlannedImages(
  renderer: FigureImageRenderer | undefined,
  rows: FigureRow[],
  plan: Map<string, FigureRef[]>,
  options: ImageOptions,
): Promise<FigureImages> {
  const out: FigureImages = new Map();
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

/**
 * Images for a paid search's results when the request asked for figures (`options` not null; none otherwise): every
 * returned row is paid for, so each row's figures are rendered, within the same per-call budget as an unlock. Figures
 * never enter the charge.
 */
export async function searchFigureImages(
  rows: FigureRow[],
  renderer: FigureImageRenderer | undefined,
  options: ImageOptions | null,
): Promise<FigureImages | undefined> {
  if (options === null) return undefined;
  return renderPlannedImages(renderer, rows, planFigureImages(rows, new Set(rows.map((row) => row.id)), []), options);
}

/**
 * A row's figures as a response shows them: id, label, caption and image_data where one was rendered (never the stored
 * path).
 */
export function responseFigures(figures: readonly FigureRef[], images?: ReadonlyMap<string, string>) {
  return figures.map(({ id, label, caption }) => ({
    id,
    label,
    caption,
    ...(images?.has(id) ? { image_data: images.get(id) } : {}),
  }));
}

/** A row's metadata with its figures in response form when `showFigures`, else without them. */
export function metadataWithFigures(
  metadata: ChunkMetadata,
  showFigures: boolean,
  images?: ReadonlyMap<string, string>,
) {
  // author_id is the filter's index of the authorships' ids: the row shows the authorships themselves
  const { figures, author_id, ...rest } = metadata;
  return showFigures && Array.isArray(figures) ? { ...rest, figures: responseFigures(figures, images) } : rest;
}
