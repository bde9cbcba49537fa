// /api/v1/alerts: an organization's alerts on a saved search, shown with their runs. HTTP translation only.
import Router from "@koa/router";
import type { Context } from "koa";
import { alertBody, alertRunsQuery, parseOr422 } from "../../wire/schemas.js";
import { ALERTS_SANDBOX_REASON, type Alerts } from "../../usecases/alerts/alerts.js";
import { liveCaller } from "./webhookRoutes.js";

export interface AlertRouteDeps {
  alerts: Alerts;
}

/** Sandbox keys have no alerts. */
const caller = (ctx: Context) => liveCaller(ctx, "alerts", ALERTS_SANDBOX_REASON);

export function alertRoutes(deps: AlertRouteDeps): Router {
  const router = new Router({ prefix: "/api/v1", sensitive: true, strict: true });
  const { alerts } = deps;

  router.post("/alerts", async (ctx) => {
    const { auth, actor } = caller(ctx);
    const body = parseOr422(alertBody, ctx.request.body);
    ctx.status = 201;
    ctx.body = await alerts.create(auth, body, actor);
  });
  router.get("/alerts", async (ctx) => {
    const { auth } = caller(ctx);
    ctx.body = { data: await alerts.list(auth.org.id) };
  });
  router.get("/alerts/:id", async (ctx) => {
    const { auth } = caller(ctx);
    const { limit } = parseOr422(alertRunsQuery, ctx.query);
    ctx.body = await alerts.get(auth.org.id, ctx.params.id!, limit);
  });
  router.post("/alerts/:id/pause", async (ctx) => {
    const { auth, actor } = caller(ctx);
    ctx.body = await alerts.pause(auth.org.id, ctx.params.id!, actor);
  });
  router.post("/alerts/:id/resume", async (ctx) => {
    const { auth, actor } = caller(ctx);
    ctx.body = await alerts.resume(auth.org.id, ctx.params.id!, actor);
  });
  router.delete("/alerts/:id", async (ctx) => {
    const { auth, actor } = caller(ctx);
    ctx.body = await alerts.remove(auth.org.id, ctx.params.id!, actor);
  });
  return router;
}
