// /api/v1/webhooks: an organization's webhook endpoints, their deliveries and attempts. HTTP translation only.
import Router from "@koa/router";
import type { Context } from "koa";
import { ApiError } from "../../wire/errors.js";
import {
  parseOr422,
  notificationSettingsBody,
  webhookDeliveriesQuery,
  webhookEndpointBody,
} from "../../wire/schemas.js";
import { parseCredits } from "../../domain/money.js";
import type { RequestState } from "../requestContext.js";
import type { Webhooks } from "../../usecases/webhooks/webhooks.js";
import type { AuthContext } from "../../usecases/auth/context.js";
import type { Actor } from "../../domain/events.js";
import { refuseSandbox } from "../../usecases/search/sandbox.js";

export interface WebhookRouteDeps {
  webhooks: Webhooks;
}

/**
 * The live key calling a route of `useCase`, and the actor its changes are recorded under; a sandbox key is refused
 * with `reason` (the webhook and alert routes).
 */
export function liveCaller(ctx: Context, useCase: string, reason: string): { auth: AuthContext; actor: Actor } {
  const auth = (ctx.state as RequestState).auth;
  if (!auth) throw new ApiError(401, "UNAUTHORIZED", "missing API key");
  refuseSandbox(auth, useCase, reason);
  return { auth, actor: { kind: "key", id: auth.key.id } };
}

/** Sandbox keys manage no endpoints. */
const caller = (ctx: Context) => liveCaller(ctx, "webhooks", "a sandbox key reaches no live events to deliver");

export function webhookRoutes(deps: WebhookRouteDeps): Router {
  const router = new Router({ prefix: "/api/v1", sensitive: true, strict: true });
  const { webhooks } = deps;

  router.post("/webhooks", async (ctx) => {
    const { auth, actor } = caller(ctx);
    const body = parseOr422(webhookEndpointBody, ctx.request.body);
    ctx.status = 201;
    ctx.body = await webhooks.create(auth.org.id, body, actor, auth);
  });
  router.get("/webhooks", async (ctx) => {
    const { auth } = caller(ctx);
    ctx.body = { data: await webhooks.list(auth.org.id) };
  });
  router.get("/webhooks/:id", async (ctx) => {
    const { auth } = caller(ctx);
    ctx.body = await webhooks.get(auth.org.id, ctx.params.id!);
  });
  router.delete("/webhooks/:id", async (ctx) => {
    const { auth, actor } = caller(ctx);
    ctx.body = await webhooks.remove(auth.org.id, ctx.params.id!, actor);
  });
  router.post("/webhooks/:id/rotate-secret", async (ctx) => {
    const { auth, actor } = caller(ctx);
    ctx.body = await webhooks.rotateSecret(auth.org.id, ctx.params.id!, actor);
  });
  router.post("/webhooks/:id/test", async (ctx) => {
    const { auth, actor } = caller(ctx);
    ctx.status = 202;
    ctx.body = await webhooks.sendTest(auth.org.id, ctx.params.id!, actor, auth);
  });
  router.get("/webhooks/:id/deliveries", async (ctx) => {
    const { auth } = caller(ctx);
    const { limit } = parseOr422(webhookDeliveriesQuery, ctx.query);
    ctx.body = { data: await webhooks.deliveries(auth.org.id, ctx.params.id!, limit) };
  });
  router.post("/webhooks/:id/deliveries/:eventId/redeliver", async (ctx) => {
    const { auth, actor } = caller(ctx);
    ctx.status = 202;
    ctx.body = await webhooks.redeliver(auth.org.id, ctx.params.id!, ctx.params.eventId!, actor, auth);
  });
  router.get("/notifications", async (ctx) => {
    const { auth } = caller(ctx);
    ctx.body = await webhooks.notificationSettings(auth.org.id);
  });
  router.put("/notifications", async (ctx) => {
    const { auth, actor } = caller(ctx);
    const body = parseOr422(notificationSettingsBody, ctx.request.body);
    ctx.body = await webhooks.setNotificationSettings(
      auth.org.id,
      body.balanceLowThreshold === null ? null : parseCredits(body.balanceLowThreshold)!,
      actor,
    );
  });
  return router;
}
