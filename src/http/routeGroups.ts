// The route groups and who may call them: authorization is decided on the route a request matches, by the router that
// dispatches it.
import type { Context, Middleware, Next } from "koa";
import type Router from "@koa/router";

export interface RouteGroup {
  router: Router;
  /** the authentication every route of the group requires, or 'public' */
  access: Middleware | "public";
  /** browsers on the configured CORS origins may call it */
  crossOrigin?: boolean;
  /** its routes take HTML form posts (application/x-www-form-urlencoded) beside JSON */
  forms?: boolean;
}

interface RouteGroups {
  /** Runs the authentication of every group with a route for this method and path; mount it before the body is read. */
  authorize: Middleware;
  /**
   * Dispatches to the groups' routes. A method a path does not serve is 405 with Allow, also a method the service does
   * not know at all (PROPFIND, TRACE): that is the client's request, never a 5xx. A path no route serves is 404.
   */
  dispatch: Middleware;
  /** The methods the cross-origin groups serve on `path`, for CORS preflight; empty when none. */
  crossOriginMethods(path: string): string[];
  /** Whether the route this request matches takes form posts. */
  acceptsForms(ctx: Context): boolean;
  /** Whether some route serves this request's method on its path (else it is 404 or 405, its body never read). */
  routes(ctx: Context): boolean;
}

/**
 * One list of routers, each with the access it requires. `authorize` and `dispatch` match with the same routers, so
 * no spelling of a path reaches a handler without the authentication of its route (no prefix check to fall out of
 * step with the router's matching), and a router cannot be mounted without declaring its access.
 */
export function routeGroups(groups: RouteGroup[]): RouteGroups {
  // the router's middleware types its context with params; at run time it is the same Koa context
  const routed = inSequence(
    groups.flatMap((g) => [g.router.routes(), g.router.allowedMethods()] as unknown as Middleware[]),
  );
  const guarded = groups.filter((g): g is RouteGroup & { access: Middleware } => g.access !== "public");
  return {
    authorize(ctx, next) {
      // each credentialed group matched once: its route for this method, and any route on this path
      const matches = guarded.map((g) => g.router.match(ctx.path, ctx.method));
      const required = guarded.filter((_, i) => matches[i]!.route).map((g) => g.access);
      // any answer about a credentialed route's path is not cached: an OPTIONS answer (its Allow, or a CORS
      // preflight's grant), and the 405 of a method it does not serve, as its refusals
      if (matches.some((m) => m.path.length > 0)) ctx.set("Cache-Control", "no-store");
      if (required.length === 0) return next();
      // answers to credentialed requests (401s too) must not be kept by any cache
      ctx.set("Cache-Control", "no-store");
      return inSequence(required)(ctx, next);
    },
    async dispatch(ctx, next) {
      await routed(ctx, next);
      if (ctx.status !== 501 || ctx.body !== undefined) return;
      const allowed = methodsOn(groups, ctx.path);
      if (allowed.length === 0) {
        ctx.status = 404;
        return;
      }
      ctx.status = 405;
      ctx.set("Allow", allowed.join(", "));
    },
    crossOriginMethods: (path) =>
      methodsOn(
        groups.filter((g) => g.crossOrigin),
        path,
      ),
    acceptsForms: (ctx) => groups.some((g) => g.forms && g.router.match(ctx.path, ctx.method).route),
    routes: (ctx) => groups.some((g) => g.router.match(ctx.path, ctx.method).route),
  };
}

/** The methods some route of these groups serves on `path`. */
function methodsOn(groups: RouteGroup[], path: string): string[] {
  return [...new Set(groups.flatMap((g) => g.router.match(path, "GET").path).flatMap((layer) => layer.methods))];
}

function inSequence(middleware: Middleware[]): Middleware {
  return (ctx: Context, next: Next) => {
    const run = (i: number): Promise<unknown> =>
      i === middleware.length ? next() : Promise.resolve(middleware[i]!(ctx, () => run(i + 1)));
    return run(0);
  };
}
