// The works table: per engine index, each document a collection holds as a work (its identifiers, bibliographic fields,
// citation count) and the references it cites (the graph's edges), written at ingestion beside the document manifest
// and with it (one transaction per batch), so both follow upserts, deletions and a collection's retirement. Plain
// operational tables (works, work_references in src/eventstore/schema.ts), not an event-sourced read model.
import type { Db, Queryable } from "../eventstore/db.js";
import { joinedAbstract, type CitedWorkIds, type SourceDocument } from "./sourceDocument.js";
import { foldName, type Authorship } from "../domain/authors.js";
import { isRetractedWork, NO_LISTS, type IntegrityNotice } from "../domain/integrity.js";
import { citingOfWork } from "../domain/identifiers.js";

/**
 * The bibliographic fields a work answers with (never its text), and what its exports add: the abstract reviewers
 * screen on, the source's keywords and MeSH headings.
 */
export interface WorkFields {
  title: string | null;
  authors: string[];
  /** the authors with their ids where the source gives them; empty for works stored before authorships existed */
  authorships: Authorship[];
  journal: string | null;
  issn: string[];
  publisher: string | null;
  publication_date: string | null;
  article_type: string | null;
  open_access: boolean | null;
  license: string | null;
  url: string | null;
  cited_by_count: number | null;
  /** exports only: the abstract as the source gives it (structured parts labelled) */
  abstract: string | null;
  /** exports only: the source's keywords, and its MeSH headings (all of them, not only the major ones) */
  keywords: string[];
  mesh: string[];
  /**
   * whether the source gave the document text to search: false for a record kept for its bibliographic fields alone
   * (an OpenAlex work without an abstract), so a reference to it has a title. Absent in works recorded before.
   */
  has_text?: boolean;
}

export interface StoredWork {
  docId: string;
  doi: string | null;
  pmid: string | null;
  pmcid: string | null;
  openalex: string | null;
  /** false: the collection holds the work but keeps it out of search (retracted) or has no text of it (has_text) */
  searchable: boolean;
  /** what its own source record says of its integrity (src/domain/integrity.ts); empty where it says nothing */
  notices: IntegrityNotice[];
  fields: WorkFields;
  /** how many references the source records; null where it records none */
  referencesRecorded: number | null;
  /** the references that carry an identifier, in the source's order */
  references: CitedWorkIds[];
}

const text = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);
const texts = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/**
 * The work of a document as its reader gave it; `searchable` false for one the collection keeps out of search or has
 * no text of (`hasText` false).
 */
export function workOfDocument(document: SourceDocument, searchable: boolean, hasText = true): StoredWork {
  const m = document.metadata;
  return {
    docId: document.doc_id,
    doi: text(m.doi),
    pmid: text(m.pmid),
    pmcid: text(m.pmcid),
    openalex: text(document.work?.openalex),
    searchable,
    notices: document.notices ?? [],
    fields: {
      title: text(m.title) ?? text(document.title),
      authors: texts(m.authors),
      authorships: m.authorships ?? [],
      journal: text(m.journal),
      issn: texts(m.issn),
      publisher: text(m.publisher),
      publication_date: text(m.publication_date),
      article_type: text(m.article_type),
      open_access: typeof m.open_access === "boolean" ? m.open_access : null,
      license: text(m.license),
      url: text(m.url),
      cited_by_count: typeof document.work?.cited_by_count === "number" ? document.work.cited_by_count : null,
      abstract: text(document.work?.abstract) ?? abstractOfSections(document),
      keywords: texts(m.keywords),
      mesh:
        document.work?.mesh ??
        (document.subjects ?? []).filter((subject) => subject.scheme === "mesh").map((subject) => subject.name),
      has_text: hasText,
    },
    referencesRecorded: document.work?.references_recorded ?? null,
    references: (document.work?.references ?? []).filter((r) => r.doi || r.pmid || r.openalex),
  };
}

/** The sections a reader names "abstract", where it gives no abstract of its own. */
function abstractOfSections(document: SourceDocument): string | null {
  return joinedAbstract(document.sections.filter((s) => s.section === "abstract"));
}

/**
 * The changes of one batch to an index's works: works written (replacing their earlier version and edges), works
 * removed, and for replace mode the only doc_ids kept.
 */
export interface WorksChange {
  upserts: readonly StoredWork[];
  deletes: readonly string[];
  /** replace mode: every other work of the index is removed */
  keepOnly?: readonly string[];
}

const WRITE_ROWS = 2000;

/** Applies a batch's change inside the caller's transaction (the manifest's). */
export async function writeWorks(tx: Queryable, indexKey: string, change: WorksChange): Promise<void> {
  const leaving = await idsLeaving(tx, indexKey, change);
  if (change.keepOnly) {
    const keep = [...change.keepOnly];
    await tx.query("DELETE FROM work_references WHERE index_key = $1 AND NOT (doc_id = ANY($2::text[]))", [
      indexKey,
      keep,
    ]);
    await tx.query("DELETE FROM work_authors WHERE index_key = $1 AND NOT (doc_id = ANY($2::text[]))", [
      indexKey,
      keep,
    ]);
    await tx.query("DELETE FROM work_author_words WHERE index_key = $1 AND NOT (doc_id = ANY($2::text[]))", [
      indexKey,
      keep,
    ]);
    await tx.query("DELETE FROM works WHERE index_key = $1 AND NOT (doc_id = ANY($2::text[]))", [indexKey, keep]);
  }
  const gone = [...change.deletes, ...change.upserts.map((w) => w.docId)];
  for (let from = 0; from < gone.length; from += WRITE_ROWS) {
    const ids = gone.slice(from, from + WRITE_ROWS);
    await tx.query("DELETE FROM work_references WHERE index_key = $1 AND doc_id = ANY($2::text[])", [indexKey, ids]);
    await tx.query("DELETE FROM work_authors WHERE index_key = $1 AND doc_id = ANY($2::text[])", [indexKey, ids]);
    await tx.query("DELETE FROM work_author_words WHERE index_key = $1 AND doc_id = ANY($2::text[])", [indexKey, ids]);
  }
  for (let from = 0; from < change.deletes.length; from += WRITE_ROWS) {
    await tx.query("DELETE FROM works WHERE index_key = $1 AND doc_id = ANY($2::text[])", [
      indexKey,
      change.deletes.slice(from, from + WRITE_ROWS),
    ]);
  }
  for (let from = 0; from < change.upserts.length; from += WRITE_ROWS) {
    const rows = change.upserts.slice(from, from + WRITE_ROWS);
    const col = <T>(f: (w: StoredWork) => T) => rows.map(f);
    await tx.query(
      `INSERT INTO works (index_key, doc_id, doi, pmid, pmcid, openalex, searchable, fields, refs_recorded, notices,
         retracted)
       SELECT $1, d, doi, pmid, pmcid, oa, s, f::jsonb, r, n::jsonb, x FROM unnest($2::text[], $3::text[], $4::text[],
         $5::text[], $6::text[], $7::boolean[], $8::text[], $9::int[], $10::text[], $11::boolean[])
         AS t(d, doi, pmid, pmcid, oa, s, f, r, n, x)
       ON CONFLICT (index_key, doc_id) DO UPDATE SET doi = EXCLUDED.doi, pmid = EXCLUDED.pmid, pmcid = EXCLUDED.pmcid,
         openalex = EXCLUDED.openalex, searchable = EXCLUDED.searchable, fields = EXCLUDED.fields,
         refs_recorded = EXCLUDED.refs_recorded, notices = EXCLUDED.notices, retracted = EXCLUDED.retracted`,
      [
        indexKey,
        col((w) => w.docId),
        col((w) => w.doi),
        col((w) => w.pmid),
        col((w) => w.pmcid),
        col((w) => w.openalex),
        col((w) => w.searchable),
        col((w) => JSON.stringify(w.fields)),
        col((w) => w.referencesRecorded),
        col((w) => JSON.stringify(w.notices)),
        // its own source flags it retracted (the rule's first half): the few rows the query-time exclusion reads
        col((w) => isRetractedWork({ doi: w.doi, own: w.notices }, NO_LISTS)),
      ],
    );
  }
  await writeAuthorships(tx, indexKey, change.upserts);
  await writeEdges(tx, indexKey, change.upserts);
  await keepHolds(tx, indexKey, change, leaving);
}

/** Ids of a work: the ones an edge cites it by. */
type CitedIds = { doi: string | null; pmid: string | null; openalex: string | null };

/** The ids of the index's works this change removes or rewrites (read before it does), their edges to recheck. */
async function idsLeaving(tx: Queryable, indexKey: string, change: WorksChange): Promise<CitedIds[]> {
  const gone = [...change.deletes, ...change.upserts.map((w) => w.docId)];
  const rows = await tx.query<CitedIds>(
    `SELECT doi, pmid, openalex FROM works WHERE index_key = $1
       AND (doc_id = ANY($2::text[]) OR ($3::boolean AND NOT (doc_id = ANY($4::text[]))))`,
    [indexKey, gone, change.keepOnly !== undefined, [...(change.keepOnly ?? [])]],
  );
  // an id the batch writes again stays held in this index: only the others can leave it
  const kept = new Set(change.upserts.flatMap((w) => [w.doi, w.pmid, w.openalex]).filter((v) => v !== null));
  return rows.map((r) => ({
    doi: r.doi !== null && !kept.has(r.doi) ? r.doi : null,
    pmid: r.pmid !== null && !kept.has(r.pmid) ? r.pmid : null,
    openalex: r.openalex !== null && !kept.has(r.openalex) ? r.openalex : null,
  }));
}

/** Serializes the upkeep of work_reference_holds across transactions (see keepHolds). */
const HOLDS_LOCK_KEY = 774_211_004;

const CITED_BY = ["doi", "pmid", "openalex"] as const;

/**
 * Keeps work_reference_holds (which indexes hold the work each edge cites) right after a batch's writes, both ends:
 * the removed and rewritten works' own rows go; edges citing an id that left the index lose it unless another of its
 * works still has the id; edges citing the upserted works gain the index; the upserted works' new edges gain every
 * index holding what they cite. Under a transaction lock, so that two batches committing at once (one writing a work,
 * the other an edge citing it) each see the other's rows: the later one reads after the earlier one commits.
 */
async function keepHolds(tx: Queryable, indexKey: string, change: WorksChange, leaving: CitedIds[]): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${HOLDS_LOCK_KEY})`);
  if (change.keepOnly)
    await tx.query("DELETE FROM work_reference_holds WHERE index_key = $1 AND NOT (doc_id = ANY($2::text[]))", [
      indexKey,
      [...change.keepOnly],
    ]);
  const gone = [...change.deletes, ...change.upserts.map((w) => w.docId)];
  for (let from = 0; from < gone.length; from += WRITE_ROWS)
    await tx.query("DELETE FROM work_reference_holds WHERE index_key = $1 AND doc_id = ANY($2::text[])", [
      indexKey,
      gone.slice(from, from + WRITE_ROWS),
    ]);
  const values = (ids: readonly CitedIds[]) => CITED_BY.map((f) => [...new Set(ids.flatMap((w) => w[f] ?? []))]);
  for (let from = 0; from < leaving.length; from += WRITE_ROWS) {
    const [dois, pmids, oas] = values(leaving.slice(from, from + WRITE_ROWS));
    if (dois!.length + pmids!.length + oas!.length === 0) continue;
    await tx.query(
      `DELETE FROM work_reference_holds h USING (${CITED_BY.map(
        (f, k) => `SELECT index_key, doc_id, position, doi, pmid, openalex FROM work_references
           WHERE ${f} IS NOT NULL AND ${f} = ANY($${k + 2}::text[])`,
      ).join(" UNION ")}) AS e
       WHERE h.index_key = e.index_key AND h.doc_id = e.doc_id AND h.position = e.position AND h.held_key = $1
         ${CITED_BY.map(
           (f) => `AND NOT EXISTS (SELECT 1 FROM works w WHERE e.${f} IS NOT NULL AND w.${f} = e.${f}
             AND w.index_key = $1)`,
         ).join(" ")}`,
      [indexKey, dois, pmids, oas],
    );
  }
  for (let from = 0; from < change.upserts.length; from += WRITE_ROWS) {
    const rows = change.upserts.slice(from, from + WRITE_ROWS);
    const [dois, pmids, oas] = values(rows);
    await tx.query(
      `INSERT INTO work_reference_holds (index_key, doc_id, position, held_key)
       ${CITED_BY.map(
         (f, k) => `SELECT index_key, doc_id, position, $1 FROM work_references
           WHERE ${f} IS NOT NULL AND ${f} = ANY($${k + 2}::text[])`,
       ).join(" UNION ")}
       ON CONFLICT DO NOTHING`,
      [indexKey, dois, pmids, oas],
    );
    await tx.query(
      `INSERT INTO work_reference_holds (index_key, doc_id, position, held_key)
       ${CITED_BY.map(
         (f) => `SELECT e.index_key, e.doc_id, e.position, w.index_key FROM work_references e
           JOIN works w ON w.${f} = e.${f}
           WHERE e.index_key = $1 AND e.doc_id = ANY($2::text[]) AND e.${f} IS NOT NULL`,
       ).join(" UNION ")}
       ON CONFLICT DO NOTHING`,
      [indexKey, rows.map((w) => w.docId)],
    );
  }
}

/** The upserted works' references, one row each (their old rows are deleted with the works). */
async function writeEdges(tx: Queryable, indexKey: string, works: readonly StoredWork[]): Promise<void> {
  const edges = works.flatMap((w) => {
    const citing = citingOfWork(w.docId, w, w.fields.publication_date);
    return w.references.map((r, position) => ({
      docId: w.docId,
      position,
      doi: r.doi ?? null,
      pmid: r.pmid ?? null,
      openalex: r.openalex ?? null,
      citing,
    }));
  });
  for (let from = 0; from < edges.length; from += WRITE_ROWS * 5) {
    const rows = edges.slice(from, from + WRITE_ROWS * 5);
    await tx.query(
      `INSERT INTO work_references (index_key, doc_id, position, doi, pmid, openalex, citing_date, citing_key,
         citing_doi, citing_pmid, citing_openalex)
       SELECT $1, d, p, doi, pmid, oa, cd, ck, cdoi, cpmid, coa FROM unnest($2::text[], $3::int[], $4::text[],
         $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
         AS t(d, p, doi, pmid, oa, cd, ck, cdoi, cpmid, coa)`,
      [
        indexKey,
        rows.map((e) => e.docId),
        rows.map((e) => e.position),
        rows.map((e) => e.doi),
        rows.map((e) => e.pmid),
        rows.map((e) => e.openalex),
        rows.map((e) => e.citing.date),
        rows.map((e) => e.citing.key),
        rows.map((e) => e.citing.doi),
        rows.map((e) => e.citing.pmid),
        rows.map((e) => e.citing.openalex),
      ],
    );
  }
}

/** The upserted works' authorships, one row each (their old rows are deleted with the works' edges). */
async function writeAuthorships(tx: Queryable, indexKey: string, works: readonly StoredWork[]): Promise<void> {
  const rows = works.flatMap((w) =>
    (w.fields.authorships ?? []).map((a, order) => ({
      docId: w.docId,
      position: order,
      name: a.name,
      id: a.id,
      orcid: a.orcid,
      folded: foldName(a.name),
    })),
  );
  for (let from = 0; from < rows.length; from += WRITE_ROWS * 5) {
    const part = rows.slice(from, from + WRITE_ROWS * 5);
    await tx.query(
      `INSERT INTO work_authors (index_key, doc_id, position, name, folded, author_id, orcid)
       SELECT $1, d, p, n, f, a, o FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS t(d, p, n, f, a, o)`,
      [
        indexKey,
        part.map((r) => r.docId),
        part.map((r) => r.position),
        part.map((r) => r.name),
        part.map((r) => r.folded),
        part.map((r) => r.id),
        part.map((r) => r.orcid),
      ],
    );
  }
  // the words a name search starts from (identified authorships only: the search finds no other)
  const words = rows.flatMap((r) =>
    r.id === null && r.orcid === null
      ? []
      : [...new Set(r.folded.split(" ").filter((w) => w !== ""))].map((word) => ({ ...r, word })),
  );
  for (let from = 0; from < words.length; from += WRITE_ROWS * 5) {
    const part = words.slice(from, from + WRITE_ROWS * 5);
    await tx.query(
      `INSERT INTO work_author_words (index_key, doc_id, position, word)
       SELECT $1, d, p, w FROM unnest($2::text[], $3::int[], $4::text[]) AS t(d, p, w)`,
      [indexKey, part.map((r) => r.docId), part.map((r) => r.position), part.map((r) => r.word)],
    );
  }
}

/**
 * Refreshes the planner's statistics of the works tables after an ingestion changed them: the embedded store (PGlite)
 * has no autovacuum, and without them a batch of 100 works read the edge table by scans (370 ms against 105).
 */
export async function analyzeWorks(db: Queryable): Promise<void> {
  await db.query("ANALYZE works");
  await db.query("ANALYZE work_references");
  await db.query("ANALYZE work_authors");
  await db.query("ANALYZE work_author_words");
}

/**
 * Drops an index's works and edges (its collection retired), and what work_reference_holds says of either: its edges'
 * rows, and other edges' mention of it (after its works are gone, under keepHolds' lock).
 */
export async function clearWorks(db: Db, indexKey: string): Promise<void> {
  await db.query("DELETE FROM work_references WHERE index_key = $1", [indexKey]);
  await db.query("DELETE FROM work_authors WHERE index_key = $1", [indexKey]);
  await db.query("DELETE FROM work_author_words WHERE index_key = $1", [indexKey]);
  await db.query("DELETE FROM works WHERE index_key = $1", [indexKey]);
  await db.transaction(
    (tx) => tx.query("DELETE FROM work_reference_holds WHERE index_key = $1 OR held_key = $1", [indexKey]),
    { advisoryLock: HOLDS_LOCK_KEY },
  );
}

/**
 * Whether the index has no works recorded, or only works recorded before they kept an abstract (the fields of exports)
 * and the records of documents without text (has_text): the next start re-reads its files (its unchanged documents
 * keep their chunks and vectors).
 */
export async function worksMissing(db: Queryable, indexKey: string): Promise<boolean> {
  const rows = await db.query<{ one: number }>(
    "SELECT 1 AS one FROM works WHERE index_key = $1 AND fields ? 'has_text' LIMIT 1",
    [indexKey],
  );
  return rows.length === 0;
}
