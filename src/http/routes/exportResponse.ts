// Answers an export: the file in the asked format, with its content type and a download name.
import type { Context } from "koa";
import {
  EXPORT_CONTENT_TYPES,
  EXPORT_EXTENSIONS,
  exportWorks,
  type ExportFormat,
  type ExportWork,
} from "../../usecases/works/citationExport.js";

export function sendExport(ctx: Context, format: ExportFormat, entries: readonly ExportWork[], name: string): void {
  ctx.set("Content-Type", EXPORT_CONTENT_TYPES[format]);
  ctx.set(
    "Content-Disposition",
    `attachment; filename="${name.replace(/[^A-Za-z0-9_.-]/g, "_")}.${EXPORT_EXTENSIONS[format]}"`,
  );
  ctx.body = exportWorks(format, entries);
}
