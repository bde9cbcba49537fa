// The OpenAPI document the service serves: the operations the route groups declare beside their handlers, with the
// shared components (src/http/openapi/document.ts).
import { documentOf } from "./openapi/document.js";
import type { Operation } from "./openapi/operation.js";
import { operationOf, type RouteDeclaration } from "./routeDeclaration.js";
import { ALERT_ROUTES } from "./routes/alertRoutes.js";
import { AUTHORS_ROUTES } from "./routes/authorsRoutes.js";
import { MCP_ROUTES } from "./routes/mcpRoutes.js";
import { SEARCH_ROUTES } from "./routes/searchRoutes.js";
import { TOOL_ROUTES } from "./routes/toolRoutes.js";
import { WORKS_ROUTES } from "./routes/worksRoutes.js";
import { WEBHOOK_ROUTES } from "./routes/webhookRoutes.js";
import { HEALTH_ROUTES } from "./routes/healthRoutes.js";
import { DOCS_ROUTES } from "./routes/docsRoutes.js";
import { ADMIN_ROUTES } from "./routes/adminRoutes.js";
import {
  dashboardMemberRoutes,
  dashboardOpenRoutes,
  dashboardOperatorRoutes,
  type DashboardRouteDeps,
} from "./routes/dashboardRoutes.js";

/** The console's declarations as the document lists them: their handlers read the dependencies only when called. */
const LISTED_ONLY = {} as DashboardRouteDeps;

/** Every declared route, group by group, in the order the document lists them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each group's handlers read their own dependencies
export const DECLARED_ROUTES: readonly (readonly RouteDeclaration<any>[])[] = [
  SEARCH_ROUTES,
  WORKS_ROUTES,
  AUTHORS_ROUTES,
  WEBHOOK_ROUTES,
  ALERT_ROUTES,
  TOOL_ROUTES,
  MCP_ROUTES,
  ADMIN_ROUTES,
  HEALTH_ROUTES,
  DOCS_ROUTES,
  dashboardOpenRoutes(LISTED_ONLY),
  dashboardMemberRoutes(LISTED_ONLY),
  dashboardOperatorRoutes(LISTED_ONLY),
];

export function declaredOperations(): Operation[] {
  return DECLARED_ROUTES.flatMap((routes) => routes.map(operationOf));
}

export function buildOpenApiDocument(): Record<string, unknown> {
  return documentOf(declaredOperations());
}
