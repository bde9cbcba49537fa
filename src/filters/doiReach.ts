// The `doi_not_in_collection` check: which DOIs pinned by a filter the searched collections do not hold, and where they
// are instead.
import { doiNotInCollectionWarning, type DoiWhereabouts, type FilterWarning } from "./warnings.js";
import type { CollectionCatalog } from "../domain/collectionDefinitions.js";

/** The spec's cover: at most ten pinned DOIs are checked per request. */
const MAX_DOIS_CHECKED = 10;

/** How long the check may run beside the search; past it the warnings are omitted (the spec's best effort). */
const DEFAULT_DOI_REACH_BUDGET_MS = 1_500;

/**
 * DOI -> the collections among `collections` holding at least one chunk with it (the search use case asks the engine);
 * a DOI none holds is absent.
 */
export type DoiHolders = (collections: readonly string[], dois: readonly string[]) => Promise<Map<string, string[]>>;

/**
 * Of these DOIs, those these collections hold retracted, as the keys of its answer (the works use case's
 * RetractedHeld, by the retraction rule).
 */
export type RetractedHolders = (
  field: "doi",
  dois: readonly string[],
  collections: readonly string[],
) => Promise<ReadonlyMap<string, unknown>>;

interface DoiReachInput {
  holders: DoiHolders;
  /** canonical DOIs pinned by the filter (eq/in outside any negation), in filter order */
  dois: readonly string[];
  /** physical collections (engine indexes) the request searches */
  searched: readonly string[];
  /** physical collections the key can reach that the request does not search */
  unsearchedInScope: readonly string[];
  /** physical collections outside the key's scope; never named in a warning */
  outOfScope: readonly string[];
  /** of DOIs no collection's chunks hold, those a collection the key reaches holds retracted (kept out of search) */
  retracted?: (dois: readonly string[]) => Promise<ReadonlyMap<string, unknown>>;
  /** the DOI the query itself is (a search kept to the work it names): its warning speaks of the query */
  queryDoi?: string;
  budgetMs?: number;
}

/**
 * One warning per checked DOI that no searched collection holds, in filter order. Resolves to [] when the
 * check cannot finish within the budget or the engine fails: a partial or wrong answer is worse than none.
 */
export async function doiNotInCollectionWarnings(input: DoiReachInput): Promise<FilterWarning[]> {
  const dois = input.dois.slice(0, MAX_DOIS_CHECKED);
  if (dois.length === 0) return [];
  const budgetMs = input.budgetMs ?? DEFAULT_DOI_REACH_BUDGET_MS;
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), budgetMs);
  });
  const check = findWhereabouts(input, dois).catch(() => "failed" as const);
  try {
    const outcome = await Promise.race([check, outOfTime]);
    if (outcome === "timeout" || outcome === "failed") return [];
    return dois.flatMap((doi) => {
      const whereabouts = outcome.get(doi);
      const askedBy = doi === input.queryDoi ? "query" : "filter";
      return whereabouts ? [doiNotInCollectionWarning(doi, input.searched, whereabouts, askedBy)] : [];
    });
  } finally {
    clearTimeout(timer);
  }
}

/** For each DOI the searched collections lack: where it is instead. DOIs a searched collection holds are absent. */
async function findWhereabouts(input: DoiReachInput, dois: readonly string[]): Promise<Map<string, DoiWhereabouts>> {
  const [searched, unsearched, outOfScope] = await Promise.all([
    input.holders(input.searched, dois),
    input.holders(input.unsearchedInScope, dois),
    input.holders(input.outOfScope, dois),
  ]);
  const missing = new Map<string, DoiWhereabouts>();
  for (const doi of dois) {
    if ((searched.get(doi) ?? []).length > 0) continue;
    const reachable = unsearched.get(doi) ?? [];
    if (reachable.length > 0) missing.set(doi, { kind: "unsearched", collections: reachable });
    else if ((outOfScope.get(doi) ?? []).length > 0) missing.set(doi, { kind: "out_of_scope" });
    else missing.set(doi, { kind: "nowhere" });
  }
  const nowhere = [...missing].flatMap(([doi, where]) => (where.kind === "nowhere" ? [doi] : []));
  if (nowhere.length > 0 && input.retracted)
    for (const doi of (await input.retracted(nowhere)).keys()) missing.set(doi, { kind: "retracted" });
  return missing;
}

/**
 * The check as the search pipeline runs it: `searched` are the physical collections the request searches; the
 * key's scope (plain or meta-collection names, null for organization-wide) decides which others may be named.
 */
export function checkPinnedDois(input: {
  holders: DoiHolders;
  catalog: CollectionCatalog;
  keyScope: readonly string[] | null | undefined;
  searched: readonly string[];
  dois: readonly string[];
  retractedHeld?: RetractedHolders;
  queryDoi?: string;
  budgetMs?: number;
}): Promise<FilterWarning[]> {
  const searched = new Set(input.searched);
  const inScope = new Set<string>();
  const scopeEntries = input.keyScope
    ? input.keyScope.map((name) => input.catalog.resolveCollection(name))
    : input.catalog.collections;
  for (const entry of scopeEntries) {
    if (entry) for (const member of input.catalog.physicalMembers(entry)) inScope.add(member.name);
  }
  const others = input.catalog.collections.map((collection) => collection.name).filter((name) => !searched.has(name));
  const unsearchedInScope = others.filter((name) => inScope.has(name));
  const retractedHeld = input.retractedHeld;
  return doiNotInCollectionWarnings({
    holders: input.holders,
    dois: input.dois,
    searched: [...searched],
    unsearchedInScope,
    outOfScope: others.filter((name) => !inScope.has(name)),
    ...(retractedHeld ? { retracted: (dois) => retractedHeld("doi", dois, [...searched, ...unsearchedInScope]) } : {}),
    ...(input.queryDoi ? { queryDoi: input.queryDoi } : {}),
    budgetMs: input.budgetMs,
  });
}
