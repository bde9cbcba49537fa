// /dashboard: the members' console and the operator's view of the house, served as pages by the service itself. Two
// routers: the routes before sign-in (login, invites, the page assets) and the signed-in ones; app.ts mounts them with
// their access (both behind the per-IP limiter). Handlers parse, call one use case, and answer with a page or a
// redirect for browsers and JSON for scripts (the same form fields as a JSON body).
import { readFileSync } from "node:fs";
import Router from "@koa/router";
import type { Context } from "koa";
import type { z } from "zod";
import { ApiError, toApiError } from "../../wire/errors.js";
import {
  parseOr422,
  loginBody,
  operatorLoginBody,
  setPasswordBody,
  dashboardKeyForm,
  dashboardCapForm,
  dashboardInviteForm,
  csrfOnlyForm,
  operatorListQuery,
  operatorDoneQuery,
  operatorCreditsForm,
  operatorLimitsForm,
  operatorSuspendForm,
  limitsBody,
} from "../../wire/schemas.js";
import { registerDashboardUsageRoutes } from "./dashboardUsageRoutes.js";
import type { Works } from "../../usecases/works/works.js";
import { refuseTooManyRequests } from "../ipLimiter.js";
import { dashboardStateOf, wantsHtml, type DashboardAccess } from "../dashboardAccess.js";
import { operatorTokenCheck } from "../authentication.js";
import type { Members, SignedIn } from "../../usecases/members/members.js";
import type { ConsoleData } from "../../usecases/dashboard/consoleData.js";
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import { canonicalEmail, mayDo, type Principal } from "../../domain/member.js";
import { Rejection } from "../../domain/rejection.js";
import { formatCredits } from "../../domain/money.js";
import { ledgerCsv } from "../../usecases/operator/ledgerCsv.js";
import { inviteUrlOf, money, type Operations } from "../../usecases/operator/operations.js";
import type { Html } from "../dashboard/html.js";
import * as pages from "../dashboard/pages.js";
import { requestBaseUrl } from "../requestContext.js";
import { refusedOnPage, registerDashboardAlertRoutes, type DashboardNotificationDeps } from "./dashboardAlertRoutes.js";
import { registerDashboardWebhookRoutes } from "./dashboardWebhookRoutes.js";
import { registerDashboardPlaygroundRoutes } from "./dashboardPlaygroundRoutes.js";
import { registerDashboardQueryRoutes } from "./dashboardQueryRoutes.js";
import type { Playground } from "../../usecases/playground/playground.js";
import { firstSearchSnippets, type CreditPrice } from "../../usecases/dashboard/overviewRules.js";

export interface DashboardRouteDeps {
  members: Members;
  consoleData: ConsoleData;
  /** the works table, for what exports add to a search's rows */
  works: Pick<Works, "exportRows">;
  /** the operator's use cases, for the actions on an organization's page */
  operations: Operations;
  dashboardAccess: DashboardAccess;
  catalog: CollectionCatalog;
  adminToken: string;
  clock: () => Date;
  /** the address users reach the service at (invite links, re-fetch commands); unset: the request's own */
  publicUrl?: string;
  /** the organization's alerts and webhook endpoints (/dashboard/alerts, /dashboard/webhooks) */
  notificationPages: DashboardNotificationDeps;
  /** previews and unlocks as one of the organization's keys (/dashboard/playground) */
  playground: Playground;
  /** what a credit costs in a currency (DASHBOARD_CREDIT_PRICE); none: credits only */
  creditPrice?: CreditPrice | null;
}

/**
 * Pages load nothing but the service's own stylesheet and script; no frame may hold them; no URL (an invite's token)
 * leaks as a Referer.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action " +
  "'self'; base-uri 'none'; frame-ancestors 'none'";

const ASSETS = new Map<string, { type: string; file: URL }>([
  [
    "dashboard.css",
    { type: "text/css; charset=utf-8", file: new URL("../dashboard/assets/dashboard.css", import.meta.url) },
  ],
  [
    "dashboard.js",
    {
      type: "application/javascript; charset=utf-8",
      file: new URL("../dashboard/assets/dashboard.js", import.meta.url),
    },
  ],
  ["favicon.ico", { type: "image/x-icon", file: new URL("../dashboard/assets/favicon.ico", import.meta.url) }],
]);

function page(ctx: Context, body: Html, status = 200): void {
  ctx.status = status;
  ctx.type = "text/html; charset=utf-8";
  ctx.body = body.text;
}

/** Headers of every dashboard answer, and errors as pages for browsers (the envelope for scripts). */
async function dashboardShell(ctx: Context, next: () => Promise<unknown>): Promise<void> {
  ctx.set("Content-Security-Policy", DASHBOARD_CONTENT_SECURITY_POLICY);
  ctx.set("Referrer-Policy", "no-referrer");
  ctx.set("X-Frame-Options", "DENY");
  try {
    await next();
  } catch (err) {
    const apiError = toApiError(err);
    if (!apiError || !wantsHtml(ctx)) throw err;
    const signedIn = (ctx.state as { dashboard?: unknown }).dashboard !== undefined;
    page(ctx, pages.errorPage(apiError.status, apiError.message, signedIn), apiError.status);
  }
}

const baseUrlOf = (deps: DashboardRouteDeps, ctx: Context) => deps.publicUrl ?? requestBaseUrl(ctx);

/** The member behind the session; the operator has no organization (its page is /dashboard/operator). */
function memberOf(ctx: Context): Extract<Principal, { kind: "member" }> {
  const p = dashboardStateOf(ctx).principal;
  if (p.kind !== "member")
    throw new ApiError(
      403,
      "FORBIDDEN",
      "the operator has no organization: the operator pages are at /dashboard/operator",
    );
  return p;
}

/** Answers a browser's form with a redirect (post, redirect, get) and a script with JSON. */
function done(ctx: Context, location: string, json: unknown, status = 200): void {
  if (wantsHtml(ctx)) {
    ctx.redirect(location);
    ctx.status = 303;
    return;
  }
  ctx.status = status;
  ctx.body = json;
}

/** The key form's fields as the key use case takes them; a collection the catalogue does not hold is refused. */
const keyFormInput = (form: z.output<typeof dashboardKeyForm>) => {
  // the names are checked by the key use case (with the nearest name), as for the operator API and the CLI
  const names = (form.collections ?? "")
    .split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  return {
    mode: form.mode,
    name: form.name ?? null,
    collections: names.length ? names : null,
    spendingCapMicros: form.spendingCap ? money(form.spendingCap, "spendingCap") : null,
  };
};

/** A key just created with a first search in each client, the key written in, on a collection the key reaches. */
async function withSnippets(deps: DashboardRouteDeps, ctx: Context, created: { id: string; key: string }) {
  const p = dashboardStateOf(ctx).principal;
  const keys = p.kind === "member" ? await deps.consoleData.keys(p.orgId) : [];
  const key = keys.find((k) => k.id === created.id);
  const collection = key?.collections?.[0] ?? deps.catalog.collections[0]?.name ?? "scifact";
  return { ...created, snippets: firstSearchSnippets(baseUrlOf(deps, ctx), collection, created.key) };
}

/** What the overview shows beside the organization's figures: usage, keys, alerts, endpoints, the credit price. */
async function overviewExtras(deps: DashboardRouteDeps, orgId: string, baseUrl: string): Promise<pages.OverviewExtras> {
  const n = deps.notificationPages;
  const [usage, keys, alerts, endpoints] = await Promise.all([
    deps.consoleData.usage(orgId),
    deps.consoleData.keys(orgId),
    n.alerts.list(orgId),
    n.webhooks.list(orgId),
  ]);
  const live = keys.filter((k) => !k.revoked);
  const collection = live.find((k) => k.collections?.length)?.collections?.[0] ?? deps.catalog.collections[0]?.name;
  return {
    usage,
    keys: live.length,
    alerts,
    endpoints,
    creditPrice: deps.creditPrice ?? null,
    baseUrl,
    collection: collection ?? "scifact",
  };
}

/** The routes before sign-in: login (members and the operator), invites, and the pages' assets. */
export function dashboardOpenRoutes(deps: DashboardRouteDeps): Router {
  const router = new Router({ sensitive: true, strict: true });
  router.use(dashboardShell);

  /** A sign-in that failed: counted, then the login page again for a browser, a 401 for a script. */
  const refuseSignIn = (ctx: Context, message: string, account?: string) => {
    deps.dashboardAccess.recordFailedLogin(ctx, account);
    // the email typed stays in the form (never the password)
    const email = pages.typed(ctx.request.body as pages.FormInput, "email");
    if (wantsHtml(ctx)) return page(ctx, pages.loginPage(deps.dashboardAccess.formToken(ctx), message, email), 401);
    throw new ApiError(401, "UNAUTHORIZED", message);
  };
  /** A new session: its cookie, then the first page for a browser, the CSRF token for a script. */
  const signedIn = (ctx: Context, session: SignedIn, status = 200) => {
    deps.dashboardAccess.setSession(ctx, session);
    const role = session.principal.kind === "member" ? session.principal.role : "operator";
    done(
      ctx,
      role === "operator" ? "/dashboard/operator" : "/dashboard",
      { signedIn: true, role, csrfToken: session.csrfToken, expiresAt: session.expiresAt },
      status,
    );
  };

  /**
   * A sign-in form (member, operator, invite): its body once it is well formed, carries the form token, and neither
   * the address nor the account tried is waiting out failed attempts; undefined when one is, the 429 answered.
   */
  const signInForm = <S extends z.ZodType<{ _csrf?: string }>>(
    ctx: Context,
    schema: S,
    accountOf?: (body: z.output<S>) => string,
  ): z.output<S> | undefined => {
    const body = parseOr422(schema, ctx.request.body);
    deps.dashboardAccess.checkFormToken(ctx, body._csrf);
    const wait = deps.dashboardAccess.loginWait(ctx, accountOf?.(body));
    if (!wait) return body;
    refuseTooManyRequests(ctx, wait);
    return undefined;
  };
  // the account counted is the address tried, whether or not it has an account: the answer tells nothing either way
  const accountTried = (email: string) => canonicalEmail(email) ?? email.trim().toLowerCase();

  router.get("/dashboard/login", (ctx) => {
    page(ctx, pages.loginPage(deps.dashboardAccess.formToken(ctx)));
  });

  router.post("/dashboard/login", async (ctx) => {
    const body = signInForm(ctx, loginBody, (b) => accountTried(b.email));
    if (!body) return;
    const session = await deps.members.signIn(body.email, body.password);
    if (!session) return refuseSignIn(ctx, "The email or the password is wrong.", accountTried(body.email));
    signedIn(ctx, session);
  });

  router.post("/dashboard/operator/login", async (ctx) => {
    const body = signInForm(ctx, operatorLoginBody);
    if (!body) return;
    if (!operatorTokenCheck(deps.adminToken)(body.token)) return refuseSignIn(ctx, "That is not the operator token.");
    signedIn(ctx, await deps.members.signInOperator());
  });

  const invalidInvite = () =>
    new ApiError(
      404,
      "NOT_FOUND",
      "This invite link is not valid: it was used, has expired or never existed. Ask for a new one.",
    );

  router.get("/dashboard/invite/:token", async (ctx) => {
    const access = deps.dashboardAccess;
    const wait = access.loginWait(ctx);
    if (wait) return refuseTooManyRequests(ctx, wait);
    const invite = await deps.members.pendingInvite(ctx.params.token!);
    if (!invite) {
      // a link that does not open counts like a failed sign-in: tokens cannot be guessed at speed
      access.recordFailedLogin(ctx);
      throw invalidInvite();
    }
    page(ctx, pages.invitePage(access.formToken(ctx), ctx.path, invite));
  });

  router.post("/dashboard/invite/:token", async (ctx) => {
    const access = deps.dashboardAccess;
    const body = signInForm(ctx, setPasswordBody);
    if (!body) return;
    const token = ctx.params.token!;
    let session;
    try {
      session = await deps.members.acceptInvite(token, body.password);
    } catch (err) {
      if (err instanceof Rejection && err.code === "NOT_FOUND") {
        access.recordFailedLogin(ctx);
        throw invalidInvite();
      }
      const invite =
        err instanceof Rejection && err.code === "VALIDATION_ERROR" && wantsHtml(ctx)
          ? await deps.members.pendingInvite(token)
          : undefined;
      if (invite)
        return page(ctx, pages.invitePage(access.formToken(ctx), ctx.path, invite, (err as Rejection).message), 422);
      throw err;
    }
    signedIn(ctx, session, 201);
  });

  const serveAsset = (ctx: Context, name: string) => {
    const asset = ASSETS.get(name);
    if (!asset) throw new ApiError(404, "NOT_FOUND", `no route for ${ctx.method} ${ctx.path}`);
    ctx.type = asset.type;
    ctx.set("Cache-Control", "private, max-age=300");
    ctx.body = readFileSync(asset.file);
  };
  router.get("/dashboard/assets/:file", (ctx) => serveAsset(ctx, ctx.params.file!));
  // where browsers look for a site's icon on any page (the API's and the docs' too), not only the dashboard's
  router.get("/favicon.ico", (ctx) => serveAsset(ctx, "favicon.ico"));

  return router;
}

/**
 * The signed-in routes: the organization's pages and actions, the member's sessions, sign-out, and the operator page.
 */
export function dashboardRoutes(deps: DashboardRouteDeps): Router {
  const router = new Router({ sensitive: true, strict: true });
  router.use(dashboardShell);
  router.use((ctx, next) => deps.dashboardAccess.csrfGuard(ctx, next));

  const viewer = (ctx: Context): pages.Viewer => {
    const s = dashboardStateOf(ctx);
    return { principal: s.principal, email: s.email, orgName: s.orgName, csrfToken: s.csrfToken ?? "" };
  };
  /** Member pages: the operator is sent to its own page. */
  const memberPage =
    (handler: (ctx: Context, member: Extract<Principal, { kind: "member" }>) => Promise<void>) =>
    async (ctx: Context) => {
      const p = dashboardStateOf(ctx).principal;
      if (p.kind === "operator" && wantsHtml(ctx)) {
        ctx.redirect("/dashboard/operator");
        ctx.status = 303;
        return;
      }
      await handler(ctx, memberOf(ctx));
    };

  router.get(
    "/dashboard",
    memberPage(async (ctx, member) => {
      const data = await deps.consoleData.overview(member.orgId);
      if (!data) throw new ApiError(404, "NOT_FOUND", "organization not found");
      page(ctx, pages.overviewPage(viewer(ctx), data, await overviewExtras(deps, member.orgId, baseUrlOf(deps, ctx))));
    }),
  );

  const keysPage = async (
    ctx: Context,
    member: Extract<Principal, { kind: "member" }>,
    extra: { created?: pages.CreatedKey; error?: string; input?: pages.FormInput } = {},
    status = 200,
  ) =>
    page(
      ctx,
      pages.keysPage(viewer(ctx), await deps.consoleData.keys(member.orgId), {
        ...extra,
        canSetCaps: mayDo(member, "setSpendingCap", member.orgId),
      }),
      status,
    );

  router.get(
    "/dashboard/keys",
    memberPage((ctx, member) => keysPage(ctx, member)),
  );

  router.post(
    "/dashboard/keys",
    memberPage(async (ctx, member) => {
      let created: { id: string; key: string };
      try {
        created = await deps.members.createKey(
          member,
          member.orgId,
          keyFormInput(parseOr422(dashboardKeyForm, ctx.request.body)),
        );
      } catch (err) {
        // a browser gets the keys page again with the reason on it; a script the error envelope
        const refused = toApiError(err);
        if (refused?.status === 422 && wantsHtml(ctx))
          return keysPage(ctx, member, { error: refused.message, input: ctx.request.body as pages.FormInput }, 422);
        throw err;
      }
      // the secret goes out in this answer only: a page (never a redirect, whose URL would carry it) or JSON
      if (wantsHtml(ctx)) return keysPage(ctx, member, { created: await withSnippets(deps, ctx, created) }, 201);
      ctx.status = 201;
      ctx.body = created;
    }),
  );

  router.post(
    "/dashboard/keys/:keyId/revoke",
    memberPage(async (ctx, member) => {
      parseOr422(csrfOnlyForm, ctx.request.body);
      await deps.members.revokeKey(member, ctx.params.keyId!);
      done(ctx, "/dashboard/keys", { id: ctx.params.keyId, revoked: true });
    }),
  );

  router.post(
    "/dashboard/keys/:keyId/cap",
    memberPage(async (ctx, member) => {
      const form = parseOr422(dashboardCapForm, ctx.request.body);
      const cap = form.spendingCap === "" ? null : money(form.spendingCap, "spendingCap");
      await deps.members.setSpendingCap(member, ctx.params.keyId!, cap);
      done(ctx, "/dashboard/keys", { id: ctx.params.keyId, spendingCap: cap === null ? null : formatCredits(cap) });
    }),
  );

  router.get(
    "/dashboard/ledger",
    memberPage(async (ctx, member) => {
      page(ctx, pages.ledgerPage(viewer(ctx), await deps.consoleData.ledger(member.orgId)));
    }),
  );
  router.get(
    "/dashboard/ledger.csv",
    memberPage(async (ctx, member) => {
      ctx.type = "text/csv; charset=utf-8";
      ctx.set("Content-Disposition", 'attachment; filename="ledger.csv"');
      ctx.body = ledgerCsv((await deps.consoleData.ledger(member.orgId)).entries);
    }),
  );

  const membersPage = async (
    ctx: Context,
    member: Extract<Principal, { kind: "member" }>,
    extra: { inviteUrl?: string; error?: string; input?: pages.FormInput } = {},
    status = 200,
  ) =>
    page(
      ctx,
      pages.membersPage(viewer(ctx), await deps.members.roster(member.orgId), {
        ...extra,
        canInvite: mayDo(member, "invite", member.orgId),
        canRemove: mayDo(member, "removeMember", member.orgId),
        self: member.memberId,
      }),
      status,
    );

  router.get(
    "/dashboard/members",
    memberPage((ctx, member) => membersPage(ctx, member)),
  );

  router.post(
    "/dashboard/members/invites",
    memberPage(async (ctx, member) => {
      const invite = await refusedOnPage(
        ctx,
        () => {
          const form = parseOr422(dashboardInviteForm, ctx.request.body);
          return deps.members.invite(member.orgId, { email: form.email, role: form.role }, member);
        },
        (error) => membersPage(ctx, member, { error, input: ctx.request.body as pages.FormInput }, 422),
      );
      if (!invite) return;
      const inviteUrl = inviteUrlOf(baseUrlOf(deps, ctx), invite.token);
      // the link is shown once, on this page (never in a redirect's URL)
      if (wantsHtml(ctx)) return membersPage(ctx, member, { inviteUrl }, 201);
      ctx.status = 201;
      ctx.body = { inviteUrl, expiresAt: invite.expiresAt, email: invite.email, role: invite.role };
    }),
  );

  router.post(
    "/dashboard/members/:memberId/remove",
    memberPage(async (ctx, member) => {
      parseOr422(csrfOnlyForm, ctx.request.body);
      await deps.members.removeMember(member, member.orgId, ctx.params.memberId!);
      done(ctx, "/dashboard/members", { memberId: ctx.params.memberId, removed: true });
    }),
  );

  router.post(
    "/dashboard/invites/:inviteId/cancel",
    memberPage(async (ctx, member) => {
      parseOr422(csrfOnlyForm, ctx.request.body);
      await deps.members.cancelInvite(member, member.orgId, ctx.params.inviteId!);
      done(ctx, "/dashboard/members", { inviteId: ctx.params.inviteId, cancelled: true });
    }),
  );

  router.get(
    "/dashboard/account",
    memberPage(async (ctx, member) => {
      page(
        ctx,
        pages.accountPage(viewer(ctx), await deps.members.sessionsOf(member.memberId), dashboardStateOf(ctx).sessionId),
      );
    }),
  );

  router.post(
    "/dashboard/sessions/:sessionId/revoke",
    memberPage(async (ctx, member) => {
      parseOr422(csrfOnlyForm, ctx.request.body);
      await deps.members.endSession(ctx.params.sessionId!, member, "revoked");
      done(ctx, "/dashboard/account", { sessionId: ctx.params.sessionId, revoked: true });
    }),
  );

  router.post("/dashboard/logout", async (ctx) => {
    parseOr422(csrfOnlyForm, ctx.request.body);
    const s = dashboardStateOf(ctx);
    if (s.sessionId) await deps.members.endSession(s.sessionId, s.principal, "signed-out");
    deps.dashboardAccess.clearSession(ctx);
    done(ctx, "/dashboard/login", { signedOut: true });
  });

  /** Operator pages and actions: a member's session is refused, whatever it asks. */
  const operatorOnly = (handler: (ctx: Context) => Promise<void>) => async (ctx: Context) => {
    if (dashboardStateOf(ctx).principal.kind !== "operator")
      throw new ApiError(403, "FORBIDDEN", "the operator pages need the operator: sign in with the operator token");
    await handler(ctx);
  };

  router.get(
    "/dashboard/operator",
    operatorOnly(async (ctx) => {
      const query = parseOr422(operatorListQuery, ctx.query);
      page(ctx, pages.operatorPage(viewer(ctx), await deps.consoleData.operatorOverview(query)));
    }),
  );

  /** An organization's page for the operator, with the outcome of the action that led to it. */
  const organizationPage = async (
    ctx: Context,
    orgId: string,
    extra: Parameters<typeof pages.operatorOrgPage>[2] = {},
    status = 200,
  ) => {
    const data = await deps.consoleData.operatorOrganization(orgId);
    if (!data) throw new ApiError(404, "NOT_FOUND", `organization ${orgId} not found`);
    page(ctx, pages.operatorOrgPage(viewer(ctx), data, extra), status);
  };

  router.get(
    "/dashboard/operator/orgs/:orgId",
    operatorOnly(async (ctx) => {
      const { done } = parseOr422(operatorDoneQuery, ctx.query);
      await organizationPage(ctx, ctx.params.orgId!, { done });
    }),
  );

  /**
   * An operator's action on an organization: its use case, then for a browser the organization's page again (303 with
   * what was done, or the page with the refusal's reason), for a script the use case's answer.
   */
  const operatorAction = (outcome: pages.OperatorDone | null, act: (ctx: Context, orgId: string) => Promise<unknown>) =>
    operatorOnly(async (ctx) => {
      const orgId = ctx.params.orgId!;
      let result: unknown;
      try {
        result = await act(ctx, orgId);
      } catch (err) {
        const refused = toApiError(err);
        if (refused && refused.status === 422 && wantsHtml(ctx))
          return organizationPage(ctx, orgId, { error: refused.message }, 422);
        throw err;
      }
      // else the action answered itself
      if (outcome !== null) done(ctx, `/dashboard/operator/orgs/${orgId}?done=${outcome}`, result);
    });

  router.post(
    "/dashboard/operator/orgs/:orgId/credits",
    operatorAction("credits", (ctx, orgId) => {
      const form = parseOr422(operatorCreditsForm, ctx.request.body);
      return deps.operations.addCredits(orgId, form.amount, form.reference || undefined);
    }),
  );
  router.post(
    "/dashboard/operator/orgs/:orgId/limits",
    operatorAction("limits", (ctx, orgId) => {
      const { _csrf: _, ...form } = parseOr422(operatorLimitsForm, ctx.request.body);
      return deps.operations.changeLimits(orgId, parseOr422(limitsBody, form));
    }),
  );
  router.post(
    "/dashboard/operator/orgs/:orgId/suspend",
    operatorAction("suspended", (ctx, orgId) => {
      const form = parseOr422(operatorSuspendForm, ctx.request.body);
      return deps.operations.setSuspended(orgId, true, form.reason || undefined);
    }),
  );
  router.post(
    "/dashboard/operator/orgs/:orgId/resume",
    operatorAction("resumed", (ctx, orgId) => {
      parseOr422(csrfOnlyForm, ctx.request.body);
      return deps.operations.setSuspended(orgId, false);
    }),
  );
  router.post(
    "/dashboard/operator/orgs/:orgId/keys",
    operatorAction(null, async (ctx, orgId) => {
      const input = keyFormInput(parseOr422(dashboardKeyForm, ctx.request.body));
      const created = await deps.members.createKey({ kind: "operator" }, orgId, input);
      // the secret goes out in this answer only, as for members
      if (wantsHtml(ctx)) return organizationPage(ctx, orgId, { created }, 201);
      ctx.status = 201;
      ctx.body = created;
    }),
  );
  /** A key of this organization (another organization's key is not found here). */
  const keyOf = async (orgId: string, keyId: string) => {
    const key = await deps.operations.getKey(keyId).catch(() => undefined);
    if (!key || key.orgId !== orgId)
      throw new ApiError(404, "NOT_FOUND", `API key ${keyId} not found in organization ${orgId}`);
    return key;
  };
  router.post(
    "/dashboard/operator/orgs/:orgId/keys/:keyId/revoke",
    operatorAction("revoked", async (ctx, orgId) => {
      parseOr422(csrfOnlyForm, ctx.request.body);
      await keyOf(orgId, ctx.params.keyId!);
      return deps.operations.revokeKey(ctx.params.keyId!);
    }),
  );
  router.post(
    "/dashboard/operator/orgs/:orgId/keys/:keyId/cap",
    operatorAction("cap", async (ctx, orgId) => {
      const form = parseOr422(dashboardCapForm, ctx.request.body);
      await keyOf(orgId, ctx.params.keyId!);
      return deps.operations.setSpendingCap(ctx.params.keyId!, form.spendingCap === "" ? null : form.spendingCap);
    }),
  );

  // the alert and webhook pages read their use cases when a request comes (a router built to list routes has none)
  const notifications = () => deps.notificationPages;
  const helpers = { viewer, memberPage, page, done };
  registerDashboardAlertRoutes(router, notifications, helpers);
  registerDashboardWebhookRoutes(router, notifications, helpers);
  registerDashboardPlaygroundRoutes(router, () => deps, helpers);
  registerDashboardQueryRoutes(router, () => deps, { ...helpers, baseUrl: (ctx) => baseUrlOf(deps, ctx) });
  registerDashboardUsageRoutes(router, () => deps, helpers);
  return router;
}
