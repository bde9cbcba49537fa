// A work's integrity: what the update lists in force say of it (retractions, expressions of concern, corrections,
// errata, withdrawals), as every result row and every work carries it. Pure: the lists are read by src/ingest/.

export type IntegrityStatus = "none" | "corrected" | "expression_of_concern" | "retracted";

/** One notice the lists hold about a work: its kind, the notice's own DOI and its date (YYYY-MM-DD), where known. */
export interface IntegrityNotice {
  type: string;
  doi: string | null;
  date: string | null;
}

export interface Integrity {
  status: IntegrityStatus;
  notices: IntegrityNotice[];
}

export const NO_INTEGRITY_NOTICE: Integrity = Object.freeze({ status: "none", notices: [] }) as Integrity;

/**
 * The lists' spellings of an update's kind in one vocabulary: retraction, withdrawal, removal, expression_of_concern,
 * correction, erratum, reinstatement; anything else lower-case with underscores.
 */
export function noticeType(raw: string | null | undefined): string {
  const t = (raw ?? "")
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  if (/^retra/.test(t) || t === "retration") return "retraction";
  if (/^withdraw/.test(t)) return "withdrawal";
  if (/^remov/.test(t)) return "removal";
  if (/^expression_of_concern/.test(t) || t === "eoc") return "expression_of_concern";
  if (/^correct|^corrigend/.test(t)) return "correction";
  if (/^err/.test(t)) return "erratum";
  if (/^reinstat/.test(t)) return "reinstatement";
  return t || "update";
}

const CORRECTING = new Set(["correction", "erratum", "withdrawal", "removal", "retraction"]);

/**
 * The status of a work with these notices. `retracted` exactly when the lists flag the work retracted (the rule that
 * keeps it out of search), so a row that search returns never reads "retracted" unless its collection keeps retracted
 * works. Otherwise an expression of concern, then any correcting notice (a correction, an erratum, or a withdrawal,
 * removal or retraction notice the lists do not flag as retracting the work) gives `corrected`. A reinstatement
 * changes nothing by itself.
 */
export function integrityOf(notices: readonly IntegrityNotice[], flaggedRetracted: boolean): Integrity {
  const sorted = [...notices].sort(
    (a, b) => (a.date ?? "").localeCompare(b.date ?? "") || a.type.localeCompare(b.type),
  );
  if (flaggedRetracted) return { status: "retracted", notices: sorted };
  if (sorted.some((n) => n.type === "expression_of_concern"))
    return { status: "expression_of_concern", notices: sorted };
  if (sorted.some((n) => CORRECTING.has(n.type))) return { status: "corrected", notices: sorted };
  return { status: "none", notices: sorted };
}

/** Adds a notice unless one of the same kind and notice DOI is there already (two lists naming one notice). */
export function addNotice(notices: IntegrityNotice[], notice: IntegrityNotice): void {
  const same = notices.find((n) => n.type === notice.type && (n.doi ?? "") === (notice.doi ?? ""));
  if (!same) notices.push(notice);
  else if (!same.date && notice.date) same.date = notice.date;
}
