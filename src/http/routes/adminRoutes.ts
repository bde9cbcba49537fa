// /admin/v1: the operator API. Paths and shapes are fixed; other tools depend on them. Its access (the operator token)
// is declared where the groups are mounted (app.ts), so it applies to whatever this router matches.
import { ApiError } from "../../wire/errors.js";
import Router from "@koa/router";
import {
  parseOr422,
  organizationBody,
  organizationListQuery,
  creditsBody,
  keyBody,
  limitsBody,
  billingSettingsBody,
  priceBody,
  refundBody,
  reconciliationQuery,
  suspendBody,
  spendingCapBody,
  inviteBody,
  retractionsBody,
  collectionBody,
  collectionChangeBody,
  metaCollectionBody,
  ingestBody,
  webhookEndpointBody,
  webhookDeliveriesQuery,
  alertRunsQuery,
} from "../../wire/schemas.js";
import { ledgerCsv } from "../../usecases/operator/ledgerCsv.js";
import { organizationListView, type Operations } from "../../usecases/operator/operations.js";
import { requestBaseUrl, type RequestState } from "../requestContext.js";

/** The requests whose body is a file streamed to disk, not JSON: the JSON body reader leaves them to their route. */
export const streamsBody = (ctx: { method: string; path: string }): boolean =>
  ctx.method === "PUT" && ctx.path.startsWith("/admin/v1/uploads/");

/** Organizations: their settings, money (credits, refunds, prices) and books (balance, ledger). */
function organizationRoutes(router: Router, ops: Operations): void {
  router.post("/organizations", async (ctx) => {
    const body = parseOr422(organizationBody, ctx.request.body);
    ctx.status = 201;
    ctx.body = await ops.createOrganization(body);
  });
  router.get("/organizations", async (ctx) => {
    ctx.body = organizationListView(await ops.listOrganizations(parseOr422(organizationListQuery, ctx.query)));
  });
  router.get("/organizations/:orgId", async (ctx) => {
    ctx.body = await ops.getOrganization(ctx.params.orgId!);
  });
  router.post("/organizations/:orgId/credits", async (ctx) => {
    const body = parseOr422(creditsBody, ctx.request.body);
    ctx.body = await ops.addCredits(ctx.params.orgId!, body.amount, body.reference);
  });
  router.post("/organizations/:orgId/refunds", async (ctx) => {
    const body = parseOr422(refundBody, ctx.request.body);
    ctx.body = await ops.issueRefund(ctx.params.orgId!, body.amount, body.reference, body.queryId);
  });
  router.post("/organizations/:orgId/billing", async (ctx) => {
    ctx.body = await ops.changeBillingSettings(ctx.params.orgId!, parseOr422(billingSettingsBody, ctx.request.body));
  });
  router.get("/organizations/:orgId/prices", async (ctx) => {
    ctx.body = await ops.prices(ctx.params.orgId!);
  });
  router.put("/organizations/:orgId/prices/:collection", async (ctx) => {
    const body = parseOr422(priceBody, ctx.request.body);
    ctx.body = await ops.setPrice(ctx.params.orgId!, ctx.params.collection!, body.pricePer1000);
  });
  router.delete("/organizations/:orgId/prices/:collection", async (ctx) => {
    ctx.body = await ops.setPrice(ctx.params.orgId!, ctx.params.collection!, null);
  });
  router.post("/organizations/:orgId/limits", async (ctx) => {
    ctx.body = await ops.changeLimits(ctx.params.orgId!, parseOr422(limitsBody, ctx.request.body));
  });
  router.post("/organizations/:orgId/suspend", async (ctx) => {
    const body = parseOr422(suspendBody, ctx.request.body);
    ctx.body = await ops.setSuspended(ctx.params.orgId!, true, body.reason);
  });
  router.post("/organizations/:orgId/resume", async (ctx) => {
    ctx.body = await ops.setSuspended(ctx.params.orgId!, false);
  });
  router.get("/organizations/:orgId/balance", async (ctx) => {
    ctx.body = await ops.balance(ctx.params.orgId!);
  });
  router.get("/organizations/:orgId/ledger", async (ctx) => {
    const q = parseOr422(reconciliationQuery, ctx.query);
    const ledger = await ops.ledger(ctx.params.orgId!);
    if (q.format === "csv") {
      ctx.type = "text/csv; charset=utf-8";
      ctx.body = ledgerCsv(ledger.entries);
    } else ctx.body = ledger;
  });
  router.get("/organizations/:orgId/ledger.csv", async (ctx) => {
    ctx.type = "text/csv; charset=utf-8";
    ctx.body = ledgerCsv((await ops.ledger(ctx.params.orgId!)).entries);
  });
}

/** API keys and the people of an organization (invites, members). `publicUrl`: see adminRoutes. */
function keyAndMemberRoutes(router: Router, ops: Operations, publicUrl?: string): void {
  router.get("/keys/:keyId", async (ctx) => {
    ctx.body = await ops.getKey(ctx.params.keyId!);
  });
  router.post("/organizations/:orgId/keys", async (ctx) => {
    const body = parseOr422(keyBody, ctx.request.body);
    ctx.status = 201;
    ctx.body = await ops.createKey(ctx.params.orgId!, body);
  });
  router.post("/keys/:keyId/revoke", async (ctx) => {
    ctx.body = await ops.revokeKey(ctx.params.keyId!);
  });
  router.post("/keys/:keyId/spending-cap", async (ctx) => {
    const body = parseOr422(spendingCapBody, ctx.request.body);
    ctx.body = await ops.setSpendingCap(ctx.params.keyId!, body.spendingCap);
  });
  router.post("/organizations/:orgId/invites", async (ctx) => {
    const body = parseOr422(inviteBody, ctx.request.body);
    ctx.status = 201;
    ctx.body = await ops.inviteMember(ctx.params.orgId!, body, publicUrl ?? requestBaseUrl(ctx));
  });
  router.get("/organizations/:orgId/members", async (ctx) => {
    ctx.body = await ops.members(ctx.params.orgId!);
  });
  router.post("/organizations/:orgId/invites/:inviteId/cancel", async (ctx) => {
    ctx.body = await ops.cancelInvite(ctx.params.orgId!, ctx.params.inviteId!);
  });
  router.post("/organizations/:orgId/members/:memberId/remove", async (ctx) => {
    ctx.body = await ops.removeMember(ctx.params.orgId!, ctx.params.memberId!);
  });
}

/** Checks of the books and the log (reconciliation, replay, hash chain), journal requests and retractions. */
function auditRoutes(router: Router, ops: Operations): void {
  router.get("/organizations/:orgId/reconciliation", async (ctx) => {
    const q = parseOr422(reconciliationQuery, ctx.query);
    ctx.body = await ops.reconcile(ctx.params.orgId!, q.from, q.to);
  });
  router.get("/reconciliation", async (ctx) => {
    const q = parseOr422(reconciliationQuery, ctx.query);
    ctx.body = await ops.reconcileAll(q.from, q.to);
  });
  // a divergence or a broken chain is a finding, reported in the envelope: the report or verdict is its details
  router.post("/replay", async (ctx) => {
    const report = await ops.replay();
    if (!report.equal)
      throw new ApiError(
        409,
        "CONFLICT",
        "the projections rebuilt from the event log differ from the live ones; error.details is the replay report",
        { ...report },
      );
    ctx.body = report;
  });
  router.get("/journal-requests", async (ctx) => {
    ctx.body = await ops.journalRequests();
  });
  router.post("/retractions", async (ctx) => {
    const body = parseOr422(retractionsBody, ctx.request.body);
    ctx.body = await ops.loadRetractions(body.files);
  });
  router.get("/verify", async (ctx) => {
    const verdict = await ops.verify();
    if (!verdict.ok)
      throw new ApiError(
        409,
        "CONFLICT",
        `the hash chain breaks at position ${verdict.firstBadPosition}; error.details is the verdict`,
        { ...verdict },
      );
    ctx.body = verdict;
  });
}

/** Collections and meta-collections, their ingestions and the uploads they read. */
function collectionRoutes(router: Router, ops: Operations): void {
  router.get("/collections", async (ctx) => {
    ctx.body = await ops.listCollections();
  });
  router.post("/collections", async (ctx) => {
    const body = parseOr422(collectionBody, ctx.request.body);
    const defined = await ops.defineCollection(body);
    ctx.status = 201;
    ctx.body = defined;
  });
  router.patch("/collections/:name", async (ctx) => {
    ctx.body = await ops.changeCollection(ctx.params.name!, parseOr422(collectionChangeBody, ctx.request.body));
  });
  router.delete("/collections/:name", async (ctx) => {
    ctx.body = await ops.retireCollection(ctx.params.name!);
  });
  router.put("/meta-collections/:metaCollection", async (ctx) => {
    const { metaCollection, created } = await ops.defineMetaCollection(
      ctx.params.metaCollection!,
      parseOr422(metaCollectionBody, ctx.request.body),
    );
    ctx.status = created ? 201 : 200;
    ctx.body = metaCollection;
  });
  router.post("/collections/:name/ingest", async (ctx) => {
    const body = parseOr422(ingestBody, ctx.request.body);
    ctx.status = 202;
    ctx.body = await ops.ingestCollection(ctx.params.name!, body, (ctx.state as RequestState).requestId);
  });
  // the body is the file itself, streamed to disk (the JSON body reader passes this route by: streamsBody)
  router.put("/uploads/:name", async (ctx) => {
    const declared = ctx.get("Content-Length");
    const stored = await ops.upload(ctx.params.name!, ctx.req, declared ? Number(declared) : undefined);
    ctx.status = stored.created ? 201 : 200;
    const { created: _created, ...body } = stored;
    ctx.body = body;
  });
  router.post("/ingestions/:ingestionId/cancel", async (ctx) => {
    ctx.body = await ops.cancelIngestion(ctx.params.ingestionId!);
  });
  router.get("/ingestions/:ingestionId", async (ctx) => {
    ctx.body = await ops.ingestion(ctx.params.ingestionId!);
  });
}

/** An organization's webhook endpoints and alerts, for any organization (docs/webhooks.md). */
function organizationFeatureRoutes(router: Router, ops: Operations): void {
  // an organization's webhook endpoints: the members' actions (docs/webhooks.md), for any organization
  router.get("/organizations/:orgId/webhooks", async (ctx) => {
    ctx.body = await ops.listWebhooks(ctx.params.orgId!);
  });
  router.post("/organizations/:orgId/webhooks", async (ctx) => {
    const body = parseOr422(webhookEndpointBody, ctx.request.body);
    ctx.status = 201;
    ctx.body = await ops.createWebhook(ctx.params.orgId!, body);
  });
  router.delete("/organizations/:orgId/webhooks/:id", async (ctx) => {
    ctx.body = await ops.deleteWebhook(ctx.params.orgId!, ctx.params.id!);
  });
  router.post("/organizations/:orgId/webhooks/:id/rotate-secret", async (ctx) => {
    ctx.body = await ops.rotateWebhookSecret(ctx.params.orgId!, ctx.params.id!);
  });
  router.post("/organizations/:orgId/webhooks/:id/test", async (ctx) => {
    ctx.status = 202;
    ctx.body = await ops.testWebhook(ctx.params.orgId!, ctx.params.id!);
  });
  router.get("/organizations/:orgId/webhooks/:id/deliveries", async (ctx) => {
    const { limit } = parseOr422(webhookDeliveriesQuery, ctx.query);
    ctx.body = await ops.webhookDeliveries(ctx.params.orgId!, ctx.params.id!, limit);
  });
  // an organization's alerts: shown with their runs, paused, resumed and deleted for any organization
  // (docs/webhooks.md)
  router.get("/organizations/:orgId/alerts", async (ctx) => {
    ctx.body = await ops.listAlerts(ctx.params.orgId!);
  });
  router.get("/organizations/:orgId/alerts/:id", async (ctx) => {
    const { limit } = parseOr422(alertRunsQuery, ctx.query);
    ctx.body = await ops.alert(ctx.params.orgId!, ctx.params.id!, limit);
  });
  router.post("/organizations/:orgId/alerts/:id/pause", async (ctx) => {
    ctx.body = await ops.pauseAlert(ctx.params.orgId!, ctx.params.id!);
  });
  router.post("/organizations/:orgId/alerts/:id/resume", async (ctx) => {
    ctx.body = await ops.resumeAlert(ctx.params.orgId!, ctx.params.id!);
  });
  router.delete("/organizations/:orgId/alerts/:id", async (ctx) => {
    ctx.body = await ops.deleteAlert(ctx.params.orgId!, ctx.params.id!);
  });
}

/**
 * `publicUrl`: the service's address as its users reach it (invite links); by default the address this request came to.
 */
export function adminRoutes(ops: Operations, publicUrl?: string): Router {
  // one spelling per route: /ADMIN/v1/... and /admin/v1/organizations/ are not routes
  const router = new Router({ prefix: "/admin/v1", sensitive: true, strict: true });

  organizationRoutes(router, ops);
  keyAndMemberRoutes(router, ops, publicUrl);
  auditRoutes(router, ops);
  collectionRoutes(router, ops);
  organizationFeatureRoutes(router, ops);
  return router;
}
