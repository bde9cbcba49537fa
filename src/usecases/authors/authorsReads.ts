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

/** The smallest string after every string starting with `prefix` in code-point (UTF-8 byte, "C") order. */
export function prefixEnd(prefix: string): string {
  const points = [...prefix];
  const last = points.pop()!.codePointAt(0)!;
  return points.join("") + String.fromCodePoint(last + 1);
}

/**
 * The identified authorships (an OpenAlex id or an ORCID) of the reachable indexes whose folded name has, for each of
 * these folded words, a word starting with it: read from work_author_words' index by the longest word's prefix range,
 * the other words checked on those rows. Folded words hold only letters, digits and spaces, so none is a LIKE wildcard.
 */
export async function identifiedAuthorshipsNamed(
  db: Queryable,
  indexKeys: readonly string[],
  words: readonly string[],
): Promise<AuthorshipRow[]> {
  if (indexKeys.length === 0 || words.length === 0) return [];
  const longest = [...words].sort((a, b) => b.length - a.length)[0]!;
  const conditions = words.map((_, i) => `(' ' || a.folded) LIKE $${i + 4}`).join(" AND ");
  const rows = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM work_authors a
     JOIN (SELECT DISTINCT w.index_key, w.doc_id, w.position FROM work_author_words w
           WHERE w.word >= $2 AND w.word < $3 AND w.index_key = ANY($1::text[])) m
       ON a.index_key = m.index_key AND a.doc_id = m.doc_id AND a.position = m.position
     WHERE (a.author_id IS NOT NULL OR a.orcid IS NOT NULL) AND ${conditions}`,
    [[...indexKeys], longest, prefixEnd(longest), ...words.map((w) => `% ${w}%`)],
  );
  return rows.map(rowOf);
}
