// /dashboard/queries and /dashboard/works: the organization's recent searches and previews (filtered), one query's rows
// owned or locked with "unlock selected" through the playground's quote, confirmation and unlock (the same use case,
// so the same ledger, caps and limits), and a work's page with its references and citing works, read as one of the
// member's keys through the works use cases of GET /api/v1/works/…. Registered on the signed-in dashboard router:
// every post is behind the session and its CSRF check.
import type Router from "@koa/router";
import type { Context } from "koa";
import {
  parseOr422,
  queriesQuery,
  dashboardExportQuery,
  dashboardPlaygroundUnlockForm,
  dashboardWorkQuery,
  dashboardWorkExportQuery,
} from "../../wire/schemas.js";
import { toApiError } from "../../wire/errors.js";
import { wantsHtml } from "../dashboardAccess.js";
import { formatCredits, parseCredits } from "../../domain/money.js";
import { Rejection } from "../../domain/rejection.js";
import type { ConsoleData } from "../../usecases/dashboard/consoleData.js";
import type { Works } from "../../usecases/works/works.js";
import type { Playground } from "../../usecases/playground/playground.js";
import { selectedRowIds } from "../../usecases/playground/playgroundRules.js";
import { isNoFilter, NO_FILTER, queryFilterOf, type QueryFilter } from "../../usecases/dashboard/recentQueryRules.js";
import { queriesPage, queryRowsPage, workPage } from "../dashboard/pages.js";
import { sendExport } from "./exportResponse.js";
import type { DashboardHelpers, Member } from "./dashboardAlertRoutes.js";

export interface DashboardQueryDeps {
  consoleData: ConsoleData;
  works: Pick<Works, "exportRows">;
  playground: Playground;
  clock: () => Date;
}

export function registerDashboardQueryRoutes(
  router: Router,
  depsOf: () => DashboardQueryDeps,
  h: DashboardHelpers & { baseUrl: (ctx: Context) => string },
): void {
  router.get(
    "/dashboard/queries",
    h.memberPage(async (ctx, member) => {
      const { queryId, ...form } = parseOr422(queriesQuery, ctx.query);
      const { consoleData, clock } = depsOf();
      let filter: QueryFilter = NO_FILTER;
      let error: string | undefined;
      try {
        filter = queryFilterOf(form);
      } catch (err) {
        if (!(err instanceof Rejection)) throw err;
        error = err.message;
      }
      const [queries, keys] = await Promise.all([
        error ? [] : consoleData.recentQueries(member.orgId, { queryId, filter }),
        consoleData.keys(member.orgId),
      ]);
      if (error && !wantsHtml(ctx)) throw new Rejection("VALIDATION_ERROR", error);
      const view = { queries, baseUrl: h.baseUrl(ctx), now: clock(), oneQuery: queryId, keys, form, error };
      h.page(ctx, queriesPage(h.viewer(ctx), { ...view, filtered: !isNoFilter(filter) }), error ? 422 : 200);
    }),
  );

  router.get(
    "/dashboard/queries/:queryId/export",
    h.memberPage(async (ctx, member) => {
      const { format } = parseOr422(dashboardExportQuery, ctx.query);
      const { consoleData, works } = depsOf();
      const rows = await consoleData.queryRows(member.orgId, ctx.params.queryId!);
      sendExport(ctx, format, await works.exportRows(rows), `results-${ctx.params.queryId}`);
    }),
  );

  /** One query's page with whatever the request led to. */
  const showQuery = async (
    ctx: Context,
    member: Member,
    extra: Omit<Parameters<typeof queryRowsPage>[1], "opened" | "keys"> = {},
    status = 200,
  ) => {
    const { playground, consoleData } = depsOf();
    const [opened, keys] = await Promise.all([
      playground.opened(member, ctx.params.queryId!),
      consoleData.keys(member.orgId),
    ]);
    h.page(ctx, queryRowsPage(h.viewer(ctx), { opened, keys, ...extra }), status);
  };

  router.get(
    "/dashboard/queries/:queryId",
    h.memberPage(async (ctx, member) => {
      if (wantsHtml(ctx)) return showQuery(ctx, member);
      const opened = await depsOf().playground.opened(member, ctx.params.queryId!);
      ctx.body = {
        queryId: opened.queryId,
        kind: opened.kind,
        rows: opened.rows.map((r) => ({ id: r.id, owned: opened.unlocked.has(r.id) })),
      };
    }),
  );

  router.post(
    "/dashboard/queries/:queryId/unlock",
    h.memberPage(async (ctx, member) => {
      const form = parseOr422(dashboardPlaygroundUnlockForm, ctx.request.body);
      const queryId = ctx.params.queryId!;
      if (form.queryId !== queryId)
        throw new Rejection("VALIDATION_ERROR", "queryId: the form's query is not this page's; open the page again");
      const selected = selectedRowIds(form as Record<string, string | undefined>);
      const playground = depsOf().playground;
      try {
        if (form.confirm === undefined) {
          // the first step: what the ticked rows cost, before anything is charged
          const quoted = await playground.quote(member, form.key, queryId, selected);
          if (wantsHtml(ctx)) return showQuery(ctx, member, { quote: { selected, quote: quoted.quote } });
          ctx.body = { queryId, cost: formatCredits(quoted.quote.costMicros), rows: quoted.quote.toBuy };
          return;
        }
        const confirmed = parseCredits(form.confirm);
        if (confirmed === null)
          throw new Rejection(
            "VALIDATION_ERROR",
            "confirm: the cost you confirmed, in credits (as the page showed it)",
          );
        const { outcome } = await playground.unlock(member, form.key, queryId, selected, confirmed);
        if (wantsHtml(ctx))
          return showQuery(ctx, member, {
            unlocked: {
              count: outcome.newlyUnlockedCount,
              chargedMicros: outcome.costChargedMicros,
              balanceMicros: outcome.billing.balanceMicros,
            },
          });
        ctx.body = {
          queryId,
          unlocked: [...outcome.unlocked],
          costCharged: formatCredits(outcome.costChargedMicros),
          creditsRemaining: formatCredits(outcome.billing.balanceMicros),
        };
      } catch (err) {
        // a refusal (a key the member may not use, a cap, a balance short): the page again with its reason
        const refused = toApiError(err);
        if (!refused || refused.status >= 500 || !wantsHtml(ctx)) throw err;
        await showQuery(ctx, member, { error: refused.message }, refused.status);
      }
    }),
  );

  router.get(
    "/dashboard/works",
    h.memberPage(async (ctx, member) => {
      const { id, key } = parseOr422(dashboardWorkQuery, ctx.query);
      const view = await depsOf().playground.work(member, key, id);
      if (wantsHtml(ctx)) return h.page(ctx, workPage(h.viewer(ctx), view));
      ctx.body = { key: view.keyId, work: view.work };
    }),
  );

  router.get(
    "/dashboard/works/export",
    h.memberPage(async (ctx, member) => {
      const { id, key, format } = parseOr422(dashboardWorkExportQuery, ctx.query);
      sendExport(ctx, format, await depsOf().playground.workExport(member, key, id), "work");
    }),
  );
}
