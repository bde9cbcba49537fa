// Renders a stored figure image as a base64 JPEG within the caller's width, height and quality (sharp).
import { readFile } from "node:fs/promises";
import { isAbsolute, join, normalize } from "node:path";
import sharp from "sharp";
import type { FigureImageRenderer, ImageOptions } from "./figureImages.js";

/** Scales the image to fit inside the bounds (keeping its aspect ratio, never enlarging) and encodes it as JPEG. */
async function encodeFigureJpeg(image: Buffer, options: ImageOptions): Promise<Buffer> {
  return sharp(image)
    .rotate()
    .resize({ width: options.maxWidth, height: options.maxHeight, fit: "inside", withoutEnlargement: true })
    .flatten({ background: "#ffffff" })
    .jpeg({ quality: options.quality, mozjpeg: false })
    .toBuffer();
}

/** `path` inside `root`, or null when it is missing or would leave `root` ("../", absolute). */
function within(root: string, path: string | undefined): string | null {
  if (!path) return null;
  const relative = normalize(path);
  if (relative.startsWith("..") || isAbsolute(relative)) return null;
  return join(root, relative);
}

/**
 * Figure images are files: those the ingestion draws under `<figureRoot>/<collection>/<figure.path>`, those a source
 * ships (a JATS `<graphic>` beside its XML) under `<sourceRoot>/<figure.source>` (the data root). A figure without
 * either, or whose file is missing or no readable image, has no image (null), and no path may leave its root.
 */
export function createJpegFigureRenderer(figureRoot: string, sourceRoot?: string): FigureImageRenderer {
  return {
    async render(row, figure, options) {
      const file =
        figure.source !== undefined
          ? sourceRoot
            ? within(sourceRoot, figure.source)
            : null
          : within(join(figureRoot, row.physical), figure.path);
      if (!file) return null;
      try {
        return (await encodeFigureJpeg(await readFile(file), options)).toString("base64");
      } catch {
        // a missing file, or one that is no image sharp can read (a source ships what it ships): no image_data
        return null;
      }
    },
  };
}
