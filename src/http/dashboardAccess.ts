// Who may reach the dashboard and how often: the per-IP limiter on every dashboard route, the session cookie (or the
// operator token) on the signed-in routes, the CSRF tokens of every state-changing request, and the tighter limits
// on failed sign-ins per address and per account.
import type { CreditPrice } from "../usecases/dashboard/overviewRules.js";
import type { Context, Middleware, Next } from "koa";
import { ApiError } from "../wire/errors.js";
import { IpLimiter, clientAddress, refuseTooManyRequests } from "./ipLimiter.js";
import { bearerToken, operatorTokenCheck } from "./authentication.js";
import { isWellFormedToken, newSecretToken, sameSecret } from "../usecases/auth/sessionTokens.js";
import type { Members, SignedIn } from "../usecases/members/members.js";

const MINUTE_MS = 60_000;
/** failed sign-ins per account are counted over this window */
const ACCOUNT_WINDOW_MS = 15 * MINUTE_MS;

/** The signed-in request: the session (csrfToken null when the operator token in a header authenticated it). */
interface DashboardState {
  signedIn: Omit<SignedIn, "csrfToken"> & { csrfToken: string | null };
}

export const dashboardStateOf = (ctx: Context): DashboardState["signedIn"] => {
  const s = (ctx.state as { dashboard?: DashboardState["signedIn"] }).dashboard;
  if (!s) throw new Error("dashboard route without a session: its group must be mounted with access signedIn");
  return s;
};

/** A browser navigation or form (answered with pages and redirects) rather than a JSON client. */
export const wantsHtml = (ctx: Context): boolean => ctx.accepts("json", "html") === "html";

interface DashboardAccessOptions {
  members: Members;
  adminToken: string;
  settings: DashboardSettings;
  /** cookies are Secure and __Host- named */
  tls: boolean;
  /** milliseconds since the epoch, from the service clock */
  now: () => number;
}

export type DashboardAccess = ReturnType<typeof dashboardAccess>;

export function dashboardAccess(opts: DashboardAccessOptions) {
  const { members, settings, now } = opts;
  const requests = new IpLimiter({ limit: settings.requestsPerMinute, windowMs: MINUTE_MS, now });
  const failedByAddress = new IpLimiter({ limit: settings.failedLoginsPerMinute, windowMs: MINUTE_MS, now });
  const failedByAccount = new IpLimiter({ limit: settings.failedLoginsPerAccount, windowMs: ACCOUNT_WINDOW_MS, now });
  const isOperatorToken = operatorTokenCheck(opts.adminToken);
  // __Host-: Secure, path /, no Domain: a sibling subdomain cannot plant or overwrite them
  const sessionCookie = opts.tls ? "__Host-ls_session" : "ls_session";
  const formCookie = opts.tls ? "__Host-ls_form" : "ls_form";
  const attributes = (sameSite: "Lax" | "Strict", maxAgeSeconds: number) =>
    `Path=/; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAgeSeconds}${opts.tls ? "; Secure" : ""}`;

  /** Counts the request against the address's budget of dashboard requests; false when refused (answered 429). */
  const admitted = (ctx: Context): boolean => {
    const wait = requests.take(clientAddress(ctx));
    if (wait) refuseTooManyRequests(ctx, wait);
    return wait === 0;
  };

  const open: Middleware = (ctx, next) => (admitted(ctx) ? next() : undefined);

  const signedIn: Middleware = async (ctx: Context, next: Next) => {
    if (!admitted(ctx)) return;
    const token = ctx.cookies.get(sessionCookie);
    let session: DashboardState["signedIn"] | undefined = token ? await members.session(token) : undefined;
    const bearer = session ? undefined : bearerToken(ctx);
    if (bearer !== undefined) {
      // the operator token in a header opens the operator pages for scripts; a wrong one counts as a failed sign-in
      if (!isOperatorToken(bearer)) {
        const wait = failedByAddress.take(clientAddress(ctx));
        if (wait) return refuseTooManyRequests(ctx, wait);
        throw new ApiError(401, "UNAUTHORIZED", "the operator token does not match");
      }
      session = {
        principal: { kind: "operator" },
        sessionId: "",
        token: "",
        csrfToken: null,
        expiresAt: "",
        email: null,
        orgName: null,
      };
    }
    if (!session) {
      if (wantsHtml(ctx)) {
        ctx.redirect("/dashboard/login");
        ctx.status = 303;
        return;
      }
      throw new ApiError(401, "UNAUTHORIZED", "sign in first: no session cookie, or the session ended or expired");
    }
    (ctx.state as { dashboard?: DashboardState["signedIn"] }).dashboard = session;
    return next();
  };

  /** Every state-changing request of a session carries its CSRF token (form field `_csrf` or header X-CSRF-Token). */
  const csrfGuard: Middleware = (ctx: Context, next: Next) => {
    if (ctx.method === "GET" || ctx.method === "HEAD") return next();
    const expected = dashboardStateOf(ctx).csrfToken;
    // a header credential is not sent by browsers on their own: there is no cross-site request to forge
    if (expected === null) return next();
    const body = ctx.request.body as { _csrf?: unknown } | undefined;
    const presented = ctx.get("X-CSRF-Token") || (typeof body?._csrf === "string" ? body._csrf : "");
    if (!presented || !sameSecret(presented, expected))
      throw new ApiError(403, "FORBIDDEN", "the CSRF token is missing or wrong: reload the page and try again");
    return next();
  };

  return {
    /** access of the routes before sign-in (login, invites, assets): the per-IP limiter only */
    open,
    /** access of the signed-in routes: the limiter, then the session (or the operator token for scripts) */
    signedIn,
    csrfGuard,

    /** Seconds a sign-in from this address for this account must wait (0: go ahead); checked before the password is. */
    loginWait(ctx: Context, account?: string): number {
      return Math.max(
        failedByAddress.retryAfterSeconds(clientAddress(ctx)),
        account === undefined ? 0 : failedByAccount.retryAfterSeconds(account),
      );
    },
    recordFailedLogin(ctx: Context, account?: string): void {
      failedByAddress.record(clientAddress(ctx));
      if (account !== undefined) failedByAccount.record(account);
    },

    setSession(ctx: Context, session: SignedIn): void {
      const seconds = Math.max(1, Math.floor((Date.parse(session.expiresAt) - now()) / 1000));
      ctx.append("Set-Cookie", `${sessionCookie}=${session.token}; ${attributes("Lax", seconds)}`);
    },
    clearSession(ctx: Context): void {
      ctx.append("Set-Cookie", `${sessionCookie}=; ${attributes("Lax", 0)}`);
    },

    /**
     * The double-submit token of the forms shown before sign-in (login, set password): a random cookie, SameSite
     * Strict, whose value the form also carries; a cross-site page can neither read it nor send it.
     */
    formToken(ctx: Context): string {
      const current = ctx.cookies.get(formCookie);
      if (current && isWellFormedToken(current)) return current;
      const token = newSecretToken();
      ctx.append("Set-Cookie", `${formCookie}=${token}; ${attributes("Strict", 2 * 3600)}`);
      return token;
    },
    /**
     * A form posted before sign-in must echo its cookie; a JSON body needs no token: a cross-site page cannot send
     * Content-Type application/json without a CORS preflight, which the dashboard never grants.
     */
    checkFormToken(ctx: Context, presented: string | undefined): void {
      if (ctx.is("application/json")) return;
      const cookie = ctx.cookies.get(formCookie);
      if (!cookie || !presented || !sameSecret(cookie, presented))
        throw new ApiError(403, "FORBIDDEN", "this form has expired: reload the page and try again");
    },
  };
}

export interface DashboardSettings {
  /** per client address and minute, every dashboard request (pages, forms, assets, login, invites) */
  requestsPerMinute: number;
  /** per client address and minute, failed sign-ins (and invite links that do not open) */
  failedLoginsPerMinute: number;
  /** per account (the email tried) and 15 minutes, failed sign-ins */
  failedLoginsPerAccount: number;
  /** a session lasts this long from sign-in */
  sessionHours: number;
  /** what a credit costs in a currency (DASHBOARD_CREDIT_PRICE): the overview shows money in it beside credits */
  creditPrice?: CreditPrice | null;
}
