// /api/v1/alerts: an organization's alerts on a saved search, shown with their runs. Each route declared once: its
// handler (HTTP translation only) and its OpenAPI words.
import type { Context } from "koa";
import { alertBody, alertRunsQuery, parseOr422 } from "../../wire/schemas.js";
import { ALERTS_SANDBOX_REASON, type Alerts } from "../../usecases/alerts/alerts.js";
import { DESCRIPTIONS } from "../openapi/descriptions.js";
import { queryParameters } from "../openapi/operation.js";
import { declareRoute } from "../routeDeclaration.js";
import { liveCaller } from "./webhookRoutes.js";

export interface AlertRouteDeps {
  alerts: Alerts;
}

/** Sandbox keys have no alerts. */
const caller = (ctx: Context) => liveCaller(ctx, "alerts", ALERTS_SANDBOX_REASON);

const route = declareRoute<AlertRouteDeps>;
const alertRoute = { tag: "webhooks", access: "apiKey" } as const;

export const ALERT_ROUTES = [
  route({
    method: "post",
    path: "/api/v1/alerts",
    ...alertRoute,
    operationId: "createAlert",
    summary: "Watch a saved search for new works",
    description: DESCRIPTIONS.createAlert,
    body: "AlertRequest",
    status: 201,
    response: "Alert",
    errors: [401, 403, 404, 409, 422, 429],
    handler: async (ctx, deps) => {
      const { auth, actor } = caller(ctx);
      const body = parseOr422(alertBody, ctx.request.body);
      ctx.status = 201;
      ctx.body = await deps.alerts.create(auth, body, actor);
    },
  }),
  route({
    method: "get",
    path: "/api/v1/alerts",
    ...alertRoute,
    operationId: "listAlerts",
    summary: "The organization's alerts",
    response: "AlertList",
    errors: [401, 403],
    handler: async (ctx, deps) => {
      const { auth } = caller(ctx);
      ctx.body = { data: await deps.alerts.list(auth.org.id) };
    },
  }),
  route({
    method: "get",
    path: "/api/v1/alerts/:id",
    ...alertRoute,
    operationId: "getAlert",
    summary: "One alert with its runs, newest first",
    query: queryParameters(alertRunsQuery),
    response: "AlertWithRuns",
    errors: [401, 403, 404, 422],
    handler: async (ctx, deps) => {
      const { auth } = caller(ctx);
      const { limit } = parseOr422(alertRunsQuery, ctx.query);
      ctx.body = await deps.alerts.get(auth.org.id, ctx.params.id!, limit);
    },
  }),
  route({
    method: "post",
    path: "/api/v1/alerts/:id/pause",
    ...alertRoute,
    operationId: "pauseAlert",
    summary: "Pause an alert",
    description: "No run starts while it is paused.",
    response: "Alert",
    errors: [401, 403, 404],
    handler: async (ctx, deps) => {
      const { auth, actor } = caller(ctx);
      ctx.body = await deps.alerts.pause(auth.org.id, ctx.params.id!, actor);
    },
  }),
  route({
    method: "post",
    path: "/api/v1/alerts/:id/resume",
    ...alertRoute,
    operationId: "resumeAlert",
    summary: "Resume a paused alert",
    response: "Alert",
    errors: [401, 403, 404],
    handler: async (ctx, deps) => {
      const { auth, actor } = caller(ctx);
      ctx.body = await deps.alerts.resume(auth.org.id, ctx.params.id!, actor);
    },
  }),
  route({
    method: "delete",
    path: "/api/v1/alerts/:id",
    ...alertRoute,
    operationId: "deleteAlert",
    summary: "Delete an alert",
    description: "No run starts from then on; a run already sent is still charged if it is delivered.",
    response: "AlertDeleted",
    errors: [401, 403, 404],
    handler: async (ctx, deps) => {
      const { auth, actor } = caller(ctx);
      ctx.body = await deps.alerts.remove(auth.org.id, ctx.params.id!, actor);
    },
  }),
];
