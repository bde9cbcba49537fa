// What an API key reaches: the collections in its scope, and the requested names resolved against it (404 for a name
// that does not exist, 403 for one outside the key's scope). Every use case that searches resolves through here.
import type { CatalogEntry, CollectionCatalog, PlainCollection } from "../../domain/collectionDefinitions.js";
import { didYouMean } from "../../domain/didYouMean.js";
import { Rejection } from "../../domain/rejection.js";
import type { AuthContext } from "./context.js";

export function inKeyScope(auth: AuthContext, entry: CatalogEntry): boolean {
  return !auth.key.collections || auth.key.collections.some((c) => c.toLowerCase() === entry.name.toLowerCase());
}

/** The names of the collections (plain and meta) this key may search: what a misspelled name is matched against. */
export function reachableNames(catalog: CollectionCatalog, auth: AuthContext): string[] {
  return [...catalog.collections, ...catalog.metaCollections]
    .filter((entry) => inKeyScope(auth, entry))
    .map((entry) => entry.name);
}

/**
 * A search of a retired collection: 404 COLLECTION_NOT_FOUND (as for a name never defined) saying it was retired and
 * when, with the collections the caller can search instead.
 */
export function retiredCollection(retired: { name: string; at: string }, reachable: readonly string[]): Rejection {
  const named = reachable.slice(0, 5).map((n) => `"${n}"`);
  const instead =
    named.length > 0 ? `search one of ${named.join(", ")}${reachable.length > 5 ? ", ..." : ""} instead, or ` : "";
  return new Rejection(
    "COLLECTION_NOT_FOUND",
    `collection "${retired.name}" was retired on ${retired.at} and can no longer be searched; ${instead}` +
      "GET /api/v1/search/collections (MCP: list_collections) lists the ones you can search",
    { collection: retired.name, retired: true, retiredAt: retired.at },
  );
}

/** Resolves requested names and enforces the key's scope (403) and existence (404). */
export function resolveTargets(
  catalog: CollectionCatalog,
  auth: AuthContext,
  names: string[],
): { requested: CatalogEntry; physical: PlainCollection[] }[] {
  const seen = new Set<string>();
  const out: { requested: CatalogEntry; physical: PlainCollection[] }[] = [];
  for (const name of names) {
    const entry = catalog.resolveCollection(name);
    if (!entry) {
      const retired = catalog.retiredAt?.(name);
      if (retired) throw retiredCollection(retired, reachableNames(catalog, auth));
      throw new Rejection(
        "COLLECTION_NOT_FOUND",
        `collection "${name}" does not exist.${didYouMean(name, reachableNames(catalog, auth))} ` +
          "GET /api/v1/search/collections (MCP: list_collections) lists the ones you can search",
      );
    }
    if (!inKeyScope(auth, entry)) {
      throw new Rejection(
        "NO_COLLECTION_ACCESS",
        `this API key cannot reach collection "${entry.name}".${didYouMean(name, reachableNames(catalog, auth))} ` +
          "GET /api/v1/search/collections (MCP: list_collections) lists the ones it can",
      );
    }
    if (seen.has(entry.name)) continue;
    seen.add(entry.name);
    out.push({ requested: entry, physical: catalog.physicalMembers(entry) });
  }
  return out;
}

/** The plain collections a key with this scope reaches (null: all of them; absent: none). */
export function reachableCollections(
  catalog: CollectionCatalog,
  scope: readonly string[] | null | undefined,
): string[] {
  if (scope === undefined) return [];
  if (scope === null) return catalog.collections.map((c) => c.name);
  const names = new Set<string>();
  for (const name of scope) {
    const entry = catalog.resolveCollection(name);
    if (entry) for (const member of catalog.physicalMembers(entry)) names.add(member.name);
  }
  return [...names];
}
