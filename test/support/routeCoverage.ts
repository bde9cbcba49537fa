// Whether the OpenAPI document and the app's routes cover each other: the check the OpenAPI tests make, unit and e2e.

/** Routes no documented operation describes, and documented operations no route serves, as "METHOD /path". */
export function routeCoverage(
  routed: readonly { method: string; path: string }[],
  document: { paths: Record<string, object> },
): { undocumented: string[]; unrouted: string[] } {
  const served = routed.map((r) => `${r.method} ${r.path}`);
  const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
  );
  return {
    undocumented: served.filter((r) => !documented.includes(r)),
    unrouted: documented.filter((d) => !served.includes(d)),
  };
}
