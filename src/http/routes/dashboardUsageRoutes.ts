// /dashboard/usage and usage.csv: a date range's usage by collection and key, as a page and as CSV. The range's
// rules are the usage report's; a range it refuses is the page again with the reason and the form as typed (422) for
// a browser, or the error envelope for the CSV and for a script.
import { consoleRoutes, consolePage, consoleOp, csvDownload, type DashboardRoute } from "./dashboardDeclaration.js";
import type { Context } from "koa";
import { ApiError } from "../../wire/errors.js";
import { wantsHtml } from "../dashboardAccess.js";
import { parseOr422, usageRangeQuery } from "../../wire/schemas.js";
import { DEFAULT_USAGE_DAYS, parseUsageRange } from "../../usecases/dashboard/usageReport.js";
import type { ConsoleData } from "../../usecases/dashboard/consoleData.js";
import { usageCsv, usagePage } from "../dashboard/usagePage.js";
import type { DashboardHelpers } from "./dashboardAlertRoutes.js";

export function dashboardUsageRoutes(
  depsOf: () => { consoleData: ConsoleData; clock: () => Date },
  h: DashboardHelpers,
): DashboardRoute[] {
  const { routes, on } = consoleRoutes();
  const usageRange = (ctx: Context) => {
    const input = parseOr422(usageRangeQuery, ctx.query);
    return { input, parsed: parseUsageRange(input, depsOf().clock().toISOString().slice(0, 10)) };
  };
  on(
    consolePage(
      "/dashboard/usage",
      "dashboardUsage",
      "Usage: searches, tokens and spend per day and collection, last 30 days (SVG charts and a table)",
    ),
    h.memberPage(async (ctx, member) => {
      const { input, parsed } = usageRange(ctx);
      if (!parsed.ok && !wantsHtml(ctx)) throw new ApiError(422, "VALIDATION_ERROR", parsed.error);
      if (!parsed.ok) return h.page(ctx, usagePage(h.viewer(ctx), { error: parsed.error, input }), 422);
      const report = await depsOf().consoleData.usageReport(member.orgId, parsed.range);
      const quickDays = input.days ? Number(input.days) : input.from || input.to ? null : DEFAULT_USAGE_DAYS;
      h.page(ctx, usagePage(h.viewer(ctx), { report, input, quickDays }));
    }),
  );
  on(
    consoleOp("get", "/dashboard/usage.csv", "session", "dashboardUsageCsv", "Usage per day and collection as CSV", {
      response: csvDownload,
      errors: [401, 403, 429],
    }),
    h.memberPage(async (ctx, member) => {
      const { parsed } = usageRange(ctx);
      if (!parsed.ok) throw new ApiError(422, "VALIDATION_ERROR", parsed.error);
      const report = await depsOf().consoleData.usageReport(member.orgId, parsed.range);
      ctx.type = "text/csv; charset=utf-8";
      ctx.set("Content-Disposition", `attachment; filename="usage-${parsed.range.from}-${parsed.range.to}.csv"`);
      ctx.body = usageCsv(report);
    }),
  );
  return routes;
}
