// Works: a paper by any identifier (one or a batch), its references and the works citing it, from the works table the
// ingestion writes (src/ingest/works.ts). Only the collections the key reaches count: a work held only elsewhere
// answers like one held nowhere. Free, but each call takes a slot of the per-minute budget; sandbox keys get synthetic
// works. Never the text: that is what search and unlock sell.
import { createHash } from "node:crypto";
import type { Db } from "../../eventstore/db.js";
import type { AuthContext } from "../auth/context.js";
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import { Rejection } from "../../domain/rejection.js";
import { parseWorkId, resolvingUrl, type WorkId } from "../../domain/identifiers.js";
import { NO_INTEGRITY_NOTICE, type Integrity, type WorkEvidence } from "../../domain/integrity.js";
import { manifestKey } from "../../ingest/manifest.js";
import type { CitedWorkIds } from "../../ingest/sourceDocument.js";
import type { WorkFields } from "../../ingest/works.js";
import { reachableCollections } from "../auth/keyScope.js";
import { takeMinuteBudget } from "../limits/quotas.js";
import { rowsWithIntegrity, type IntegrityOf } from "./integrityRows.js";
import { exportWorkOf, exportWorksOfRows, type ExportExtras, type ExportWork } from "./citationExport.js";
import { listCursorOf, offsetOfCursor } from "../../domain/cursors.js";
import {
  citingRows,
  heldReferenceCounts,
  referencesOf,
  rowsByIds,
  rowsByDocuments,
  rowsCitedAs,
  type CitedIdentity,
  type WorkRow,
} from "./worksReads.js";

/** What exports add to a work (the works table keeps it): never in the JSON answers. */
type ExportOnlyField = "abstract" | "keywords" | "mesh";

export interface Work extends Omit<WorkFields, "cited_by_count" | ExportOnlyField> {
  ids: { doi: string | null; pmid: string | null; pmcid: string | null; openalex: string | null; docId: string };
  /** the source's count of works citing it (OpenAlex); null where the source has none */
  citedByCount: number | null;
  integrity: Integrity;
  /** the reachable collections holding it */
  collections: string[];
  /** references the source records (null: it records none) and how many of them the reachable collections hold */
  referencesRecorded: number | null;
  referencesHeld: number;
  /** works of the reachable collections that cite it */
  citedByHeld: number;
  synthetic?: true;
}

export type BatchEntry = ({ id: string } & Work) | { id: string; error: { code: "WORK_NOT_FOUND"; message: string } };

/**
 * A reference or citing work: the work where a reachable collection holds it, else the identifiers the source gives.
 */
export type GraphEntry =
  | ({ held: true } & Work)
  | {
      held: false;
      /** what the source knows of it: the identifiers its reference list gives */
      ids: { doi: string | null; pmid: string | null; openalex: string | null };
      /** the link that resolves it: doi.org, else PubMed, else OpenAlex */
      url: string | null;
    };

export interface GraphPage {
  work: { ids: Work["ids"] };
  items: GraphEntry[];
  nextCursor: string | null;
  coverage: { recorded: number | null; held: number; note: string };
}

export interface WorksDeps {
  db: Db;
  catalog: Pick<CollectionCatalog, "collections" | "resolveCollection" | "physicalMembers">;
  engineKind: string;
  /** each work's integrity by the retraction rule, under the update lists in force */
  integrity: (works: readonly WorkEvidence[]) => Promise<Integrity[]>;
  /** the same for rows that name their work by DOI and PMID only (a kept search's rows, for exports) */
  rowIntegrity: IntegrityOf;
  clock: () => Date;
}

/** Why no work answers `id`, naming the spellings that would (for a bare number: its `pmid:` form). */
export function notFound(id: string): string {
  const parsed = parseWorkId(id);
  if (parsed?.orDocId)
    return (
      `no collection this key can reach holds a work with PubMed id ${parsed.value} or doc_id "${parsed.value}" ` +
      `(a bare number is read as pmid:${parsed.value}, then as a doc_id); send pmid:${parsed.value} to name the ` +
      "PubMed id, or the work's DOI (10.…), PMCID (PMC…) or OpenAlex id (W…)"
    );
  return (
    `no collection this key can reach holds a work "${id}"; ids are a DOI (bare, doi:… or https://doi.org/…), ` +
    "pmid:NNN or a PubMed URL, pmcid:PMCNNN, an OpenAlex id (W… or its openalex.org URL) or a result's doc_id"
  );
}

/** Groups rows that share a DOI, PMID or OpenAlex id (the same work in several collections), in first-seen order. */
export function groupRows(rows: readonly WorkRow[]): WorkRow[][] {
  const groups: WorkRow[][] = [];
  const byId = new Map<string, number>();
  for (const row of rows) {
    const keys = [
      row.doi && `doi:${row.doi}`,
      row.pmid && `pmid:${row.pmid}`,
      row.openalex && `oa:${row.openalex}`,
    ].filter((k): k is string => !!k);
    const at = keys.map((k) => byId.get(k)).find((g) => g !== undefined);
    const group = at ?? groups.push([]) - 1;
    groups[group]!.push(row);
    for (const k of keys) if (!byId.has(k)) byId.set(k, group);
  }
  return groups;
}

export function createWorks(deps: WorksDeps) {
  const { db, catalog } = deps;
  const collectionOf = new Map<string, string>();
  /** the reachable collections' index keys, in catalogue order */
  const scopeOf = (auth: AuthContext): string[] => {
    const reachable = new Set(reachableCollections(catalog as CollectionCatalog, auth.key.collections));
    return catalog.collections
      .filter((c) => reachable.has(c.name))
      .map((c) => {
        const key = manifestKey(deps.engineKind, c.name);
        collectionOf.set(key, c.name);
        return key;
      });
  };

  async function admit(auth: AuthContext): Promise<void> {
    await takeMinuteBudget(db, auth.org, deps.clock());
  }

  /** Rows of one work merged: the first holder in catalogue order answers each field it has, the others fill gaps. */
  async function worksOf(groups: readonly WorkRow[][], keys: readonly string[]): Promise<Work[]> {
    const order = new Map(keys.map((k, i) => [k, i]));
    const sorted = groups.map((g) =>
      [...g].sort((a, b) => (order.get(a.indexKey) ?? 0) - (order.get(b.indexKey) ?? 0)),
    );
    const holders = sorted.map((g) => g.find((r) => r.referencesRecorded !== null) ?? g[0]!);
    const identities: CitedIdentity[] = sorted.map((g) => ({
      doi: pick(g, (r) => r.doi),
      pmid: pick(g, (r) => r.pmid),
      openalex: pick(g, (r) => r.openalex),
    }));
    const [heldRefs, citing, integrity] = await Promise.all([
      heldReferenceCounts(db, keys, holders),
      citingRows(db, keys, identities),
      // every holder's own source record counts: the work is retracted if one of them flags it (as search excludes)
      deps.integrity(identities.map((id, i) => ({ doi: id.doi, own: sorted[i]!.flatMap((r) => r.notices) }))),
    ]);
    return sorted.map((g, i) => {
      const first = g[0]!;
      const field = <K extends keyof WorkFields>(k: K): WorkFields[K] =>
        g.map((r) => r.fields[k]).find((v) => v !== null && !(Array.isArray(v) && v.length === 0)) ?? first.fields[k];
      const id = identities[i]!;
      const holder = holders[i]!;
      return {
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
        integrity: integrity[i] ?? NO_INTEGRITY_NOTICE,
        collections: [...new Set(g.map((r) => collectionOf.get(r.indexKey)!))],
        referencesRecorded: holder.referencesRecorded,
        referencesHeld: heldRefs.get(`${holder.indexKey}\u0000${holder.docId}`) ?? 0,
        citedByHeld: groupRows(citing.get(i) ?? []).length,
      };
    });
  }

  /** Each id's work (null: no reachable collection holds it), in the order given. */
  async function resolve(
    keys: readonly string[],
    ids: readonly string[],
  ): Promise<{ work: Work | null; rows: WorkRow[] }[]> {
    const parsed = ids.map((id) => parseWorkId(id));
    // a bare number is a PubMed id first, else a result's doc_id
    const asked = parsed.flatMap((p): WorkId[] =>
      !p ? [] : p.orDocId ? [p, { field: "doc_id", value: p.value }] : [p],
    );
    const found = await rowsByIds(db, keys, asked);
    const rowsOf = parsed.map((p) => {
      if (!p) return [];
      const rows = found.get(`${p.field}:${p.value}`) ?? [];
      return rows.length === 0 && p.orDocId ? (found.get(`doc_id:${p.value}`) ?? []) : rows;
    });
    // a doc_id names one collection's document; an identifier may match the same work in several collections
    const groups = rowsOf.map((rows) => groupRows(rows)[0] ?? []);
    const held = groups.map((g, i) => ({ g, i })).filter(({ g }) => g.length > 0);
    const works = await worksOf(
      held.map(({ g }) => g),
      keys,
    );
    const answer = ids.map(() => ({ work: null as Work | null, rows: [] as WorkRow[] }));
    held.forEach(({ g, i }, k) => (answer[i] = { work: works[k]!, rows: g }));
    return answer;
  }

  async function get(auth: AuthContext, id: string): Promise<Work> {
    await admit(auth);
    if (auth.billingMode === "sandbox") return syntheticWork(id);
    const [one] = await resolve(scopeOf(auth), [id]);
    if (!one?.work) throw new Rejection("WORK_NOT_FOUND", notFound(id));
    return one.work;
  }

  async function batch(auth: AuthContext, ids: readonly string[]): Promise<BatchEntry[]> {
    await admit(auth);
    if (auth.billingMode === "sandbox") return ids.map((id) => ({ id, ...syntheticWork(id) }));
    const resolved = await resolve(scopeOf(auth), ids);
    return ids.map((id, i) => {
      const work = resolved[i]!.work;
      return work ? { id, ...work } : { id, error: { code: "WORK_NOT_FOUND" as const, message: notFound(id) } };
    });
  }

  /** Entries for these cited ids: each the held work where a reachable collection holds it, else the ids. */
  async function entriesFor(keys: readonly string[], refs: readonly CitedWorkIds[]): Promise<GraphEntry[]> {
    const rows = await rowsCitedAs(db, keys, refs);
    const groups = groupRows(rows);
    const works = await worksOf(groups, keys);
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

  const workKey = (w: Work) => w.ids.openalex ?? w.ids.doi ?? w.ids.pmid ?? w.ids.docId;

  /** The work a list belongs to, the reachable index keys and where the page starts; null for a sandbox key. */
  async function openList(auth: AuthContext, id: string, list: "references" | "cited-by", cursor: string | undefined) {
    await admit(auth);
    if (auth.billingMode === "sandbox") return null;
    const keys = scopeOf(auth);
    const [one] = await resolve(keys, [id]);
    if (!one?.work) throw new Rejection("WORK_NOT_FOUND", notFound(id));
    return { keys, rows: one.rows, work: one.work, offset: offsetOfCursor(cursor, list, workKey(one.work)) };
  }

  async function references(
    auth: AuthContext,
    id: string,
    page: { limit: number; cursor?: string },
  ): Promise<GraphPage> {
    const opened = await openList(auth, id, "references", page.cursor);
    if (!opened) return syntheticPage(id, "references");
    const { keys, work, offset, rows } = opened;
    const holder = rows.find((r) => r.referencesRecorded !== null) ?? rows[0]!;
    const refs = await referencesOf(db, holder.indexKey, holder.docId);
    const items = await entriesFor(keys, refs.slice(offset, offset + page.limit));
    const next =
      offset + page.limit < refs.length
        ? listCursorOf({ list: "references", work: workKey(work), offset: offset + page.limit })
        : null;
    const recorded = work.referencesRecorded;
    const note = referencesNote(collectionOf.get(holder.indexKey), recorded, refs.length, work.referencesHeld);
    return {
      work: { ids: work.ids },
      items,
      nextCursor: next,
      coverage: { recorded, held: work.referencesHeld, note },
    };
  }

  async function citedBy(auth: AuthContext, id: string, page: { limit: number; cursor?: string }): Promise<GraphPage> {
    const opened = await openList(auth, id, "cited-by", page.cursor);
    if (!opened) return syntheticPage(id, "cited-by");
    const { keys, work, offset } = opened;
    const citing = groupRows(
      (await citingRows(db, keys, [{ doi: work.ids.doi, pmid: work.ids.pmid, openalex: work.ids.openalex }])).get(0) ??
        [],
    );
    const all = await worksOf(citing, keys);
    // newest first, then by id: a stable order the cursor pages through
    all.sort((a, b) =>
      listedOrder({ date: a.publication_date, key: workKey(a) }, { date: b.publication_date, key: workKey(b) }),
    );
    const items = all.slice(offset, offset + page.limit).map((w) => ({ held: true as const, ...w }));
    const next =
      offset + page.limit < all.length
        ? listCursorOf({ list: "cited-by", work: workKey(work), offset: offset + page.limit })
        : null;
    const recorded = work.citedByCount;
    const note = citedByNote(recorded, all.length);
    return { work: { ids: work.ids }, items, nextCursor: next, coverage: { recorded, held: all.length, note } };
  }

  /** The found works of these ids as export entries, in order (unknown ids left out); one call of the budget. */
  async function exportIds(auth: AuthContext, ids: readonly string[]): Promise<ExportWork[]> {
    await admit(auth);
    if (auth.billingMode === "sandbox") return ids.map((id) => exportWorkOf(syntheticWork(id)));
    const resolved = await resolve(scopeOf(auth), ids);
    return resolved.flatMap(({ work, rows }) => (work ? [exportWorkOf(work, exportExtrasOf(rows))] : []));
  }

  /**
   * A kept search's rows as export entries (one per work, in result order) with what the works table keeps of each
   * (its abstract, keywords and MeSH headings) and its integrity under the lists in force now, whichever door asks
   * (the dashboard's rows are stored without it). The rows are the caller's own search, so their collections are read
   * as they are.
   */
  async function exportRows(stored: readonly { collection: string; metadata: Record<string, unknown> }[]) {
    const rows = await rowsWithIntegrity(stored, deps.rowIntegrity);
    const indexKeysOf = (collection: string): string[] => {
      const entry = catalog.resolveCollection(collection);
      const members = entry ? catalog.physicalMembers(entry).map((c) => c.name) : [];
      return [...new Set([collection, ...members])].map((name) => manifestKey(deps.engineKind, name));
    };
    const documents = rows.flatMap((r) =>
      typeof r.metadata.doc_id === "string"
        ? indexKeysOf(r.collection).map((indexKey) => ({ indexKey, docId: r.metadata.doc_id as string }))
        : [],
    );
    const found = await rowsByDocuments(db, documents);
    return exportWorksOfRows(rows, (collection, docId) => {
      const row = indexKeysOf(collection)
        .map((k) => found.get(`${k}\u0000${docId}`))
        .find((r) => r !== undefined);
      return row ? exportExtrasOf([row]) : undefined;
    });
  }

  /**
   * What other features that list works (authors) build on: the reachable index keys, their collection names, admit
   * (one slot of the per-minute budget) and works of row groups, answered as works lookups are.
   */
  const listing = {
    scopeOf,
    admit,
    collectionOf: (indexKey: string): string | undefined => collectionOf.get(indexKey),
    worksOf,
  };

  return { get, batch, references, citedBy, exportIds, exportRows, listing };
}

export type Works = ReturnType<typeof createWorks>;

/** What a work's reference list covers: what its source records, how many have ids, how many are held. */
function referencesNote(collection: string | undefined, recorded: number | null, withIds: number, held: number) {
  return recorded === null
    ? `The source of ${collection} records no references for this work: an empty list does not mean it cites nothing.`
    : `The source records ${recorded} references` +
        `${withIds < recorded ? `, ${withIds} of them with a DOI, PMID or OpenAlex id` : ""}; ` +
        `${held} are works in the collections this key reaches, the others are listed by their ids with held: false.`;
}

/** What a work's citing-works list covers: the source's count across the literature, and how many are held. */
function citedByNote(recorded: number | null, held: number): string {
  return recorded === null
    ? `The source records no count of citing works for this work; ${held} works in the collections this key reaches ` +
        "cite it (only sources that record references, such as OpenAlex, MEDLINE and JATS, contribute citations)."
    : `The source counts ${recorded} citing works across all of the literature; ${held} of them are works in the ` +
        "collections this key reaches.";
}

/** The order of every list of works (citing works, an author's works): newest first, then by id, stable for cursors. */
export function listedOrder(a: { date: string | null; key: string }, b: { date: string | null; key: string }): number {
  return (b.date ?? "").localeCompare(a.date ?? "") || a.key.localeCompare(b.key);
}

/** An unheld reference: the ids its source gives and the link that resolves it. */
export function unheldEntry(r: CitedWorkIds): Omit<Extract<GraphEntry, { held: false }>, "held"> {
  const ids = { doi: r.doi ?? null, pmid: r.pmid ?? null, openalex: r.openalex ?? null };
  return { ids, url: resolvingUrl(ids) };
}

/** What the works table keeps of a work for its exports: the first of its rows that has each. */
function exportExtrasOf(rows: readonly WorkRow[]): ExportExtras {
  const first = <T>(f: (r: WorkRow) => T | null | undefined, empty: (v: T) => boolean): T | undefined =>
    rows.map(f).find((v): v is T => v !== null && v !== undefined && !empty(v));
  return {
    abstract:
      first(
        (r) => r.fields.abstract,
        (v) => v === "",
      ) ?? null,
    keywords:
      first(
        (r) => r.fields.keywords,
        (v) => v.length === 0,
      ) ?? [],
    mesh:
      first(
        (r) => r.fields.mesh,
        (v) => v.length === 0,
      ) ?? [],
  };
}

function pick(rows: readonly WorkRow[], f: (r: WorkRow) => string | null): string | null {
  for (const r of rows) {
    const v = f(r);
    if (v) return v;
  }
  return null;
}

/** A sandbox key's work: the live shape, deterministic from the id, marked synthetic, no licensed metadata. */
export function syntheticWork(id: string): Work {
  const digest = createHash("sha256").update(id).digest("hex");
  const parsed = parseWorkId(id);
  return {
    ids: {
      doi: parsed?.field === "doi" ? parsed.value : null,
      pmid: parsed?.field === "pmid" ? parsed.value : null,
      pmcid: parsed?.field === "pmcid" ? parsed.value : null,
      openalex: parsed?.field === "openalex" ? parsed.value : null,
      docId: `syn_doc_${digest.slice(0, 12)}`,
    },
    title: `Synthetic work ${digest.slice(0, 8)}`,
    authors: ["Sandbox A", "Sandbox B"],
    authorships: [
      { name: "Sandbox A", id: null, orcid: null, position: "first" },
      { name: "Sandbox B", id: null, orcid: null, position: "last" },
    ],
    journal: "Sandbox Journal of Synthetic Results",
    issn: [],
    publisher: null,
    publication_date: `20${10 + (parseInt(digest.slice(8, 10), 16) % 15)}-01-01`,
    article_type: "other",
    open_access: null,
    license: null,
    url: null,
    citedByCount: null,
    integrity: NO_INTEGRITY_NOTICE,
    collections: [],
    referencesRecorded: null,
    referencesHeld: 0,
    citedByHeld: 0,
    synthetic: true,
  };
}

function syntheticPage(id: string, list: "references" | "cited-by"): GraphPage {
  return {
    work: { ids: syntheticWork(id).ids },
    items: [],
    nextCursor: null,
    coverage: {
      recorded: null,
      held: 0,
      note:
        "Sandbox keys see synthetic works, which have no " +
        `${list === "references" ? "references" : "citing works"}; use a live key.`,
    },
  };
}
