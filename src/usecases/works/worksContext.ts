// What the works use cases share, built once: the reachable collections of a key, the budget slot each call takes,
// and works assembled from the rows of the works table (merged across the collections holding each).
import type { Db } from "../../eventstore/db.js";
import type { AuthContext } from "../auth/context.js";
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import { parseWorkId, resolvingUrl, type WorkId } from "../../domain/identifiers.js";
import { UNCHECKED_INTEGRITY } from "../../domain/integrity.js";
import { manifestKey } from "../../ingest/manifest.js";
import type { CitedWorkIds } from "../../ingest/sourceDocument.js";
import type { WorkFields } from "../../ingest/works.js";
import { reachableCollections } from "../auth/keyScope.js";
import { takeMinuteBudget } from "../limits/quotas.js";
import {
  citedByCounts,
  heldReferenceCounts,
  rowsByIds,
  rowsCitedAs,
  type CitedIdentity,
  type WorkRow,
} from "./worksReads.js";
import { groupCiting, groupRows, pick, unheldEntry, type GraphEntry, type Work, type WorksDeps } from "./workShapes.js";

export interface WorksContext {
  deps: WorksDeps;
  db: Db;
  catalog: WorksDeps["catalog"];
  /** index key -> collection name, filled as keys are scoped */
  collectionOf: Map<string, string>;
  /**
   * what worksOf learnt of each work it made while counting its citing works: whether no two of its citing documents
   * share an id (then citedByHeld is their number, and a cited-by page reads them in order without grouping)
   */
  citingApart: WeakMap<Work, boolean>;
}

export function worksContextOf(deps: WorksDeps): WorksContext {
  return { deps, db: deps.db, catalog: deps.catalog, collectionOf: new Map(), citingApart: new WeakMap() };
}

/** the reachable collections' index keys, in catalogue order */
export function scopeOf({ deps, catalog, collectionOf }: WorksContext, auth: AuthContext): string[] {
  const reachable = new Set(reachableCollections(catalog as CollectionCatalog, auth.key.collections));
  return catalog.collections
    .filter((c) => reachable.has(c.name))
    .map((c) => {
      const key = manifestKey(deps.engineKind, c.name);
      collectionOf.set(key, c.name);
      return key;
    });
}

export async function admit({ db, deps }: WorksContext, auth: AuthContext): Promise<void> {
  await takeMinuteBudget(db, auth.org, deps.clock());
}

export const workKey = (w: Work) => w.ids.openalex ?? w.ids.doi ?? w.ids.pmid ?? w.ids.docId;

/** Rows of one work merged: the first holder in catalogue order answers each field it has, the others fill gaps. */
export async function worksOf(
  { deps, db, collectionOf, citingApart }: WorksContext,
  groups: readonly WorkRow[][],
  keys: readonly string[],
): Promise<Work[]> {
  const order = new Map(keys.map((k, i) => [k, i]));
  const sorted = groups.map((g) => [...g].sort((a, b) => (order.get(a.indexKey) ?? 0) - (order.get(b.indexKey) ?? 0)));
  const holders = sorted.map((g) => g.find((r) => r.referencesRecorded !== null) ?? g[0]!);
  const identities: CitedIdentity[] = sorted.map((g) => ({
    doi: pick(g, (r) => r.doi),
    pmid: pick(g, (r) => r.pmid),
    openalex: pick(g, (r) => r.openalex),
  }));
  const [heldRefs, citing, integrity] = await Promise.all([
    heldReferenceCounts(db, keys, holders),
    citedByCounts(db, keys, identities, (rows) => groupCiting(rows, keys).length),
    // every holder's own source record counts: the work is retracted if one of them flags it (as search excludes)
    deps.integrity(identities.map((id, i) => ({ doi: id.doi, own: sorted[i]!.flatMap((r) => r.notices) }))),
  ]);
  return sorted.map((g, i) => {
    const first = g[0]!;
    const field = <K extends keyof WorkFields>(k: K): WorkFields[K] =>
      g.map((r) => r.fields[k]).find((v) => v !== null && !(Array.isArray(v) && v.length === 0)) ?? first.fields[k];
    const id = identities[i]!;
    const holder = holders[i]!;
    const work: Work = {
      ids: { doi: id.doi, pmid: id.pmid, pmcid: pick(g, (r) => r.pmcid), openalex: id.openalex, docId: first.docId },
      title: field("title"),
      authors: field("authors"),
      // stored before works kept authorships: none, never names read as people
      authorships: field("authorships") ?? [],
      journal: field("journal"),
      issn: field("issn"),
      publisher: field("publisher"),
      publication_date: field("publication_date"),
      article_type: field("article_type"),
      open_access: field("open_access"),
      license: field("license"),
      url: field("url") ?? resolvingUrl(id),
      citedByCount: field("cited_by_count"),
      integrity: integrity[i] ?? UNCHECKED_INTEGRITY,
      collections: [...new Set(g.map((r) => collectionOf.get(r.indexKey)!))],
      searchable: g.some((r) => r.searchable),
      referencesRecorded: holder.referencesRecorded,
      referencesHeld: heldRefs.get(`${holder.indexKey}\u0000${holder.docId}`) ?? 0,
      citedByHeld: citing.get(i)?.works ?? 0,
    };
    citingApart.set(work, citing.get(i)?.apart ?? true);
    return work;
  });
}

/** Each id's work (null: no reachable collection holds it), in the order given. */
export async function resolve(
  ctx: WorksContext,
  keys: readonly string[],
  ids: readonly string[],
): Promise<{ work: Work | null; rows: WorkRow[] }[]> {
  const parsed = ids.map((id) => parseWorkId(id));
  // a bare number is a PubMed id first, else a result's doc_id
  const asked = parsed.flatMap((p): WorkId[] => (!p ? [] : p.orDocId ? [p, { field: "doc_id", value: p.value }] : [p]));
  const found = await rowsByIds(ctx.db, keys, asked);
  const rowsOf = parsed.map((p) => {
    if (!p) return [];
    const rows = found.get(`${p.field}:${p.value}`) ?? [];
    return rows.length === 0 && p.orDocId ? (found.get(`doc_id:${p.value}`) ?? []) : rows;
  });
  // a doc_id names one collection's document; an identifier may match the same work in several collections
  const groups = rowsOf.map((rows) => groupRows(rows)[0] ?? []);
  const held = groups.map((g, i) => ({ g, i })).filter(({ g }) => g.length > 0);
  const works = await worksOf(
    ctx,
    held.map(({ g }) => g),
    keys,
  );
  const answer = ids.map(() => ({ work: null as Work | null, rows: [] as WorkRow[] }));
  held.forEach(({ g, i }, k) => (answer[i] = { work: works[k]!, rows: g }));
  return answer;
}

/** Entries for these cited ids: each the held work where a reachable collection holds it, else the ids. */
export async function entriesFor(
  ctx: WorksContext,
  keys: readonly string[],
  refs: readonly CitedWorkIds[],
): Promise<GraphEntry[]> {
  const rows = await rowsCitedAs(ctx.db, keys, refs);
  const groups = groupRows(rows);
  const works = await worksOf(ctx, groups, keys);
  const byId = new Map<string, Work>();
  works.forEach((w) => {
    if (w.ids.doi) byId.set(`doi:${w.ids.doi}`, w);
    if (w.ids.pmid) byId.set(`pmid:${w.ids.pmid}`, w);
    if (w.ids.openalex) byId.set(`oa:${w.ids.openalex}`, w);
  });
  return refs.map((r) => {
    const work =
      (r.doi && byId.get(`doi:${r.doi}`)) ||
      (r.pmid && byId.get(`pmid:${r.pmid}`)) ||
      (r.openalex && byId.get(`oa:${r.openalex}`));
    return work ? { held: true as const, ...work } : { held: false as const, ...unheldEntry(r) };
  });
}
