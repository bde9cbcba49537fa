// Renders a stored figure image as a base64 JPEG within the caller's width, height and quality (sharp).
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import sharp from 'sharp';
import type { FigureImageRenderer, ImageOptions } from './figureImages.js';

/** Scales the image to fit inside the bounds (keeping its aspect ratio, never enlarging) and encodes it as JPEG. */
async function encodeFigureJpeg(image: Buffer, options: ImageOptions): Promise<Buffer> {
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
export function createJpegFigureRenderer(figureRoot: string): FigureImageRenderer {
  return {
    async render(row, figure, options) {
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
