// Reads of the works table and the citation graph (src/ingest/works.ts writes them), always within the index keys a
// caller may reach: set-based, so a batch of 100 works costs a handful of statements.
import type { Queryable } from "../../eventstore/db.js";
import type { StoredWork, WorkFields } from "../../ingest/works.js";
import type { CitedWorkIds } from "../../ingest/sourceDocument.js";
import type { WorkId, WorkIdField } from "../../domain/identifiers.js";

/** A works table row as read: the stored work without its reference list, and the index holding it. */
export type WorkRow = Omit<StoredWork, "references"> & { indexKey: string };

/** The row as the store answers it: the same columns, snake-case where the names differ. */
type RawRow = Pick<StoredWork, "doi" | "pmid" | "pmcid" | "openalex" | "searchable" | "fields" | "notices"> & {
  index_key: string;
  doc_id: string;
  refs_recorded: number | null;
};

const COLUMNS = "index_key, doc_id, doi, pmid, pmcid, openalex, searchable, fields, refs_recorded, notices";

const rowOf = (r: RawRow): WorkRow => ({
  indexKey: r.index_key,
  docId: r.doc_id,
  doi: r.doi,
  pmid: r.pmid,
  pmcid: r.pmcid,
  openalex: r.openalex,
  searchable: r.searchable,
  fields: typeof r.fields === "string" ? (JSON.parse(r.fields) as WorkFields) : r.fields,
  notices: typeof r.notices === "string" ? (JSON.parse(r.notices) as StoredWork["notices"]) : (r.notices ?? []),
  referencesRecorded: r.refs_recorded === null ? null : Number(r.refs_recorded),
});

const FIELDS: readonly WorkIdField[] = ["doi", "pmid", "pmcid", "openalex", "doc_id"];

/** Every row of the reachable indexes matching any of these ids, by "field:value". */
export async function rowsByIds(
  db: Queryable,
  indexKeys: readonly string[],
  ids: readonly WorkId[],
): Promise<Map<string, WorkRow[]>> {
  const found = new Map<string, WorkRow[]>();
  if (indexKeys.length === 0 || ids.length === 0) return found;
  await Promise.all(
    FIELDS.map(async (field) => {
      const values = [...new Set(ids.filter((id) => id.field === field).map((id) => id.value))];
      if (values.length === 0) return;
      const rows = await db.query<RawRow>(
        `SELECT ${COLUMNS} FROM works WHERE ${field} = ANY($1::text[]) AND index_key = ANY($2::text[])`,
        [values, [...indexKeys]],
      );
      for (const raw of rows) {
        const row = rowOf(raw);
        const key = `${field}:${raw[field]}`;
        found.set(key, [...(found.get(key) ?? []), row]);
      }
    }),
  );
  return found;
}

/** The rows of these documents (index key and doc_id), by "indexKey\0docId"; a document without one is left out. */
export async function rowsByDocuments(
  db: Queryable,
  documents: readonly { indexKey: string; docId: string }[],
): Promise<Map<string, WorkRow>> {
  const found = new Map<string, WorkRow>();
  if (documents.length === 0) return found;
  const rows = await db.query<RawRow>(
    `SELECT ${COLUMNS.split(", ")
      .map((c) => `w.${c}`)
      .join(", ")} FROM unnest($1::text[], $2::text[]) AS d(k, id)
     JOIN works w ON w.index_key = d.k AND w.doc_id = d.id`,
    [documents.map((d) => d.indexKey), documents.map((d) => d.docId)],
  );
  for (const raw of rows) found.set(`${raw.index_key}\u0000${raw.doc_id}`, rowOf(raw));
  return found;
}

/** Rows of the reachable indexes holding any of these cited ids (a reference list's entries), each once. */
export async function rowsCitedAs(
  db: Queryable,
  indexKeys: readonly string[],
  refs: readonly CitedWorkIds[],
): Promise<WorkRow[]> {
  const ids: WorkId[] = refs.flatMap((r) => [
    ...(r.doi ? [{ field: "doi" as const, value: r.doi }] : []),
    ...(r.pmid ? [{ field: "pmid" as const, value: r.pmid }] : []),
    ...(r.openalex ? [{ field: "openalex" as const, value: r.openalex }] : []),
  ]);
  const byId = await rowsByIds(db, indexKeys, ids);
  const seen = new Map<string, WorkRow>();
  for (const rows of byId.values()) for (const row of rows) seen.set(`${row.indexKey}\u0000${row.docId}`, row);
  return [...seen.values()];
}

/** One holder's reference list, in the source's order. */
export async function referencesOf(db: Queryable, indexKey: string, docId: string): Promise<CitedWorkIds[]> {
  const rows = await db.query<{ doi: string | null; pmid: string | null; openalex: string | null }>(
    "SELECT doi, pmid, openalex FROM work_references WHERE index_key = $1 AND doc_id = $2 ORDER BY position",
    [indexKey, docId],
  );
  return rows.map((r) => ({
    ...(r.doi ? { doi: r.doi } : {}),
    ...(r.pmid ? { pmid: r.pmid } : {}),
    ...(r.openalex ? { openalex: r.openalex } : {}),
  }));
}

/**
 * How many entries of each holder's reference list resolve to a work of the reachable indexes, by "indexKey\0docId":
 * read from the holders' rows of work_reference_holds (which indexes hold each entry's work, kept at ingestion).
 */
export async function heldReferenceCounts(
  db: Queryable,
  indexKeys: readonly string[],
  holders: readonly { indexKey: string; docId: string }[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (holders.length === 0 || indexKeys.length === 0) return counts;
  const rows = await db.query<{ index_key: string; doc_id: string; n: number | string }>(
    `SELECT h.index_key, h.doc_id, count(DISTINCT h.position) AS n
     FROM unnest($1::text[], $2::text[]) AS x(k, d)
     JOIN work_reference_holds h ON h.index_key = x.k AND h.doc_id = x.d
     WHERE h.held_key = ANY($3::text[])
     GROUP BY h.index_key, h.doc_id`,
    [holders.map((h) => h.indexKey), holders.map((h) => h.docId), [...indexKeys]],
  );
  for (const r of rows) counts.set(`${r.index_key}\u0000${r.doc_id}`, Number(r.n));
  return counts;
}

/** The identifiers a work is cited by: any of them in another work's reference list is a citation of it. */
export interface CitedIdentity {
  doi: string | null;
  pmid: string | null;
  openalex: string | null;
}

/**
 * A work citing another, as the citing lists need it: which document, the ids that group it with its copies in other
 * collections (groupRows) and, when asked for, its publication date (the order of a cited-by page). Never its fields:
 * a work cited thousands of times is counted and ordered from these, and only a page's works are read whole.
 */
export interface CitingRow {
  indexKey: string;
  docId: string;
  doi: string | null;
  pmid: string | null;
  openalex: string | null;
  date: string | null;
}

/** The raw citing row: an edge's citing document as its edge keeps it (src/eventstore/schema.ts). */
interface RawCiting {
  index_key: string;
  doc_id: string;
  citing_doi: string | null;
  citing_pmid: string | null;
  citing_openalex: string | null;
  citing_date: string | null;
}

const citingRowOf = (raw: RawCiting): CitingRow => ({
  indexKey: raw.index_key,
  docId: raw.doc_id,
  doi: raw.citing_doi,
  pmid: raw.citing_pmid,
  openalex: raw.citing_openalex,
  date: raw.citing_date === null || raw.citing_date === "" ? null : raw.citing_date,
});

const CITED_FIELDS = ["doi", "pmid", "openalex"] as const;
type CitedField = (typeof CITED_FIELDS)[number];

/** The cited ids a target has, each with its parameter's number (from `first` on): only those are bound. */
const boundFields = (target: CitedIdentity, first: number) =>
  CITED_FIELDS.filter((f) => target[f] !== null).map((f, k) => ({ f, value: target[f]!, param: `$${first + k}` }));

/** The citing documents of each target (t) by one cited id, from its partial citing index (naming the id not null). */
const citingBranch = (field: CitedField, withDate: boolean) =>
  `SELECT t.i, e.index_key, e.doc_id, e.citing_doi, e.citing_pmid, e.citing_openalex,
     ${withDate ? "e.citing_date" : "NULL::text AS citing_date"}
   FROM t JOIN work_references e ON e.${field} = t.${field}
   WHERE e.${field} IS NOT NULL AND e.index_key = ANY($4::text[])`;

/**
 * The documents of the reachable indexes whose reference lists cite each identity, by the identity's position: read
 * from the citing indexes alone (each edge keeps its citing document's ids and date), never the works table's rows.
 */
export async function citingRows(
  db: Queryable,
  indexKeys: readonly string[],
  targets: readonly CitedIdentity[],
  withDate = false,
): Promise<Map<number, CitingRow[]>> {
  const found = new Map<number, CitingRow[]>();
  if (targets.length === 0 || indexKeys.length === 0) return found;
  const rows = await db.query<RawCiting & { i: number | string }>(
    `WITH t AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS t(doi, pmid, openalex, i))
     ${CITED_FIELDS.map((f) => citingBranch(f, withDate)).join(" UNION ")}`,
    [targets.map((t) => t.doi), targets.map((t) => t.pmid), targets.map((t) => t.openalex), [...indexKeys]],
  );
  for (const raw of rows) {
    const i = Number(raw.i) - 1;
    found.set(i, [...(found.get(i) ?? []), citingRowOf(raw)]);
  }
  return found;
}

/** How many works cite an identity, and whether no two of its citing documents share an id (each is then a work). */
interface CitedByCount {
  works: number;
  apart: boolean;
}

/**
 * How many works of the reachable indexes cite each identity (groupRows: copies in several collections count once),
 * by the identity's position: counted over the citing indexes where no two citing documents share an id, grouped
 * from their rows only where some do. An identity nothing cites is absent.
 */
export async function citedByCounts(
  db: Queryable,
  indexKeys: readonly string[],
  targets: readonly CitedIdentity[],
  group: (rows: readonly CitingRow[]) => number,
): Promise<Map<number, CitedByCount>> {
  const counts = new Map<number, CitedByCount>();
  if (targets.length === 0 || indexKeys.length === 0) return counts;
  const rows = await db.query<{ i: number | string; docs: number | string; apart: boolean }>(
    `WITH t AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS t(doi, pmid, openalex, i)),
     hits AS (${CITED_FIELDS.map((f) => citingBranch(f, false)).join(" UNION ")})
     SELECT i, count(*) AS docs, count(DISTINCT citing_doi) = count(citing_doi)
       AND count(DISTINCT citing_pmid) = count(citing_pmid)
       AND count(DISTINCT citing_openalex) = count(citing_openalex) AS apart
     FROM hits GROUP BY i`,
    [targets.map((t) => t.doi), targets.map((t) => t.pmid), targets.map((t) => t.openalex), [...indexKeys]],
  );
  const shared: number[] = [];
  for (const r of rows) {
    if (r.apart) counts.set(Number(r.i) - 1, { works: Number(r.docs), apart: true });
    else shared.push(Number(r.i) - 1);
  }
  if (shared.length > 0) {
    const citing = await citingRows(
      db,
      indexKeys,
      shared.map((i) => targets[i]!),
    );
    shared.forEach((i, k) => counts.set(i, { works: group(citing.get(k) ?? []), apart: false }));
  }
  return counts;
}

/** Where a cited-by page starts: after this citing document's place in the list's order (its date '' for none). */
export interface CitingPosition {
  date: string;
  key: string;
  indexKey: string;
  docId: string;
}

/** How many documents of the reachable indexes cite this identity (a count over the citing indexes alone). */
export async function citingDocumentCount(
  db: Queryable,
  indexKeys: readonly string[],
  target: CitedIdentity,
): Promise<number> {
  const fields = boundFields(target, 2);
  if (fields.length === 0 || indexKeys.length === 0) return 0;
  const [row] = await db.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM (${fields
      .map(
        ({ f, param }) => `SELECT index_key, doc_id FROM work_references
          WHERE ${f} IS NOT NULL AND ${f} = ${param}::text AND index_key = ANY($1::text[])`,
      )
      .join(" UNION ")}) AS d`,
    [[...indexKeys], ...fields.map((x) => x.value)],
  );
  return Number(row?.n ?? 0);
}

/**
 * The first `limit` documents citing this identity after `after` (from the start without one), in the cited-by list's
 * order: newest first ('' dates last), then by key, index key and doc_id, in byte order. Each cited id's index is read
 * as a range from the position on (its rows of the same date after it, then the older ones), so a deep page reads what
 * the first does.
 */
export async function citingPage(
  db: Queryable,
  indexKeys: readonly string[],
  target: CitedIdentity,
  after: CitingPosition | null,
  limit: number,
): Promise<CitingRow[]> {
  const fields = boundFields(target, 3);
  if (fields.length === 0 || indexKeys.length === 0) return [];
  const p = fields.length + 3;
  const cols = "citing_date, citing_key, index_key, doc_id, citing_doi, citing_pmid, citing_openalex";
  const order = "citing_date DESC, citing_key, index_key, doc_id";
  // DISTINCT ON the index's own columns (a document citing the id twice has two entries): the range is read in index
  // order and stops after `limit` documents; a DISTINCT over every column hashed the whole range first
  const range = ({ f, param }: { f: CitedField; param: string }, where: string, by: string) =>
    `(SELECT DISTINCT ON (${by.replace(/ DESC/g, "")}) ${cols} FROM work_references
      WHERE ${f} IS NOT NULL AND ${f} = ${param}::text AND index_key = ANY($1::text[]) ${where}
      ORDER BY ${by} LIMIT $2)`;
  const ranges = fields.flatMap((f) =>
    after === null
      ? [range(f, "", order)]
      : [
          range(
            f,
            `AND citing_date = $${p}::text AND (citing_key, index_key, doc_id) > ($${p + 1}::text, $${p + 2}::text, ` +
              `$${p + 3}::text)`,
            "citing_key, index_key, doc_id",
          ),
          range(f, `AND citing_date < $${p}::text`, order),
        ],
  );
  const params: unknown[] = [[...indexKeys], limit, ...fields.map((x) => x.value)];
  if (after) params.push(after.date, after.key, after.indexKey, after.docId);
  const rows = await db.query<RawCiting & { citing_key: string }>(
    `SELECT DISTINCT ${cols} FROM (${ranges.join(" UNION ALL ")}) AS r ORDER BY ${order} LIMIT $2`,
    params,
  );
  return rows.map(citingRowOf);
}
