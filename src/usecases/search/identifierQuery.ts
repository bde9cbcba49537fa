// A query that is a work's DOI, pasted from a reference list or a URL: the work itself is what is asked for. Searched
// as text, a DOI matched unrelated rows, which a paid search charged for. Now the search keeps to the work (a
// condition on its DOI) and ranks its chunks by the work's title; a DOI the collections searched do not hold finds
// nothing and charges nothing.
import { canonicalDoi } from "../../domain/identifiers.js";
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import type { SearchEngine } from "../../retrieval/port.js";
import type { AuthContext } from "../auth/context.js";
import { resolveTargets } from "../auth/keyScope.js";
import type { SearchRequestInput } from "./pipeline.js";
import { holdingChunks, workCondition } from "./moreLikeThis.js";
import { queryProblem } from "./queryValidation.js";

/** The DOI a query is, whole (bare, `doi:` or a doi.org link; punctuation a copy takes along at its end aside). */
export function doiOfQuery(query: string): string | null {
  const trimmed = query
    .trim()
    .replace(/[.,;]+$/, "")
    .replace(/^doi:\s+/i, "doi:");
  return /\s/.test(trimmed) ? null : canonicalDoi(trimmed);
}

interface IdentifierDeps {
  catalog: CollectionCatalog;
  engine: Pick<SearchEngine, "findChunks" | "hasIndex">;
}

/**
 * The request kept to the work its query names by DOI, searched by the work's title where a collection searched
 * holds it; the request unchanged when its query is not a DOI (or it already carries constraints of its own).
 */
export async function withIdentifiedWork(
  deps: IdentifierDeps,
  auth: AuthContext,
  input: SearchRequestInput,
): Promise<SearchRequestInput> {
  // a sandbox key never reaches a real work, not even its title
  if (auth.billingMode === "sandbox") return input;
  const doi = input.like || input.constraints !== undefined ? null : doiOfQuery(input.query);
  if (!doi) return input;
  const condition = workCondition(doi);
  const physical = [
    ...new Set(resolveTargets(deps.catalog, auth, input.collections).flatMap((t) => t.physical.map((c) => c.name))),
  ];
  const holders = await holdingChunks(deps.engine, physical, () => condition);
  const titles = holders.map((holder) => {
    // a title the search could not take as a query ("?") leaves the DOI as the text ranked by
    const title = holder?.chunk.metadata.title;
    return typeof title === "string" && queryProblem(title) === null ? title : null;
  });
  const title = titles.find((t) => t !== null);
  return {
    ...input,
    query: title ?? input.query,
    constraints: { field: "doi", eq: doi },
    identifier: input.query.trim(),
  };
}
