// The route groups and who may call them: authorization is decided on the route a request matches, by the router that dispatches it.
import type { Context, Middleware, Next } from 'koa';
import type Router from '@koa/router';

export interface RouteGroup {
  router: Router;
  /** the authentication every route of the group requires, or 'public' */
  access: Middleware | 'public';
  /** browsers on the configured CORS origins may call it */
  crossOrigin?: boolean;
}

export interface RouteGroups {
  /** Runs the authentication of every group with a route for this method and path; mount it before the body is read. */
  authorize: Middleware;
  /** Dispatches to the groups' routes, then sets 405 (with Allow) or 501 where a path has no route for the method. */
  dispatch: Middleware;
  /** The methods the cross-origin groups serve on `path`, for CORS preflight; empty when none. */
  crossOriginMethods(path: string): string[];
}

/**
 * One list of routers, each with the access it requires. `authorize` and `dispatch` match with the same routers, so
 * no spelling of a path reaches a handler without the authentication of its route (no prefix check to fall out of
 * step with the router's matching), and a router cannot be mounted without declaring its access.
 */
export function routeGroups(groups: RouteGroup[]): RouteGroups {
  const guarded = groups.filter((g): g is RouteGroup & { access: Middleware } => g.access !== 'public');
  return {
    authorize(ctx, next) {
      const required = guarded.filter((g) => g.router.match(ctx.path, ctx.method).route).map((g) => g.access);
      if (required.length === 0) return next();
      // answers to credentialed requests (401s too) must not be kept by any cache
      ctx.set('Cache-Control', 'no-store');
      return inSequence(required)(ctx, next);
    },
    // the router's middleware types its context with params; at run time it is the same Koa context
    dispatch: inSequence(groups.flatMap((g) => [g.router.routes(), g.router.allowedMethods()] as unknown as Middleware[])),
    crossOriginMethods(path) {
      const layers = groups.filter((g) => g.crossOrigin).flatMap((g) => g.router.match(path, 'GET').path);
      return [...new Set(layers.flatMap((layer) => layer.methods))];
    },
  };
}

function inSequence(middleware: Middleware[]): Middleware {
  return (ctx: Context, next: Next) => {
    const run = (i: number): Promise<unknown> => (i === middleware.length ? next() : Promise.resolve(middleware[i]!(ctx, () => run(i + 1))));
    return run(0);
  };
}
