// Reads of the works' authorships (src/ingest/works.ts writes them beside the works), always within the index keys a
// caller may reach.
import type { Queryable } from "../../eventstore/db.js";

/** One authorship of one work, as stored. */
export interface AuthorshipRow {
  indexKey: string;
  docId: string;
  position: number;
  name: string;
  authorId: string | null;
  orcid: string | null;
}

type RawRow = {
  index_key: string;
  doc_id: string;
  position: number | string;
  name: string;
  author_id: string | null;
  orcid: string | null;
};

const COLUMNS = "a.index_key, a.doc_id, a.position, a.name, a.author_id, a.orcid";

const rowOf = (r: RawRow): AuthorshipRow => ({
  indexKey: r.index_key,
  docId: r.doc_id,
  position: Number(r.position),
  name: r.name,
  authorId: r.author_id,
  orcid: r.orcid,
});

/** The authorships of the reachable indexes carrying any of these OpenAlex author ids or ORCIDs. */
export async function authorshipsByIds(
  db: Queryable,
  indexKeys: readonly string[],
  ids: readonly string[],
  orcids: readonly string[],
): Promise<AuthorshipRow[]> {
  if (indexKeys.length === 0 || (ids.length === 0 && orcids.length === 0)) return [];
  const rows = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM work_authors a
     WHERE (a.author_id = ANY($1::text[]) OR a.orcid = ANY($2::text[])) AND a.index_key = ANY($3::text[])`,
    [[...ids], [...orcids], [...indexKeys]],
  );
  return rows.map(rowOf);
}

/** Every authorship of these documents (index key and doc_id): the co-authors of an author's works. */
export async function authorshipsOfDocuments(
  db: Queryable,
  documents: readonly { indexKey: string; docId: string }[],
): Promise<AuthorshipRow[]> {
  if (documents.length === 0) return [];
  const rows = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM unnest($1::text[], $2::text[]) AS d(k, id)
     JOIN work_authors a ON a.index_key = d.k AND a.doc_id = d.id`,
    [documents.map((d) => d.indexKey), documents.map((d) => d.docId)],
  );
  return rows.map(rowOf);
}

/**
 * The identified authorships (an OpenAlex id or an ORCID) of the reachable indexes whose folded name holds every one
 * of these folded words. Folded words hold only letters, digits and spaces, so none is a LIKE wildcard.
 */
export async function identifiedAuthorshipsNamed(
  db: Queryable,
  indexKeys: readonly string[],
  words: readonly string[],
): Promise<AuthorshipRow[]> {
  if (indexKeys.length === 0 || words.length === 0) return [];
  const conditions = words.map((_, i) => `a.folded LIKE $${i + 2}`).join(" AND ");
  const rows = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM work_authors a
     WHERE a.index_key = ANY($1::text[]) AND (a.author_id IS NOT NULL OR a.orcid IS NOT NULL) AND ${conditions}`,
    [[...indexKeys], ...words.map((w) => `%${w}%`)],
  );
  return rows.map(rowOf);
}
