// The (method, path) pairs a set of routers serves, spelled as OpenAPI paths: what the document must cover.
import type Router from "@koa/router";

export interface RoutedOperation {
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
