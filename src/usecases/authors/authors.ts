// Authors: a person by OpenAlex author id or ORCID (name, ids, works count, years, collections, co-authors), a search
// by name, and a person's works, from the authorships the works table keeps. Only the collections the key reaches
// count: an author whose works are all elsewhere answers like one held nowhere. Free, each call one slot of the
// per-minute budget, as works lookups are; sandbox keys get a synthetic author.
import { createHash } from "node:crypto";
import type { Db } from "../../eventstore/db.js";
import type { AuthContext } from "../auth/context.js";
import { Rejection } from "../../domain/rejection.js";
import { AUTHOR_ID_SPELLINGS, foldName, parseAuthorId, type AuthorId } from "../../domain/authors.js";
import { groupRows, listedOrder, type Work, type Works } from "../works/works.js";
import { rowsByDocuments, type WorkRow } from "../works/worksReads.js";
import { listCursorOf, offsetOfCursor } from "../../domain/cursors.js";
import { authorshipsByIds, authorshipsOfDocuments, identifiedAuthorshipsNamed } from "./authorsReads.js";
import { byFrequency, coAuthorsOf, identityOf, isOwn, peopleOf, type CoAuthor } from "./authorProfile.js";

/** Co-authors an author's answer lists. */
const CO_AUTHORS_LISTED = 10;

interface Author {
  /** the id asked for, canonical: the OpenAlex short id, or the ORCID as 0000-0000-0000-000X */
  id: string;
  name: string;
  /** every spelling of the name the sources give, most frequent first */
  names: string[];
  ids: { openalex: string | null; orcid: string | null; otherOpenalex: string[]; otherOrcid: string[] };
  worksCount: number;
  firstYear: number | null;
  lastYear: number | null;
  /** the reachable collections holding works of the author */
  collections: string[];
  coAuthors: CoAuthor[];
  synthetic?: true;
}

interface AuthorSummary {
  id: string;
  name: string;
  ids: { openalex: string | null; orcid: string | null };
  worksCount: number;
}

interface AuthorsPage {
  data: AuthorSummary[];
  nextCursor: string | null;
}

interface AuthorWorksPage {
  author: { id: string; name: string };
  items: Work[];
  total: number;
  nextCursor: string | null;
}

interface AuthorsDeps {
  db: Db;
  works: Pick<Works, "listing">;
}

/** An author id read for a lookup; 422 naming the spellings that are. */
function authorIdOr422(raw: string): AuthorId {
  const parsed = parseAuthorId(raw);
  if (!parsed.ok) throw new Rejection("VALIDATION_ERROR", parsed.reason, { field: "id" });
  return parsed.id;
}

/** Why no author answers: what was looked for, and that only the reachable collections count. */
export function authorNotFound(id: AuthorId, alsoUnknown: readonly string[] = []): string {
  const what = id.kind === "openalex" ? `OpenAlex author id ${id.value}` : `ORCID ${id.value}`;
  const others = alsoUnknown.length > 0 ? `, nor by ${alsoUnknown.join(", ")}` : "";
  return (
    `no collection this key can reach holds a work by an author with ${what}${others}; ` +
    "find the author's id by name with GET /api/v1/authors?name=… (the MCP tool find_authors)"
  );
}

const yearOf = (date: string | null): number | null => (date && /^\d{4}/.test(date) ? Number(date.slice(0, 4)) : null);
const documentKey = (indexKey: string, docId: string) => `${indexKey}\u0000${docId}`;

export function createAuthors(deps: AuthorsDeps) {
  const { db } = deps;
  const { scopeOf, admit, collectionOf, worksOf } = deps.works.listing;

  /** The author's authorships and works (row groups, the same work in several collections once), newest first. */
  async function openAuthor(keys: readonly string[], asked: AuthorId) {
    const first = await authorshipsByIds(
      db,
      keys,
      asked.kind === "openalex" ? [asked.value] : [],
      asked.kind === "orcid" ? [asked.value] : [],
    );
    if (first.length === 0) throw new Rejection("AUTHOR_NOT_FOUND", authorNotFound(asked), { id: asked.value });
    const identity = identityOf(asked, first);
    const own = (await authorshipsByIds(db, keys, [...identity.ids], [...identity.orcids])).filter((r) =>
      isOwn(r, identity),
    );
    const found = await rowsByDocuments(
      db,
      own.map((r) => ({ indexKey: r.indexKey, docId: r.docId })),
    );
    const groups = groupRows([...found.values()]).map((rows) => ({ rows, ...listedKey(rows) }));
    groups.sort(listedOrder);
    return { identity, own, groups };
  }

  async function get(auth: AuthContext, rawId: string): Promise<Author> {
    const asked = authorIdOr422(rawId);
    await admit(auth);
    if (auth.billingMode === "sandbox") return syntheticAuthor(asked);
    const keys = scopeOf(auth);
    const { identity, own, groups } = await openAuthor(keys, asked);
    const workOfDocument = new Map<string, string>();
    groups.forEach((g) => g.rows.forEach((r) => workOfDocument.set(documentKey(r.indexKey, r.docId), g.key)));
    const everyone = await authorshipsOfDocuments(
      db,
      groups.flatMap((g) => g.rows.map((r) => ({ indexKey: r.indexKey, docId: r.docId }))),
    );
    const years = groups.map((g) => yearOf(g.date)).filter((y): y is number => y !== null);
    const openalex = byFrequency(own.flatMap((r) => (r.authorId ? [r.authorId] : [])));
    const orcid = byFrequency(own.flatMap((r) => (r.orcid ? [r.orcid] : [])));
    const names = byFrequency(own.map((r) => r.name));
    const keyOrder = new Map(keys.map((k, i) => [k, i]));
    const indexKeys = [...new Set(groups.flatMap((g) => g.rows.map((r) => r.indexKey)))].sort(
      (a, b) => (keyOrder.get(a) ?? 0) - (keyOrder.get(b) ?? 0),
    );
    return {
      id: asked.value,
      name: names[0]!,
      names,
      ids: {
        openalex: openalex[0] ?? null,
        orcid: orcid[0] ?? null,
        otherOpenalex: openalex.slice(1),
        otherOrcid: orcid.slice(1),
      },
      worksCount: groups.length,
      firstYear: years.length > 0 ? Math.min(...years) : null,
      lastYear: years.length > 0 ? Math.max(...years) : null,
      collections: indexKeys.map((k) => collectionOf(k)!).filter((c) => c !== undefined),
      coAuthors: coAuthorsOf(
        everyone,
        identity,
        (r) => workOfDocument.get(documentKey(r.indexKey, r.docId)) ?? documentKey(r.indexKey, r.docId),
        CO_AUTHORS_LISTED,
      ),
    };
  }

  async function works(
    auth: AuthContext,
    rawId: string,
    page: { limit: number; cursor?: string },
  ): Promise<AuthorWorksPage> {
    const asked = authorIdOr422(rawId);
    await admit(auth);
    if (auth.billingMode === "sandbox") {
      offsetOfCursor(page.cursor, "author-works", asked.value);
      const author = syntheticAuthor(asked);
      return { author: { id: author.id, name: author.name }, items: [], total: 0, nextCursor: null };
    }
    const keys = scopeOf(auth);
    const offset = offsetOfCursor(page.cursor, "author-works", asked.value);
    const { own, groups } = await openAuthor(keys, asked);
    const items = await worksOf(
      groups.slice(offset, offset + page.limit).map((g) => g.rows),
      keys,
    );
    const next =
      offset + page.limit < groups.length
        ? listCursorOf({ list: "author-works", work: asked.value, offset: offset + page.limit })
        : null;
    return {
      author: { id: asked.value, name: byFrequency(own.map((r) => r.name))[0]! },
      items,
      total: groups.length,
      nextCursor: next,
    };
  }

  async function search(
    auth: AuthContext,
    query: { name: string; limit: number; cursor?: string },
  ): Promise<AuthorsPage> {
    const folded = foldName(query.name);
    if (folded.replace(/ /g, "").length < 2)
      throw new Rejection(
        "VALIDATION_ERROR",
        "name must hold at least two letters or digits (accents, case and punctuation are ignored)",
        { field: "name" },
      );
    const offset = offsetOfCursor(query.cursor, "authors", folded);
    await admit(auth);
    if (auth.billingMode === "sandbox") return { data: [], nextCursor: null };
    const keys = scopeOf(auth);
    const people = peopleOf(await identifiedAuthorshipsNamed(db, keys, folded.split(" ")));
    const found = await rowsByDocuments(
      db,
      people.flatMap((p) => p.rows.map((r) => ({ indexKey: r.indexKey, docId: r.docId }))),
    );
    const counted = people.map((p) => ({
      id: p.id,
      name: p.name,
      ids: p.ids,
      worksCount: groupRows(
        p.rows.map((r) => found.get(documentKey(r.indexKey, r.docId))).filter((r): r is WorkRow => r !== undefined),
      ).length,
    }));
    counted.sort((a, b) => b.worksCount - a.worksCount || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    const next =
      offset + query.limit < counted.length
        ? listCursorOf({ list: "authors", work: folded, offset: offset + query.limit })
        : null;
    return { data: counted.slice(offset, offset + query.limit), nextCursor: next };
  }

  return { get, works, search };
}

export type Authors = ReturnType<typeof createAuthors>;

/** A work's place in lists: its date and its key (OpenAlex id, else DOI, PMID, doc_id), from its rows. */
function listedKey(rows: readonly WorkRow[]): { date: string | null; key: string } {
  const first = <T>(f: (r: WorkRow) => T | null) => rows.map(f).find((v) => v !== null) ?? null;
  return {
    date: first((r) => r.fields.publication_date),
    key: first((r) => r.openalex) ?? first((r) => r.doi) ?? first((r) => r.pmid) ?? rows[0]!.docId,
  };
}

/** A sandbox key's author: the live shape, deterministic from the id, marked synthetic. */
function syntheticAuthor(id: AuthorId): Author {
  const digest = createHash("sha256").update(id.value).digest("hex");
  return {
    id: id.value,
    name: `Synthetic Author ${digest.slice(0, 6)}`,
    names: [`Synthetic Author ${digest.slice(0, 6)}`],
    ids: {
      openalex: id.kind === "openalex" ? id.value : null,
      orcid: id.kind === "orcid" ? id.value : null,
      otherOpenalex: [],
      otherOrcid: [],
    },
    worksCount: 0,
    firstYear: null,
    lastYear: null,
    collections: [],
    coAuthors: [],
    synthetic: true,
  };
}

/** What the id parameter takes, for schemas and docs. */
export const AUTHOR_ID_DESCRIPTION = `The author: ${AUTHOR_ID_SPELLINGS}.`;
