// Cursors, one scheme for every list: a token opaque to clients, written as a prefix naming what it continues and
// the base64url of its body. Only the spelling this module writes decodes (the body written again gives back the
// same token), so a token altered anywhere, padded or re-encoded is refused, never read as something near it; what
// a body may name is checked again against the list it continues (a search's query record, a list's owner).
//   - a search's or preview's next page: `c1.` + its query record's id (src/usecases/search/paging.ts binds the record
//     to the organization, the same request and the rows delivered before);
//   - a work's references and citing works, an author's works and an author search: the list, its owner, an offset;
//     a citing works page also the place in the list's order it continues after (its last work's date, key, index
//     key and doc_id), so the next page is read from there; the offset alone, as cursors before it, still continues.
// Pure.
import { Rejection } from "./rejection.js";

/** How one kind of cursor writes its body and reads it back (undefined: not a body of this kind). */
interface CursorScheme<T> {
  prefix: string;
  write(value: T): string;
  read(text: string): T | undefined;
}

function encode<T>(scheme: CursorScheme<T>, value: T): string {
  return scheme.prefix + Buffer.from(scheme.write(value), "utf8").toString("base64url");
}

/** The value a token carries, when it is exactly the token this scheme writes for it. */
function decode<T>(scheme: CursorScheme<T>, raw: string): T | undefined {
  if (!raw.startsWith(scheme.prefix)) return undefined;
  const value = scheme.read(Buffer.from(raw.slice(scheme.prefix.length), "base64url").toString("utf8"));
  return value !== undefined && encode(scheme, value) === raw ? value : undefined;
}

const QUERY_PAGE: CursorScheme<string> = {
  prefix: "c1.",
  write: (queryId) => queryId,
  read: (text) => (/^[0-9a-f-]{36}$/.test(text) ? text : undefined),
};

/** The token a search's response carries for the page after its query record. */
export const cursorOf = (queryId: string): string => encode(QUERY_PAGE, queryId);

/** 422: a search cursor that is not one this organization was given (or no longer is). */
export const unknownSearchCursor = () =>
  new Rejection(
    "VALIDATION_ERROR",
    "cursor: not a cursor this organization was given (or it is older than 7 days); send the nextCursor of " +
      "your last page unchanged, or drop cursor to start the list again",
    { field: "cursor" },
  );

/** The query id a search's cursor names; 422 when it is not one of ours. */
export function queryIdOfCursor(cursor: string): string {
  const id = decode(QUERY_PAGE, cursor);
  if (id === undefined) throw unknownSearchCursor();
  return id;
}

/** A page of an offset list: which list, whose (the work, the author, or the folded name searched for), from where. */
interface ListCursor {
  list: "references" | "cited-by" | "author-works" | "authors";
  /** what the list belongs to, as its key: the work, the author, or the folded name searched for */
  work: string;
  offset: number;
  /** cited-by: the place in the list's order the page continues after (date '' for none, key, index key, doc_id) */
  after?: [string, string, string, string];
}

const LIST_LISTS: readonly string[] = ["references", "cited-by", "author-works", "authors"];

const LIST_PAGE: CursorScheme<ListCursor> = {
  prefix: "",
  write: (c) => JSON.stringify(c.after ? [c.list, c.work, c.offset, c.after] : [c.list, c.work, c.offset]),
  read: (text) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!Array.isArray(parsed) || parsed.length < 3 || parsed.length > 4) return undefined;
    const [list, work, offset, after] = parsed as unknown[];
    if (typeof list !== "string" || !LIST_LISTS.includes(list) || typeof work !== "string") return undefined;
    if (!Number.isSafeInteger(offset) || (offset as number) < 0) return undefined;
    const cursor = { list: list as ListCursor["list"], work, offset: offset as number };
    if (after === undefined) return cursor;
    // a place is the strings this service wrote: a forged one with a NUL byte would reach PostgreSQL, which refuses
    // NUL in text
    const place =
      Array.isArray(after) && after.length === 4 && after.every((x) => typeof x === "string" && !x.includes("\u0000"));
    return list === "cited-by" && place ? { ...cursor, after: after as ListCursor["after"] } : undefined;
  },
};

/** The cursor of an offset list's next page. */
export const listCursorOf = (cursor: ListCursor): string => encode(LIST_PAGE, cursor);

/** The offset a list's cursor continues from (0 without one); 422 for a cursor that is not one this list issued. */
export function offsetOfCursor(raw: string | undefined, list: ListCursor["list"], work: string): number {
  return placeOfCursor(raw, list, work).offset;
}

/**
 * Where a list's cursor continues: its offset, and for a citing works page the place it continues after (none for a
 * cursor written before pages kept it); 422 for a cursor that is not one this list issued.
 */
export function placeOfCursor(
  raw: string | undefined,
  list: ListCursor["list"],
  work: string,
): Pick<ListCursor, "offset" | "after"> {
  if (raw === undefined || raw === "") return { offset: 0 };
  const cursor = decode(LIST_PAGE, raw);
  if (cursor && cursor.list === list && cursor.work === work) return { offset: cursor.offset, after: cursor.after };
  const owner = list === "authors" ? "name" : list === "author-works" ? "author" : "work";
  throw new Rejection(
    "VALIDATION_ERROR",
    `cursor is not one this ${list} list issued for this ${owner}; send the nextCursor of its previous page, or ` +
      "none for the first page",
    { field: "cursor" },
  );
}
