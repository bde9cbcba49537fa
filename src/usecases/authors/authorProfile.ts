// Who an author is among the stored authorships, and what their profile says: the ids they are known by (an OpenAlex
// id, and the ORCIDs that tie other authorships to them), their usual name, their co-authors; and the people a name
// search finds. Pure. A name never ties two authorships together: only an OpenAlex id or an ORCID does.
import type { AuthorId } from "../../domain/authors.js";
import type { AuthorshipRow } from "./authorsReads.js";

/** The ids one person is known by: the OpenAlex ids and ORCIDs that tie authorships to them. */
interface AuthorIdentity {
  ids: Set<string>;
  orcids: Set<string>;
}

/**
 * The identity of the author asked for, from the authorships carrying the id asked: an OpenAlex id adds the ORCIDs its
 * authorships carry; an ORCID adds the OpenAlex ids of the authorships carrying it. One step, so two people are never
 * chained together through a third id.
 */
export function identityOf(asked: AuthorId, rows: readonly AuthorshipRow[]): AuthorIdentity {
  const identity: AuthorIdentity = { ids: new Set(), orcids: new Set() };
  if (asked.kind === "openalex") identity.ids.add(asked.value);
  else identity.orcids.add(asked.value);
  for (const r of rows) {
    const carries = asked.kind === "openalex" ? r.authorId === asked.value : r.orcid === asked.value;
    if (!carries) continue;
    if (r.authorId) identity.ids.add(r.authorId);
    if (r.orcid) identity.orcids.add(r.orcid);
  }
  return identity;
}

/** Whether an authorship is the person of this identity. */
export function isOwn(row: Pick<AuthorshipRow, "authorId" | "orcid">, identity: AuthorIdentity): boolean {
  return (
    (row.authorId !== null && identity.ids.has(row.authorId)) || (row.orcid !== null && identity.orcids.has(row.orcid))
  );
}

/** The values by how often they occur, most first, ties in text order. */
export function byFrequency(values: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([v]) => v);
}

export interface CoAuthor {
  name: string;
  /** OpenAlex author id; null for a co-author the sources name only */
  id: string | null;
  orcid: string | null;
  /** works of this author the co-author is also an author of */
  works: number;
}

/**
 * The most frequent co-authors: each other authorship of the author's works, counted once per work. Identified ones by
 * their OpenAlex id (else ORCID); name-only ones by their exact name as written, one entry per spelling, never joined
 * to an identified one.
 */
export function coAuthorsOf(
  rows: readonly AuthorshipRow[],
  identity: AuthorIdentity,
  workOf: (row: AuthorshipRow) => string,
  limit: number,
): CoAuthor[] {
  const tally = new Map<string, { names: string[]; id: string | null; orcid: string | null; works: Set<string> }>();
  for (const r of rows) {
    if (isOwn(r, identity)) continue;
    const key = r.authorId ? `id:${r.authorId}` : r.orcid ? `orcid:${r.orcid}` : `name:${r.name}`;
    const entry = tally.get(key) ?? { names: [], id: r.authorId, orcid: r.orcid, works: new Set<string>() };
    entry.names.push(r.name);
    entry.orcid ??= r.orcid;
    entry.works.add(workOf(r));
    tally.set(key, entry);
  }
  return [...tally.values()]
    .map((e) => ({ name: byFrequency(e.names)[0]!, id: e.id, orcid: e.orcid, works: e.works.size }))
    .sort((a, b) => b.works - a.works || a.name.localeCompare(b.name) || (a.id ?? "").localeCompare(b.id ?? ""))
    .slice(0, limit);
}

/** A person a name search found: the OpenAlex id (else ORCID) they are looked up by, and their authorships. */
interface FoundAuthor {
  id: string;
  ids: { openalex: string | null; orcid: string | null };
  name: string;
  rows: AuthorshipRow[];
}

/**
 * The identified authorships grouped into people: by OpenAlex id; an authorship with an ORCID only joins the person
 * whose authorships carry that ORCID (the first such id in text order), else stands as a person of its own by ORCID.
 */
export function peopleOf(rows: readonly AuthorshipRow[]): FoundAuthor[] {
  const byId = new Map<string, AuthorshipRow[]>();
  const idOfOrcid = new Map<string, string>();
  for (const r of [...rows].sort((a, b) => (a.authorId ?? "").localeCompare(b.authorId ?? ""))) {
    if (!r.authorId) continue;
    byId.set(r.authorId, [...(byId.get(r.authorId) ?? []), r]);
    if (r.orcid && !idOfOrcid.has(r.orcid)) idOfOrcid.set(r.orcid, r.authorId);
  }
  const byOrcid = new Map<string, AuthorshipRow[]>();
  for (const r of rows) {
    if (r.authorId || !r.orcid) continue;
    const id = idOfOrcid.get(r.orcid);
    if (id) byId.get(id)!.push(r);
    else byOrcid.set(r.orcid, [...(byOrcid.get(r.orcid) ?? []), r]);
  }
  const person = (id: string, openalex: string | null, group: AuthorshipRow[]): FoundAuthor => ({
    id,
    ids: { openalex, orcid: byFrequency(group.flatMap((r) => (r.orcid ? [r.orcid] : [])))[0] ?? null },
    name: byFrequency(group.map((r) => r.name))[0]!,
    rows: group,
  });
  return [
    ...[...byId.entries()].map(([id, group]) => person(id, id, group)),
    ...[...byOrcid.entries()].map(([orcid, group]) => person(orcid, null, group)),
  ];
}
