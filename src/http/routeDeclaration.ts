// One declaration per route: its method, path, access, the OpenAPI words (request schemas, response, headers, errors)
// and its handler, side by side in the feature's route file. The routers register from the declarations and the
// OpenAPI document's paths are built from the same declarations (src/http/openApiDocument.ts).
import Router, { type RouterContext } from "@koa/router";
import type { Middleware } from "koa";
import type { Operation } from "./openapi/operation.js";
import type { RouteGroup } from "./routeGroups.js";

/** What a route declares besides its path: the OpenAPI operation's words, `access` deciding who may call it. */
type OperationWords = Omit<Operation, "method" | "path">;

export interface RouteDeclaration<Deps> extends OperationWords {
  method: Operation["method"];
  /** the router's path, whole: `:name` is one segment, `*name` the rest of the path, slashes included */
  path: string;
  /** the route's work, given the request and the use cases the route group is built with */
  handler: (ctx: RouterContext, deps: Deps) => unknown;
}

/** A route, declared once: typed against the dependencies its handler reads. */
export function declareRoute<Deps>(route: RouteDeclaration<Deps>): RouteDeclaration<Deps> {
  return route;
}

/** The route's path as OpenAPI spells it: `:param` and a wildcard `*param` become `{param}`. */
const openApiPath = (path: string): string => path.replace(/[:*](\w+)/g, "{$1}");

/** The OpenAPI operation a declaration describes. */
export function operationOf<Deps>({ handler: _handler, ...route }: RouteDeclaration<Deps>): Operation {
  return { ...route, path: openApiPath(route.path) };
}

/**
 * A router serving the declared routes in the order they are declared (the order decides which path matches first);
 * `use` runs before the handler of each route it matches (a page shell, a CSRF check).
 */
function routerOf<Deps>(
  routes: readonly RouteDeclaration<Deps>[],
  deps: Deps,
  use: readonly Middleware[] = [],
): Router {
  const router = new Router({ sensitive: true, strict: true });
  for (const middleware of use) router.use(middleware);
  for (const route of routes) router[route.method](route.path, (ctx) => route.handler(ctx, deps));
  return router;
}

/**
 * The middleware each kind of access requires: an API key, the operator token, none, or the console's (no credential
 * behind the per-IP limiter, a session).
 */
export type AccessChecks = Partial<Record<Operation["access"], Middleware | "public">>;

/**
 * The route group of declared routes: their router, and the authentication their declared access requires. A group
 * whose routes declare different access is refused at start-up, as is an access the app has no check for.
 */
export function declaredGroup<Deps>(
  routes: readonly RouteDeclaration<Deps>[],
  deps: Deps,
  checks: AccessChecks,
  { use, ...options }: Omit<RouteGroup, "router" | "access"> & { use?: readonly Middleware[] } = {},
): RouteGroup {
  const kinds = [...new Set(routes.map((r) => r.access))];
  const access = kinds.length === 1 ? checks[kinds[0]!] : undefined;
  if (!access)
    throw new Error(`routes ${routes.map((r) => `${r.method} ${r.path}`).join(", ")} declare access ${kinds}`);
  return { router: routerOf(routes, deps, use), access, ...options };
}
