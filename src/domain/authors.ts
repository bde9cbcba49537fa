// Authors as the sources name them: an authorship (name, OpenAlex author id, ORCID, position), the spellings of an
// author id a client may send, ORCID normalisation and name folding. Pure. Two people are never merged by name alone:
// an authorship without an id stays name-only, tied to an id only by its ORCID.

export type AuthorPosition = "first" | "middle" | "last";

/** One author of one work, as its source gives it. */
export interface Authorship {
  name: string;
  /** OpenAlex author id ("A5023888391"); null where the source has none (MEDLINE, JATS, OpenAlex's unresolved ones) */
  id: string | null;
  /** ORCID as 0000-0000-0000-000X; null where the source gives none or an invalid one */
  orcid: string | null;
  /** OpenAlex's author_position; for sources without one, read from the order (the first, the last, the others) */
  position: AuthorPosition | null;
}

/** An author id as looked up: an OpenAlex author id or an ORCID, each in its one canonical spelling. */
export type AuthorId = { kind: "openalex"; value: string } | { kind: "orcid"; value: string };

const ORCID_BODY = /^(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dX])$/;
// a URL's "//" may arrive as one "/" (a path's empty segment dropped)
const ORCID_PREFIX = /^(?:(?:https?:\/\/?)?(?:www\.)?orcid\.org\/|orcid:\s*)/i;
const OPENALEX_AUTHOR = /^(?:(?:https?:\/\/?)?(?:api\.)?openalex\.org\/(?:authors\/)?|openalex:\s*)?(A[1-9]\d{0,14})$/i;

/** Whether the 16 characters of an ORCID carry a right check digit (ISO 7064 MOD 11-2). */
function orcidChecksumHolds(digits: string): boolean {
  let total = 0;
  for (const c of digits.slice(0, 15)) total = (total + Number(c)) * 2;
  const result = (12 - (total % 11)) % 11;
  return digits[15] === (result === 10 ? "X" : String(result));
}

/**
 * An ORCID in its canonical form 0000-0002-1825-0097 from any common spelling (bare, without dashes, https://orcid.org/…,
 * http://, orcid:…, a lowercase x); null when it is not one (wrong shape or check digit).
 */
export function normalizeOrcid(raw: string | null | undefined): string | null {
  if (typeof raw !== "string") return null;
  const body = raw.trim().replace(ORCID_PREFIX, "").replace(/\/+$/, "").toUpperCase();
  const match = ORCID_BODY.exec(body);
  if (!match) return null;
  const digits = match.slice(1, 5).join("");
  return orcidChecksumHolds(digits) ? match.slice(1, 5).join("-") : null;
}

/** An OpenAlex author id ("A5023888391") from its short form or its openalex.org URL; null when it is not one. */
export function openAlexAuthorId(raw: string | null | undefined): string | null {
  if (typeof raw !== "string") return null;
  const match = OPENALEX_AUTHOR.exec(raw.trim());
  return match ? match[1]!.toUpperCase() : null;
}

/** What an author id must look like: the words of every refusal of a malformed one. */
export const AUTHOR_ID_SPELLINGS =
  "an OpenAlex author id (A5023888391 or https://openalex.org/A5023888391) or an ORCID " +
  "(0000-0002-1825-0097, with or without https://orcid.org/)";

/** A client's author id read as one; a reason naming the fix when it is neither spelling. */
export function parseAuthorId(raw: string): { ok: true; id: AuthorId } | { ok: false; reason: string } {
  const openalex = openAlexAuthorId(raw);
  if (openalex) return { ok: true, id: { kind: "openalex", value: openalex } };
  const orcid = normalizeOrcid(raw);
  if (orcid) return { ok: true, id: { kind: "orcid", value: orcid } };
  const body = raw.trim().replace(ORCID_PREFIX, "").toUpperCase();
  const why = ORCID_BODY.test(body)
    ? `"${printable(raw)}" has the shape of an ORCID but its check digit is wrong; check it against orcid.org`
    : `"${printable(raw)}" is not an author id`;
  // a name sent where an id goes: the search by name finds the ids
  const name = raw.trim();
  const byName =
    !ORCID_BODY.test(body) && /^[\p{L}][\p{L}' .,-]{1,99}$/u.test(name)
      ? `; to find people by name, GET /api/v1/authors?name=${encodeURIComponent(name)} (MCP: find_authors)`
      : "";
  return { ok: false, reason: `${why}: send ${AUTHOR_ID_SPELLINGS}${byName}` };
}

/** A value safe to quote back in a message: control characters shown as \uXXXX, cut at 100 characters. */
function printable(raw: string): string {
  const shown = raw.length > 100 ? `${raw.slice(0, 100)}…` : raw;
  // eslint-disable-next-line no-control-regex
  return shown.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A name folded for matching: accents removed (NFKD without combining marks), case folded, punctuation and runs of
 * space made one space. "Müller-Lüdenscheidt, J." and "muller ludenscheidt j" fold alike.
 */
export function foldName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/ß/g, "ss")
    .replace(/[Øø]/g, "o")
    .replace(/[Łł]/g, "l")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The position of the i-th of n authors, for sources that give only an order. */
export function positionInOrder(i: number, n: number): AuthorPosition {
  if (i === 0) return "first";
  return i === n - 1 ? "last" : "middle";
}

/** Authorships from names in order, each with the ORCID the source gives beside it (null or invalid: none). */
export function authorshipsInOrder(authors: readonly { name: string; orcid?: string | null }[]): Authorship[] {
  return authors.map((a, i) => ({
    name: a.name,
    id: null,
    orcid: normalizeOrcid(a.orcid),
    position: positionInOrder(i, authors.length),
  }));
}

/**
 * The keys the `author_id` filter matches a work by: each authorship's OpenAlex id and ORCID, each once. A name is
 * never a key.
 */
export function authorKeys(authorships: readonly Authorship[]): string[] {
  const keys = new Set<string>();
  for (const a of authorships) {
    if (a.id) keys.add(a.id);
    if (a.orcid) keys.add(a.orcid);
  }
  return [...keys];
}
