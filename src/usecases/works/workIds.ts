// The opaque cursor of a work's reference and citing-work lists, and of an author's works and an author search (the ids
// a work is asked for by are parsed in src/domain/identifiers.ts). Pure.
import { Rejection } from "../../domain/rejection.js";

export interface ListCursor {
  list: "references" | "cited-by" | "author-works" | "authors";
  /** what the list belongs to, as its key: the work, the author, or the folded name searched for */
  work: string;
  offset: number;
}

/** The cursor of the next page: opaque to clients (base64url JSON). */
export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.list, cursor.work, cursor.offset])).toString("base64url");
}

/** The offset a cursor continues from; 422 for a cursor that is not one this list issued. */
export function decodeCursor(raw: string | undefined, list: ListCursor["list"], work: string): number {
  if (raw === undefined || raw === "") return 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    parsed = null;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 3 &&
    parsed[0] === list &&
    parsed[1] === work &&
    Number.isSafeInteger(parsed[2]) &&
    (parsed[2] as number) >= 0
  )
    return parsed[2] as number;
  const owner = list === "authors" ? "name" : list === "author-works" ? "author" : "work";
  throw new Rejection(
    "VALIDATION_ERROR",
    `cursor is not one this ${list} list issued for this ${owner}; send the nextCursor of its previous page, or ` +
      "none for the first page",
    { field: "cursor" },
  );
}
