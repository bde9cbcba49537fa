// How a console route is declared: its OpenAPI words (a page: HTML; a form: a form or JSON body, CSRF; a download)
// built by the helpers below, beside its handler in the page's route file. The console's routes read their use cases
// from the dashboard's dependencies when a request comes, so their declarations are built once per app and once,
// without dependencies, for the document.
import type { RouterContext } from "@koa/router";
import { DESCRIPTIONS } from "../openapi/descriptions.js";
import type { Access, Operation, SchemaName } from "../openapi/operation.js";
import { declareRoute, type RouteDeclaration } from "../routeDeclaration.js";

/** A console route: its handler closes over the dashboard's dependencies. */
export type DashboardRoute = RouteDeclaration<unknown>;
/** A console route's words: its method, path (the router's spelling) and OpenAPI words. */
type DashboardWords = Operation;

export const htmlPage = (description: string) => ({
  content: { "text/html": { schema: { type: "string" } } },
  description,
});
export const csvDownload = { content: { "text/csv": { schema: { type: "string" } } } };

/** Any console operation: tagged `dashboard`, with the refusals of its access unless it names its own. */
export const consoleOp = (
  method: Operation["method"],
  path: string,
  access: Access,
  operationId: string,
  summary: string,
  rest: Pick<Operation, "response"> & Partial<Operation>,
): DashboardWords => ({
  method,
  path,
  tag: "dashboard",
  access,
  operationId,
  summary,
  errors: access === "dashboardOpen" ? [422, 429] : [401, 403, 404, 422, 429],
  ...rest,
});

/** A signed-in page (HTML). */
export const consolePage = (path: string, operationId: string, summary: string, description?: string): DashboardWords =>
  consoleOp("get", path, "session", operationId, summary, {
    response: htmlPage(summary),
    ...(description ? { description } : {}),
    errors: [401, 403, 429],
  });

/** A signed-in form: a form or JSON body carrying the session's CSRF token. */
export const consoleForm = (
  path: string,
  operationId: string,
  summary: string,
  body: SchemaName,
  response: SchemaName,
  description: string,
  status = 200,
): DashboardWords =>
  consoleOp("post", path, "session", operationId, summary, {
    formBody: body,
    response,
    status,
    description:
      `${description} Needs the session's CSRF token (\`_csrf\` field or X-CSRF-Token). A browser (Accept: ` +
      "text/html) gets a page or a 303 redirect instead of JSON.",
  });

/** An operator's form on an organization's page (a member's session is refused). */
export const operatorForm = (
  path: string,
  operationId: string,
  summary: string,
  body: SchemaName,
  response: SchemaName,
  status = 200,
): DashboardWords =>
  consoleOp("post", path, "operatorPage", operationId, summary, {
    formBody: body,
    response,
    status,
    description: DESCRIPTIONS.operatorForm,
  });

/** A list of console routes, each declared by its words and its handler, in the order they are declared. */
export function consoleRoutes(): {
  routes: DashboardRoute[];
  on: (words: DashboardWords, handler: (ctx: RouterContext) => unknown) => void;
} {
  const routes: DashboardRoute[] = [];
  return {
    routes,
    on: (words, handler) => void routes.push(declareRoute({ ...words, handler: (ctx) => handler(ctx) })),
  };
}
