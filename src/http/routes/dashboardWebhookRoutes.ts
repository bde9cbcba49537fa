// /dashboard/webhooks: the organization's webhook endpoints for its members, the use case of /api/v1/webhooks with the
// member as actor. Every member reads them; registering, deleting, rotating a secret, sending a test or a delivery
// again and the low-balance threshold are an owner's (403). Registered on the signed-in dashboard router, so every
// action is behind the session and its CSRF check; an endpoint of another organization reads as not found.
import type Router from "@koa/router";
import type { Context } from "koa";
import { parseOr422, csrfOnlyForm, dashboardNotificationsForm, dashboardWebhookForm } from "../../wire/schemas.js";
import { wantsHtml } from "../dashboardAccess.js";
import { Rejection } from "../../domain/rejection.js";
import { assertMay, mayDo } from "../../domain/member.js";
import { parseCredits } from "../../domain/money.js";
import { actorOf } from "../../usecases/members/members.js";
import type { EndpointView } from "../../usecases/webhooks/webhooks.js";
import { webhookPage, webhooksPage } from "../dashboard/webhooksPages.js";
import type { FormInput } from "../dashboard/layout.js";
import {
  refusedOnPage,
  type DashboardHelpers,
  type DashboardNotificationDeps,
  type Member,
} from "./dashboardAlertRoutes.js";

export function registerDashboardWebhookRoutes(
  router: Router,
  depsOf: () => DashboardNotificationDeps,
  h: DashboardHelpers,
): void {
  const webhooks = () => depsOf().webhooks;
  const listPage = async (
    ctx: Context,
    member: Member,
    extra: { created?: EndpointView & { secret: string }; error?: string; input?: FormInput } = {},
    status = 200,
  ) => {
    const [endpoints, settings] = await Promise.all([
      webhooks().list(member.orgId),
      webhooks().notificationSettings(member.orgId),
    ]);
    h.page(
      ctx,
      webhooksPage(h.viewer(ctx), endpoints, {
        ...extra,
        canManage: mayDo(member, "manageWebhooks", member.orgId),
        balanceLowThreshold: settings.balanceLowThreshold,
      }),
      status,
    );
  };
  const endpointPage = async (ctx: Context, member: Member, rotated?: { id: string; secret: string }) =>
    h.page(
      ctx,
      webhookPage(
        h.viewer(ctx),
        await webhooks().get(member.orgId, ctx.params.endpointId!),
        await webhooks().deliveries(member.orgId, ctx.params.endpointId!),
        { canManage: mayDo(member, "manageWebhooks", member.orgId), rotated },
      ),
    );
  /** An owner's action: its CSRF-only body checked, refused (403) for other members. */
  const ownersOnly = (ctx: Context, member: Member) => {
    parseOr422(csrfOnlyForm, ctx.request.body);
    assertMay(member, "manageWebhooks", member.orgId);
  };
  const endpointPath = (ctx: Context) => `/dashboard/webhooks/${encodeURIComponent(ctx.params.endpointId!)}`;

  router.get(
    "/dashboard/webhooks",
    h.memberPage((ctx, member) => listPage(ctx, member)),
  );

  router.post(
    "/dashboard/webhooks",
    h.memberPage(async (ctx, member) => {
      assertMay(member, "manageWebhooks", member.orgId);
      const created = await refusedOnPage(
        ctx,
        () => {
          const form = parseOr422(dashboardWebhookForm, ctx.request.body);
          const events = form.events
            .split(",")
            .map((e) => e.trim())
            .filter(Boolean);
          if (events.length === 0)
            throw new Rejection("VALIDATION_ERROR", "events must name at least one event type", { field: "events" });
          return webhooks().create(
            member.orgId,
            { url: form.url, events, description: form.description || null },
            actorOf(member),
            "unmetered",
          );
        },
        (reason) => listPage(ctx, member, { error: reason, input: ctx.request.body as FormInput }, 422),
      );
      if (!created) return;
      // the secret goes out in this answer only: a page (never a redirect, whose URL would carry it) or JSON
      if (wantsHtml(ctx)) return listPage(ctx, member, { created }, 201);
      ctx.status = 201;
      ctx.body = created;
    }),
  );

  router.post(
    "/dashboard/notifications",
    h.memberPage(async (ctx, member) => {
      assertMay(member, "manageWebhooks", member.orgId);
      const saved = await refusedOnPage(
        ctx,
        () => {
          const form = parseOr422(dashboardNotificationsForm, ctx.request.body);
          const threshold = form.balanceLowThreshold === "" ? null : parseCredits(form.balanceLowThreshold)!;
          return webhooks().setNotificationSettings(member.orgId, threshold, actorOf(member));
        },
        (reason) => listPage(ctx, member, { error: reason, input: ctx.request.body as FormInput }, 422),
      );
      if (saved) h.done(ctx, "/dashboard/webhooks", saved);
    }),
  );

  router.get(
    "/dashboard/webhooks/:endpointId",
    h.memberPage((ctx, member) => endpointPage(ctx, member)),
  );

  router.post(
    "/dashboard/webhooks/:endpointId/rotate-secret",
    h.memberPage(async (ctx, member) => {
      ownersOnly(ctx, member);
      const rotated = await webhooks().rotateSecret(member.orgId, ctx.params.endpointId!, actorOf(member));
      // the new secret, like a new endpoint's, only in this answer
      if (wantsHtml(ctx)) return endpointPage(ctx, member, rotated);
      ctx.body = rotated;
    }),
  );

  router.post(
    "/dashboard/webhooks/:endpointId/test",
    h.memberPage(async (ctx, member) => {
      ownersOnly(ctx, member);
      const sent = await webhooks().sendTest(member.orgId, ctx.params.endpointId!, actorOf(member), "unmetered");
      h.done(ctx, endpointPath(ctx), sent, 202);
    }),
  );

  router.post(
    "/dashboard/webhooks/:endpointId/deliveries/:eventId/redeliver",
    h.memberPage(async (ctx, member) => {
      ownersOnly(ctx, member);
      const sent = await webhooks().redeliver(
        member.orgId,
        ctx.params.endpointId!,
        ctx.params.eventId!,
        actorOf(member),
        "unmetered",
      );
      h.done(ctx, endpointPath(ctx), sent, 202);
    }),
  );

  router.post(
    "/dashboard/webhooks/:endpointId/delete",
    h.memberPage(async (ctx, member) => {
      ownersOnly(ctx, member);
      h.done(
        ctx,
        "/dashboard/webhooks",
        await webhooks().remove(member.orgId, ctx.params.endpointId!, actorOf(member)),
      );
    }),
  );
}
