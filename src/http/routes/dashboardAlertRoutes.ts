// /dashboard/alerts: the organization's alerts for its members (list, create, show with runs, pause, resume, delete),
// the use case of /api/v1/alerts with the member as actor. Declared in the signed-in console group, so every
// action is behind the session and its CSRF check; an alert of another organization reads as not found.
import { mayUseKey } from "../../usecases/playground/playgroundRules.js";
import { consoleRoutes, consolePage, consoleForm, type DashboardRoute } from "./dashboardDeclaration.js";
import type { Context } from "koa";
import { parseOr422, csrfOnlyForm, dashboardAlertForm } from "../../wire/schemas.js";
import { toApiError } from "../../wire/errors.js";
import { wantsHtml } from "../dashboardAccess.js";
import { Rejection } from "../../domain/rejection.js";
import type { Principal } from "../../domain/member.js";
import { actorOf } from "../../usecases/members/members.js";
import type { Alerts } from "../../usecases/alerts/alerts.js";
import type { AlertRequest } from "../../usecases/alerts/alertRules.js";
import type { ConsoleData } from "../../usecases/dashboard/consoleData.js";
import type { Webhooks } from "../../usecases/webhooks/webhooks.js";
import type { Html } from "../dashboard/html.js";
import type { FormInput, Viewer } from "../dashboard/pages.js";
import { alertPage, alertsPage, type AlertFormChoices } from "../dashboard/alertsPages.js";
import type { z } from "zod";

export type Member = Extract<Principal, { kind: "member" }>;

/** What the alert and webhook pages use. */
export interface DashboardNotificationDeps {
  alerts: Alerts;
  webhooks: Webhooks;
  consoleData: ConsoleData;
}

/** What the dashboard's router lends these routes: its viewer, member-only pages, page and form answers. */
export interface DashboardHelpers {
  viewer: (ctx: Context) => Viewer;
  memberPage: (handler: (ctx: Context, member: Member) => Promise<void>) => (ctx: Context) => Promise<void>;
  page: (ctx: Context, body: Html, status?: number) => void;
  done: (ctx: Context, location: string, json: unknown, status?: number) => void;
}

/**
 * What a form's action made; when it is refused with a 422 and a browser sent it, `again` shows the form's page
 * with the reason (undefined then); a script gets the error envelope.
 */
export async function refusedOnPage<T>(
  ctx: Context,
  action: () => Promise<T>,
  again: (reason: string) => Promise<void>,
): Promise<T | undefined> {
  try {
    return await action();
  } catch (err) {
    const refused = toApiError(err);
    if ((refused?.status !== 422 && refused?.status !== 409) || !wantsHtml(ctx)) throw err;
    await again(refused.message);
    return undefined;
  }
}

/** The form's text fields as the alert rules take them (a number field that is not one is left for them to refuse). */
function alertRequestOfForm(form: z.output<typeof dashboardAlertForm>): AlertRequest {
  const relevance = form.min_relevance?.trim() ?? "";
  return {
    query: form.query,
    collections: form.collections
      .split(",")
      .map((c) => c.trim())
      .filter(Boolean),
    schedule: form.schedule || undefined,
    min_relevance: relevance === "" ? undefined : Number.isFinite(Number(relevance)) ? Number(relevance) : relevance,
    max_cost_per_run: form.max_cost_per_run?.trim() || undefined,
    webhook: form.webhook || undefined,
  };
}

export function dashboardAlertRoutes(depsOf: () => DashboardNotificationDeps, h: DashboardHelpers): DashboardRoute[] {
  const { routes, on } = consoleRoutes();
  /** The live keys a member may pay runs with: an owner any, a member those they created. */
  const choicesOf = async (member: Member): Promise<AlertFormChoices> => {
    const deps = depsOf();
    const [keys, webhooks] = await Promise.all([deps.consoleData.keys(member.orgId), deps.webhooks.list(member.orgId)]);
    return {
      keys: keys
        .filter((k) => k.mode === "live" && mayUseKey(member, k))
        .map((k) => ({ id: k.id, label: `${k.name ?? "unnamed"} (${k.prefix}…)` })),
      webhooks: webhooks.map((w) => ({ id: w.id, url: w.url, enabled: w.status === "enabled" })),
    };
  };
  /** The alerts page; after a refusal, with the reason and the form as it was sent. */
  const listPage = async (ctx: Context, member: Member, error?: string, status = 200) => {
    const input = error ? (ctx.request.body as FormInput) : undefined;
    const choices = await choicesOf(member);
    h.page(ctx, alertsPage(h.viewer(ctx), await depsOf().alerts.list(member.orgId), choices, { error, input }), status);
  };

  on(
    consolePage("/dashboard/alerts", "dashboardAlerts", "The organization's alerts, with the form that creates one"),
    h.memberPage((ctx, member) => listPage(ctx, member)),
  );

  on(
    consoleForm(
      "/dashboard/alerts",
      "dashboardCreateAlert",
      "Create an alert paid by one of the organization's live keys",
      "DashboardAlertForm",
      "Alert",
      "The fields of POST /api/v1/alerts as form text (collections comma-separated) and `key`, the live key that " +
        "pays its runs: an owner may choose any live key of the organization, a member the keys they created " +
        "(422 otherwise). Takes one request of the organization's per-minute budget, as the API's creation does. " +
        "A browser is redirected to the alert's page.",
      201,
    ),
    h.memberPage(async (ctx, member) => {
      const created = await refusedOnPage(
        ctx,
        async () => {
          const form = parseOr422(dashboardAlertForm, ctx.request.body);
          if (!(await choicesOf(member)).keys.some((k) => k.id === form.key))
            throw new Rejection(
              "VALIDATION_ERROR",
              "key: choose one of your live keys to pay for the alert's runs (owners may choose any live key)",
              { field: "key" },
            );
          return depsOf().alerts.createForKey(member.orgId, form.key, alertRequestOfForm(form), actorOf(member));
        },
        (reason) => listPage(ctx, member, reason, 422),
      );
      if (!created) return;
      h.done(ctx, `/dashboard/alerts/${encodeURIComponent(created.id)}`, created, 201);
    }),
  );

  on(
    consolePage(
      "/dashboard/alerts/:alertId",
      "dashboardAlert",
      "An alert with its runs: status, works delivered, charge, queryId",
    ),
    h.memberPage(async (ctx, member) => {
      h.page(ctx, alertPage(h.viewer(ctx), await depsOf().alerts.get(member.orgId, ctx.params.alertId!)));
    }),
  );

  const WORDS = {
    pause: consoleForm(
      "/dashboard/alerts/:alertId/pause",
      "dashboardPauseAlert",
      "Pause an alert",
      "CsrfOnlyForm",
      "Alert",
      "Any member; an alert of another organization is 404.",
    ),
    resume: consoleForm(
      "/dashboard/alerts/:alertId/resume",
      "dashboardResumeAlert",
      "Resume a paused alert",
      "CsrfOnlyForm",
      "Alert",
      "Any member; an alert of another organization is 404.",
    ),
  };
  for (const action of ["pause", "resume"] as const) {
    on(
      WORDS[action],
      h.memberPage(async (ctx, member) => {
        parseOr422(csrfOnlyForm, ctx.request.body);
        const alert = await depsOf().alerts[action](member.orgId, ctx.params.alertId!, actorOf(member));
        h.done(ctx, `/dashboard/alerts/${encodeURIComponent(alert.id)}`, alert);
      }),
    );
  }

  on(
    consoleForm(
      "/dashboard/alerts/:alertId/delete",
      "dashboardDeleteAlert",
      "Delete an alert",
      "CsrfOnlyForm",
      "AlertDeleted",
      "Any member; its schedule goes with it and its runs stay in the ledger. An alert of another organization is 404.",
    ),
    h.memberPage(async (ctx, member) => {
      parseOr422(csrfOnlyForm, ctx.request.body);
      const removed = await depsOf().alerts.remove(member.orgId, ctx.params.alertId!, actorOf(member));
      h.done(ctx, "/dashboard/alerts", removed);
    }),
  );
  return routes;
}
