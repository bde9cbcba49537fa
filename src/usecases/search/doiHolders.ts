// Where pinned DOIs are held: the engine lookup the doi_not_in_collection check (filters/doiReach.ts) is given.
import type { FilterNode } from "../../filters/ast.js";
import type { DoiHolders } from "../../filters/doiReach.js";
import type { SearchEngine } from "../../retrieval/port.js";

/**
 * DOI -> the collections holding at least one chunk with it: one count per collection, then one per DOI where it
 * holds any.
 */
export function doiHoldersIn(engine: Pick<SearchEngine, "countChunks" | "hasIndex">): DoiHolders {
  return async (collections, dois) => {
    const perCollection = await Promise.all(
      collections.map(async (collection): Promise<[string, string[]]> => {
        if (!(await engine.hasIndex(collection))) return [collection, []];
        const anyOf: FilterNode = { kind: "in", field: "doi", values: [...dois] };
        if ((await engine.countChunks(collection, anyOf)) === 0) return [collection, []];
        if (dois.length === 1) return [collection, [...dois]];
        const counts = await Promise.all(
          dois.map((doi) => engine.countChunks(collection, { kind: "eq", field: "doi", value: doi })),
        );
        return [collection, dois.filter((_, position) => counts[position] > 0)];
      }),
    );
    const holders = new Map<string, string[]>();
    for (const [collection, held] of perCollection) {
      for (const doi of held) holders.set(doi, [...(holders.get(doi) ?? []), collection]);
    }
    return holders;
  };
}
