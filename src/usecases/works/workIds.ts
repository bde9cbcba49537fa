// The identifiers a work is asked for by, and the opaque cursor of its reference and citing-work lists. Pure.
import { canonicalDoi, canonicalPmcid, canonicalPmid } from "../../domain/identifiers.js";
import { Rejection } from "../../domain/rejection.js";

export type WorkIdField = "doi" | "pmid" | "pmcid" | "openalex" | "doc_id";

export interface WorkId {
  field: WorkIdField;
  value: string;
}

/** Longest identifier read; longer is a 422 (no DOI comes near it). */
export const MAX_WORK_ID_LENGTH = 300;

/**
 * What an id names: a DOI (bare, `doi:…` or a doi.org URL), `pmid:NNN`, `pmcid:PMCNNN` (or a bare `PMCNNN`), an
 * OpenAlex id (`W123…`, or its openalex.org URL), else the `doc_id` a result row carries. Null when it is none of them
 * (empty, or a `pmid:`/`pmcid:` prefix on something else).
 */
export function parseWorkId(raw: string): WorkId | null {
  const id = raw.trim();
  if (!id || id.length > MAX_WORK_ID_LENGTH) return null;
  const prefixed = /^(pmid|pmcid|doi|openalex):\s*(.+)$/i.exec(id);
  if (prefixed) {
    const [, kind, rest] = prefixed as unknown as [string, string, string];
    switch (kind.toLowerCase()) {
      case "pmid": {
        const v = canonicalPmid(rest.trim());
        return v ? { field: "pmid", value: v } : null;
      }
      case "pmcid": {
        const v = canonicalPmcid(rest.trim());
        return v ? { field: "pmcid", value: v } : null;
      }
      case "openalex": {
        const v = openAlexId(rest.trim());
        return v ? { field: "openalex", value: v } : null;
      }
      default: {
        const v = canonicalDoi(id);
        return v ? { field: "doi", value: v } : null;
      }
    }
  }
  const doi = canonicalDoi(id);
  if (doi) return { field: "doi", value: doi };
  const openalex = openAlexId(id);
  if (openalex) return { field: "openalex", value: openalex };
  if (/^PMC\d{1,10}$/i.test(id)) return { field: "pmcid", value: canonicalPmcid(id)! };
  return { field: "doc_id", value: id };
}

/** "W123", "w123" or "https://openalex.org/W123" → "W123"; null otherwise. */
function openAlexId(raw: string): string | null {
  const m = /^(?:https?:\/\/(?:api\.)?openalex\.org\/(?:works\/)?)?[Ww](\d{1,12})$/.exec(raw);
  return m ? `W${m[1]}` : null;
}

export interface ListCursor {
  list: "references" | "cited-by";
  /** the work the list belongs to, as its key */
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
  throw new Rejection(
    "VALIDATION_ERROR",
    `cursor is not one this ${list} list issued for this work; send the nextCursor of its previous page, or ` +
      "none for the first page",
    { field: "cursor" },
  );
}
