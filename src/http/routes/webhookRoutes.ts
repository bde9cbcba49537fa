// /api/v1/webhooks: an organization's webhook endpoints, their deliveries and attempts. Each route declared once: its
// handler (HTTP translation only) and its OpenAPI words.
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
import type { Members } from "../../usecases/members/members.js";
import type { AuthContext } from "../../usecases/auth/context.js";
import type { Actor } from "../../domain/events.js";
import { refuseSandbox } from "../../usecases/search/sandbox.js";
import { queryParameters } from "../openapi/operation.js";
import { declareRoute } from "../routeDeclaration.js";

export interface WebhookRouteDeps {
  webhooks: Webhooks;
  members: Pick<Members, "checkKeyMay">;
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

/**
 * A key that changes endpoints or the threshold: what its creator may do on the dashboard (a key a member who is not an
 * owner created is refused, 403), so minting a key gives a member no owner's power.
 */
async function managing(ctx: Context, deps: WebhookRouteDeps) {
  const called = caller(ctx);
  await deps.members.checkKeyMay(called.auth.key.id, "manageWebhooks");
  return called;
}

const route = declareRoute<WebhookRouteDeps>;
const webhookRoute = { tag: "webhooks", access: "apiKey" } as const;

export const WEBHOOK_ROUTES = [
  route({
    method: "post",
    path: "/api/v1/webhooks",
    ...webhookRoute,
    operationId: "createWebhookEndpoint",
    summary: "Register a webhook endpoint",
    description:
      "Live keys only. The URL must be https and its host must resolve to public addresses only (checked now " +
      "and before every attempt). The answer carries the signing secret, shown once. At most 16 endpoints per " +
      "organization. Changing endpoints and the low-balance threshold is an owner's: a key a member who is not " +
      "an owner created reads them and gets 403 FORBIDDEN for a change.",
    body: "WebhookEndpointRequest",
    status: 201,
    response: "WebhookEndpointWithSecret",
    errors: [401, 403, 409, 422, 429],
    handler: async (ctx, deps) => {
      const { auth, actor } = await managing(ctx, deps);
      const body = parseOr422(webhookEndpointBody, ctx.request.body);
      ctx.status = 201;
      ctx.body = await deps.webhooks.create(auth.org.id, body, actor, auth);
    },
  }),
  route({
    method: "get",
    path: "/api/v1/webhooks",
    ...webhookRoute,
    operationId: "listWebhookEndpoints",
    summary: "The organization's webhook endpoints",
    response: "WebhookEndpointList",
    errors: [401, 403],
    handler: async (ctx, deps) => {
      const { auth } = caller(ctx);
      ctx.body = { data: await deps.webhooks.list(auth.org.id) };
    },
  }),
  route({
    method: "get",
    path: "/api/v1/webhooks/:id",
    ...webhookRoute,
    operationId: "getWebhookEndpoint",
    summary: "One webhook endpoint",
    response: "WebhookEndpoint",
    errors: [401, 403, 404],
    handler: async (ctx, deps) => {
      const { auth } = caller(ctx);
      ctx.body = await deps.webhooks.get(auth.org.id, ctx.params.id!);
    },
  }),
  route({
    method: "delete",
    path: "/api/v1/webhooks/:id",
    ...webhookRoute,
    operationId: "deleteWebhookEndpoint",
    summary: "Delete a webhook endpoint",
    description: "Nothing more is sent to it; deliveries under way stop before their next attempt.",
    response: "WebhookEndpointDeleted",
    errors: [401, 403, 404],
    handler: async (ctx, deps) => {
      const { auth, actor } = await managing(ctx, deps);
      ctx.body = await deps.webhooks.remove(auth.org.id, ctx.params.id!, actor);
    },
  }),
  route({
    method: "post",
    path: "/api/v1/webhooks/:id/rotate-secret",
    ...webhookRoute,
    operationId: "rotateWebhookSecret",
    summary: "Rotate the signing secret",
    description:
      "The new secret is shown once. For 24 hours deliveries carry two signatures, one with each secret, so " +
      "the receiver can switch over.",
    response: "WebhookEndpointWithSecret",
    errors: [401, 403, 404, 409],
    handler: async (ctx, deps) => {
      const { auth, actor } = await managing(ctx, deps);
      ctx.body = await deps.webhooks.rotateSecret(auth.org.id, ctx.params.id!, actor);
    },
  }),
  route({
    method: "post",
    path: "/api/v1/webhooks/:id/test",
    ...webhookRoute,
    operationId: "testWebhookEndpoint",
    summary: "Send a test event",
    description:
      "A `webhook.test` event, whatever the endpoint subscribes to, delivered like any other (listed under its " +
      "deliveries).",
    status: 202,
    response: "WebhookEventQueued",
    errors: [401, 403, 404, 409, 429],
    handler: async (ctx, deps) => {
      const { auth, actor } = await managing(ctx, deps);
      ctx.status = 202;
      ctx.body = await deps.webhooks.sendTest(auth.org.id, ctx.params.id!, actor, auth);
    },
  }),
  route({
    method: "get",
    path: "/api/v1/webhooks/:id/deliveries",
    ...webhookRoute,
    operationId: "listWebhookDeliveries",
    summary: "Deliveries to an endpoint, newest first, with every attempt",
    query: queryParameters(webhookDeliveriesQuery),
    response: "WebhookDeliveryList",
    errors: [401, 403, 404, 422],
    handler: async (ctx, deps) => {
      const { auth } = caller(ctx);
      const { limit } = parseOr422(webhookDeliveriesQuery, ctx.query);
      ctx.body = { data: await deps.webhooks.deliveries(auth.org.id, ctx.params.id!, limit) };
    },
  }),
  route({
    method: "post",
    path: "/api/v1/webhooks/:id/deliveries/:eventId/redeliver",
    ...webhookRoute,
    operationId: "redeliverWebhookEvent",
    summary: "Send an ended delivery again",
    description: "A new series of attempts with the same `webhook-id` and body (receivers deduplicate by it).",
    status: 202,
    response: "WebhookEventQueued",
    errors: [401, 403, 404, 409, 429],
    handler: async (ctx, deps) => {
      const { auth, actor } = await managing(ctx, deps);
      ctx.status = 202;
      ctx.body = await deps.webhooks.redeliver(auth.org.id, ctx.params.id!, ctx.params.eventId!, actor, auth);
    },
  }),
  route({
    method: "get",
    path: "/api/v1/notifications",
    ...webhookRoute,
    operationId: "getNotificationSettings",
    summary: "What the organization is told about its account",
    response: "NotificationSettings",
    errors: [401, 403],
    handler: async (ctx, deps) => {
      const { auth } = caller(ctx);
      ctx.body = await deps.webhooks.notificationSettings(auth.org.id);
    },
  }),
  route({
    method: "put",
    path: "/api/v1/notifications",
    ...webhookRoute,
    operationId: "setNotificationSettings",
    summary: "Set the balance below which a `balance.low` webhook is sent",
    body: "NotificationSettingsRequest",
    response: "NotificationSettings",
    errors: [401, 403, 422],
    handler: async (ctx, deps) => {
      const { auth, actor } = await managing(ctx, deps);
      const body = parseOr422(notificationSettingsBody, ctx.request.body);
      ctx.body = await deps.webhooks.setNotificationSettings(
        auth.org.id,
        body.balanceLowThreshold === null ? null : parseCredits(body.balanceLowThreshold)!,
        actor,
      );
    },
  }),
];
