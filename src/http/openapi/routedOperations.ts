// The (method, path) pairs a set of routers serves, spelled as OpenAPI paths: what the document must cover.
import type Router from "@koa/router";

interface RoutedOperation {
  method: string;
  path: string;
}

/**
 * HEAD is implied by GET (the router adds it), so it is not listed; `:param` and a wildcard `*param` (a value that may
 * hold slashes) become `{param}`.
 */
export function routedOperations(routers: readonly Router[]): RoutedOperation[] {
  return routers.flatMap((router) =>
    router.stack.flatMap((layer) =>
      layer.methods
        .filter((method) => method !== "HEAD")
        .map((method) => ({ method, path: String(layer.path).replace(/[:*](\w+)/g, "{$1}") })),
    ),
  );
}

/**
 * How the routes a set of routers serves and the routes declared differ, one line each: a route served but not
 * declared, one declared but not served, one served or declared twice. createApp refuses to start on any, so the
 * OpenAPI document, built from the declarations, describes exactly the routes the app serves.
 */
export function routeMismatches(routed: readonly RoutedOperation[], declared: readonly RoutedOperation[]): string[] {
  const spell = (op: RoutedOperation) => `${op.method.toUpperCase()} ${op.path}`;
  const served = routed.map(spell);
  const listed = declared.map(spell);
  const twice = (all: string[]) => all.filter((op, i) => all.indexOf(op) !== i);
  return [
    ...[...new Set(served)].filter((op) => !listed.includes(op)).map((op) => `${op} is served but not declared`),
    ...[...new Set(listed)].filter((op) => !served.includes(op)).map((op) => `${op} is declared but not served`),
    ...twice(served).map((op) => `${op} is served twice`),
    ...twice(listed).map((op) => `${op} is declared twice`),
  ];
}
