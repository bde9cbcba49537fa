// Renders a stored figure image as a base64 JPEG within the caller's width, height and quality (sharp).
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import sharp from 'sharp';
import type { FigureRef } from '../port.js';

export interface FigureImageOptions {
  maxWidth: number;
  maxHeight: number;
  /** JPEG quality 1..100 */
  quality: number;
}

/** The physical collection holding a result row (its figures live under the figure root by collection). */
export interface FigureOwner {
  physical: string;
}

/** Scales the image to fit inside the bounds (keeping its aspect ratio, never enlarging) and encodes it as JPEG. */
export async function encodeFigureJpeg(image: Buffer, options: FigureImageOptions): Promise<Buffer> {
  return sharp(image)
    .rotate()
    .resize({ width: options.maxWidth, height: options.maxHeight, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: options.quality, mozjpeg: false })
    .toBuffer();
}

/**
 * Figure images are files under `<figureRoot>/<collection>/<figure.path>`; a figure without a path, or whose file is
 * missing, has no image (null), and a path may not leave its collection's directory.
 */
export function createJpegFigureRenderer(figureRoot: string) {
  return {
    async render(row: FigureOwner, figure: FigureRef, options: FigureImageOptions): Promise<string | null> {
      if (!figure.path) return null;
      const relative = normalize(figure.path);
      if (relative.startsWith('..') || relative.startsWith('/')) return null;
      let image: Buffer;
      try {
        image = await readFile(join(figureRoot, row.physical, relative));
      } catch {
        return null;
      }
      return (await encodeFigureJpeg(image, options)).toString('base64');
    },
  };
}
